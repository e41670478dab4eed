"""The glossary: one data file of terms (glossary.toml) behind two things.

- The cards on every page. Python-Markdown's `abbr` extension takes a
  `glossary` of {term: definition} and wraps each whole-word, case-sensitive
  use of a term in `<abbr title=...>`; the hook hands it this module's
  `abbreviations()`, so there is no second list to keep. `marked_once` then
  keeps the mark on a term's first use on the page and drops the rest (a term
  marked forty times says nothing the first mark did not, and each mark
  writes its definition into the page again), and turns each kept mark into a card as the numbers have
  one: the definition as `data-card`, shown on hover and on focus by the
  delegated site_build/browser/cards.js (by site.css with JavaScript off), and
  a place in the tab order, which Python-Markdown does not give it. A term that names a page of the
  site saying more (`link`) carries that page's address and title too, and cards.js writes the
  link under the definition (`card_links`).
- The Glossary page, alphabetised, one linkable heading per term
  (`page_markdown`, through the `glossary()` macro).
"""

import dataclasses
import html
import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.utils import meta

from estimators import EstimatorError, data_file
from site_build.lint import MESSAGE, find_quantities

DATA = Path(__file__).resolve().parent / "glossary.toml"
ROOT = DATA.parent.parent
DOCS = ROOT / "docs"
# What Python-Markdown's abbr extension writes for a use of a term; `marked_once` reads exactly this.
ABBR = re.compile(r'<abbr title="([^"]*)">(.*?)</abbr>', re.S)


@dataclass(frozen=True)
class Term:
    term: str  # as prose writes it; matched whole-word, case-sensitively
    short: str  # the hover card: one sentence
    long: str = ""  # more, on the Glossary page only
    related: tuple = ()  # other terms of the glossary
    link: str = ""  # a page of the site that says more, as docs/ names it ("precision.md")

    @property
    def anchor(self) -> str:
        """The term's id on the Glossary page: "all-reduce", "optimizer-state"."""
        return re.sub(r"[^a-z0-9]+", "-", self.term.lower()).strip("-")


def _terms(data: dict) -> list:
    """The [[terms]] tables as Terms: texts only, each field one of Term's, `term` and `short` given."""
    fields = [f.name for f in dataclasses.fields(Term)]
    terms = []
    for i, raw in enumerate(data_file.texts(data).get("terms", [])):
        for name in raw.keys() - set(fields):
            raise EstimatorError(f"terms[{i}].{name}", raw[name], "a known field: " + ", ".join(fields))
        for name in ("term", "short"):
            if name not in raw:
                raise EstimatorError(f"terms[{i}].{name}", None, "a value (the field is missing)")
        terms.append(Term(**{**raw, "related": tuple(raw.get("related", ()))}))
    return terms


def load(path: Path = DATA) -> tuple:
    """The terms, alphabetised regardless of case."""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    terms = data_file.parse(path.read_text("utf-8"), str(shown), _terms)
    return tuple(sorted(terms, key=lambda t: t.term.casefold()))


def findings(terms: tuple) -> list[str]:
    """What stops the build: a term twice, a related term that is not in the glossary, a hand-typed quantity."""
    shown = DATA.name
    names = [t.term for t in terms]
    problems = [f"{shown}: the term {name!r} is defined twice" for name in sorted(set(names)) if names.count(name) > 1]
    for t in terms:
        problems += [f"{shown}: {t.term!r} relates to {r!r}, which has no entry" for r in t.related if r not in names]
        if t.link and not (DOCS / t.link).is_file():
            problems.append(f"{shown}: {t.term!r} links to {t.link!r}, which is not a page of docs/")
        for text in (t.short, t.long):
            problems += [f"{shown}: {t.term!r}: {MESSAGE.format(text=f.text)}" for f in find_quantities(text)]
    return problems


def abbreviations(terms: tuple) -> dict:
    """{term: hover card}, the `glossary` option of the abbr extension."""
    return {t.term: t.short for t in terms}


def page_markdown(terms: tuple) -> str:
    """The Glossary page's body: per term a heading with a stable id, its definition, links to related terms,
    and to the page that says more."""
    by_name = {t.term: t for t in terms}
    blocks = []
    for t in terms:
        lines = [f"## {t.term} {{: #{t.anchor} }}", "", t.short]
        if t.long:
            lines += ["", t.long]
        if t.related:
            lines += ["", "Related: " + ", ".join(f"[{r}](#{by_name[r].anchor})" for r in t.related) + "."]
        if t.link:
            lines += ["", f"More: [{title(t.link)}]({t.link})."]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def title(link: str) -> str:
    """The title of a page of docs/, as its front matter gives it."""
    return meta.get_data((DOCS / link).read_text("utf-8"))[1]["title"]


def card_links(terms: tuple, page, files) -> dict:
    """{term: its card's link attributes} on `page` (an mkdocs File among `files`): the address of the
    page the term links to, relative to this one, and that page's title; none to the page itself."""
    links = {}
    for t in terms:
        target = files.get_file_from_path(t.link) if t.link else None
        if target is not None and target.src_uri != page.src_uri:
            links[t.term] = (f' data-card-link="{html.escape(target.url_relative_to(page))}"'
                             f' data-card-link-text="{html.escape(title(t.link))}"')
    return links


def marked_once(parts: list[str], links: dict | None = None) -> list[str]:
    """The page's first use of a term, over its sections (site_build.sections) in order, as a card that
    takes keyboard focus, with its `links` attributes (`card_links`); the term's later uses as plain text."""
    links = links or {}
    seen = set()

    def mark(use: re.Match) -> str:
        definition, term = use.groups()
        if term in seen:
            return term
        seen.add(term)
        return f'<abbr tabindex="0" data-card="{definition}"{links.get(term, "")}>{term}</abbr>'

    return [ABBR.sub(mark, part) for part in parts]
