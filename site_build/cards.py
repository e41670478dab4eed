"""The site's derivation cards, each written once, on pages of their own.

A number in prose is a link to its card's entry on its page's list of "How the numbers were made"
(`list_page`: `numbers/training/` for the training article), a page the build adds after every
other: the page's cards, each the card's first line as the entry's term, then a line per estimator
it went through, a link to its formula by number, and a line per input, linking to its source by
number; then the formulas and sources that list cites, each written once. Two numbers with the
same card share one entry, and a source cited by fifty inputs is written once, so a list carries its
provenance once rather than once per number; a page that prints hundreds of numbers does not carry
their derivations in its own HTML, which every reader would pay for at every load; and each list is
as long as its own page's numbers make it, not the whole site's, so no list outgrows the per-page
budget (`checks.PAGE_BUDGET_BYTES`) because the site has more pages. The page that prints them ends
with a short section saying where they are; `LIST_PAGE`, in the nav, links each page's list.

With JavaScript off the number's link is the way to its card; with it,
site_build/browser/cards.js fetches the list page the first time a card opens
and shows the entry as a tooltip, each source link replaced by the source's
text, so the tooltip reads as `derivation.card` writes it.
"""

import functools
import html
import math
import posixpath
from dataclasses import dataclass, field

from site_build import derivation

# Everything the list writes is element text, never an attribute: its quotes need no escaping, and
# the expressions quote every preset key.
_text = functools.partial(html.escape, quote=False)

LIST_PAGE = "numbers.md"  # the index of every page's list
LIST_TITLE = "How the numbers were made"
# Each page's list, a page of this folder: `numbers/training.md` for `training.md`.
LIST_FOLDER = "numbers"
HOME_LIST = "home"  # the home page's list, named apart from the folder's own index
# The section an article ends with, pointing to its list.
SECTION_ID = "how-these-numbers-were-made"
HEADING = "How these numbers were made"
# An entry's id is its number in its page's list, which its page's address already names.
ENTRY_ID = "{index}"
FORMULA_ID = "formula-{}"
SOURCE_ID = "source-{}"
FORMULAS_ID = "formulas"
SOURCES_ID = "sources"
# Entries per list on the list page: each list is laid out only near the viewport (site.css), so a
# page's hundreds of entries cost, at load, what the few on screen cost.
ENTRIES_PER_LIST = 20


def _shortest(value: float) -> str:
    """The shortest text that reads back as exactly `value` ("8192", "1.56e13")."""
    plain = repr(value).removesuffix(".0")
    if not math.isfinite(value):
        return plain
    digits = next(p for p in range(17) if float(f"{value:.{p}e}") == value)
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    scientific = f"{mantissa}e{int(exponent)}"
    return min(plain, scientific, key=len)


class ListOrderError(Exception):
    """A page printed numbers after the list of every page's numbers was written."""


@dataclass
class _Page:
    """One page's entries: card_parts -> entry number, in the order its numbers first cite them."""

    key: str  # the page's part of its entries' ids, and its list's anchor
    title: str
    src_uri: str
    entries: dict = field(default_factory=dict)


def page_key(src_uri: str) -> str:
    """A page's Markdown path as an id: `training.md` -> `training`, `guides/index.md` -> `guides-index`."""
    return src_uri.removesuffix(".md").replace("/", "-")


def list_page(src_uri: str) -> str:
    """The Markdown path of the list of a page's numbers: `training.md` -> `numbers/training.md`; the home
    page's, `index.md`, -> `numbers/home.md`, since `numbers/index.md` would be served at `numbers/`, where the
    index of every list is."""
    key = page_key(src_uri)
    return f"{LIST_FOLDER}/{HOME_LIST if key == 'index' else key}.md"


def is_list(src_uri: str) -> bool:
    """Whether a page is one the build writes here: the index, or a page's list."""
    return src_uri == LIST_PAGE or src_uri.startswith(f"{LIST_FOLDER}/")


class SiteCards:
    """The cards of every page rendered; the list numbers the formulas and sources they cite in the
    order it lists them."""

    def __init__(self):
        self.pages: dict = {}  # key -> _Page, each page that printed a number
        self.page: _Page | None = None
        self.list_url = ""  # the list page, relative to the page being rendered
        self.listed = False

    def start_page(self, src_uri: str, title: str, list_url: str) -> None:
        """The page about to be rendered, and the address of its list (`list_page`) as seen from it."""
        if is_list(src_uri):
            self.page = None
            return
        if self.listed:
            raise ListOrderError(f"{src_uri} was rendered after the lists of {LIST_FOLDER}/, which list every page's numbers")
        self.page = _Page(page_key(src_uri), title, src_uri)
        self.pages.pop(self.page.key, None)  # a page rendered again (a rebuild) lists its numbers afresh
        self.list_url = list_url

    def number(self, text: str, value: derivation.Traced) -> str:
        """A printed number: its text, linked to its card's entry, inside a `<data>` holding its value;
        on paper, the entry's number, its link's fragment, as a note mark (print.js)."""
        parts = derivation.card_parts(text, value)
        page = self.pages.setdefault(self.page.key, self.page)
        index = page.entries.setdefault(parts, len(page.entries) + 1)
        # The fragment is the entry's number, which a printed page writes after the number (print.js).
        # No class: a <data value> is only ever a number, and the stylesheets say `data[value]`.
        return f'<data value="{_shortest(float(value))}"><a href="{self.list_url}#{ENTRY_ID.format(index=index)}">{text}</a></data>'

    def page_of(self, src_uri: str) -> "_Page | None":
        """What a page put into the list, for a rebuild that keeps the page's HTML (`keep`)."""
        return self.pages.get(page_key(src_uri))

    def keep(self, page: "_Page") -> None:
        """A page the last build rendered, listed again without rendering it."""
        self.pages[page.key] = page

    def pointer(self) -> str:
        """The Markdown an article ends with, saying where its numbers' derivations are ("" for a page
        that prints no number)."""
        if self.page is None or self.page.key not in self.pages:
            return ""
        here = posixpath.dirname(self.page.src_uri) or "."
        return (
            f"## {HEADING} {{#{SECTION_ID}}}\n\n"
            "Each number on this page links to its derivation: the formulas it went through, and the inputs "
            f"it read, each with its source. They are listed on [a page of their own]({posixpath.relpath(list_page(self.page.src_uri), here)}), "
            f"one of [{LIST_TITLE}]({posixpath.relpath(LIST_PAGE, here)})."
        )

    def listed_pages(self, order: list) -> list:
        """The pages that printed a number, in `order` (Markdown paths; a page not in it comes after)."""
        place = {src: i for i, src in enumerate(order)}
        return sorted(self.pages.values(), key=lambda p: place.get(p.src_uri, len(place)))

    def index(self, order: list) -> str:
        """The index page's body as Markdown: a link to each page's list, in `order`."""
        self.listed = True
        here = posixpath.dirname(LIST_PAGE) or "."
        return "\n".join(f"- [{page.title}]({posixpath.relpath(list_page(page.src_uri), here)})" for page in self.listed_pages(order))

    def listing(self, src_uri: str) -> str:
        """A page's list as Markdown, its lists held as raw HTML (`hold`): its heading, its entries,
        then the formulas and the sources they cite. An entry's line that names a formula or cites a
        source links to it; cards.js puts the linked text in the link's place, so the tooltip reads as
        `derivation.card` writes it. "" for a page that printed no number (the build writes no list
        for it)."""
        from site_build import held

        self.listed = True
        page = self.pages.get(page_key(src_uri))
        if page is None:
            return ""
        formulas, sources = {}, {}  # formula and source texts -> its number, as the list cites them
        for _, steps, inputs in page.entries:
            for step in steps:
                formulas.setdefault(step, len(formulas) + 1)
            for _, source in inputs:
                if source:
                    sources.setdefault(source, len(sources) + 1)
        lines = []
        for (first, steps, inputs), index in page.entries.items():
            if index % ENTRIES_PER_LIST == 1:
                # The page's first list starts its entries' count on paper (print.css).
                lines += ["</dl>"] * (index > 1) + [f'<dl class="derivations{" derivations--first" * (index == 1)}">']
            lines.append(f'<dt id="{ENTRY_ID.format(index=index)}">{_text(first)}</dt>')
            # A formula by its number, as a source is: its text, written once below, is what the card
            # reads in the link's place (cards.js), and a formula cited by a hundred entries is not
            # written a hundred times.
            lines += [f'<dd><a href="#{FORMULA_ID.format(formulas[step])}">formula {formulas[step]}</a></dd>' for step in steps]
            lines += [f"<dd>{_input(line, source, sources)}</dd>" for line, source in inputs]
        lines.append("</dl>")
        back = posixpath.relpath(page.src_uri, LIST_FOLDER)
        out = [f"# {LIST_TITLE}: {page.title}",
               f"Every number that [{page.title}]({back}) prints, with how it was made: the formulas it went "
               "through, and the inputs it read, each with its source. A number's link on its page leads "
               f"to its entry here; [{LIST_TITLE}]({posixpath.relpath(LIST_PAGE, LIST_FOLDER)}) lists every page's.",
               held.hold("\n".join(lines))]
        if formulas:
            out += [f"## Formulas {{#{FORMULAS_ID}}}", held.hold(f"<ul>{_items(FORMULA_ID, formulas)}</ul>")]
        if sources:
            out += [f"## Sources {{#{SOURCES_ID}}}", held.hold(f"<ol>{_items(SOURCE_ID, sources)}</ol>")]
        return "\n\n".join(out)


def _input(line: str, source: str, sources: dict) -> str:
    if not source:
        return _text(line)
    number = sources[source]
    return f'{_text(line)} (source: <a href="#{SOURCE_ID.format(number)}">{number}</a>)'


def _items(ids: str, numbered: dict) -> str:
    return "".join(f'<li id="{ids.format(index)}">{_text(text)}</li>' for text, index in numbered.items())


# The list pages as mkdocs reads them: search leaves them out (they repeat the pages' numbers); the
# index's body is the macro that links every page's list, a list's the macro that writes it (its heading too:
# the page's title is known only once the page is rendered).
_EXCLUDED = """---
search:
  exclude: true
---
"""
LIST_MARKDOWN = f"""{_EXCLUDED}
# {LIST_TITLE}

Every number the other pages print has its entry on a list of its page's: how it was made, the
formulas it went through, and the inputs it read, each with its source. A number's link on its page
leads to its entry.

{{{{ numbers_made() }}}}
"""


def list_markdown(src_uri: str) -> str:
    """The Markdown of the list of `src_uri`'s numbers, as mkdocs reads it."""
    return f'{_EXCLUDED}\n{{{{ numbers_made("{src_uri}") }}}}\n'
