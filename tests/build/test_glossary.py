"""The glossary: one data file, a generated page, and a card on a term's first use on each page.

Python-Markdown's abbr extension marks a term wherever prose writes it whole
and in the same case, and the build keeps the mark on its first use on the
page (site_build.glossary.marked_once); these tests read the built pages to
prove that a page's first use of every term carries its card and no later use
does, that every card takes keyboard focus, and that no entry is dead
weight (neither used in an article nor linked from another entry).
"""

import re
from html.parser import HTMLParser

import pytest

from site_build import cards, citation, glossary
from harness import markup
from harness.site import ROOT, ConfigLoader

import yaml

TERMS = glossary.load()
# The same whole-word, case-sensitive match the abbr extension makes, longest term first.
USE = re.compile(r"\b(?:" + "|".join(re.escape(t.term) for t in sorted(TERMS, key=lambda t: -len(t.term))) + r")\b")
NAV = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)["nav"]
# What changed quotes commit messages as git holds them, and the list of derivations repeats the
# articles' numbers (site_build/cards.py): neither is an article.
ARTICLES = [page for entry in NAV for page in entry.values() if page not in ("glossary.md", "what-changed.md", cards.LIST_PAGE)]
# Not prose: code, scripts and pictures, a widget's own markup (labels and outputs written by Python).
SKIPPED = {"code", "pre", "script", "style", "svg", "abbr"}
SKIPPED_CLASSES = {"widget"}


class _Prose(HTMLParser):
    """The article's text outside cards, code and widgets, by h2 section; and the terms that carry a card."""

    def __init__(self):
        super().__init__()
        self.sections: list[list] = [[]]  # per section, its prose in order: (text, carded)
        self.carded: set[str] = set()
        self.abbr_tags: list[dict] = []
        self._article = False
        self._skip: list[list] = []  # [tag, depth] of the skipped element we are in
        self._abbr = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article":
            self._article = True
        if tag == "abbr":
            self.abbr_tags.append(attrs)
            self._abbr = True
        if tag == "h2" and self._article and not self._skip:
            self.sections.append([])
        if self._skip:
            if tag == self._skip[-1][0]:
                self._skip[-1][1] += 1
        elif tag in SKIPPED or SKIPPED_CLASSES & set((attrs.get("class") or "").split()):
            self._skip.append([tag, 1])

    def handle_endtag(self, tag):
        if tag == "article":
            self._article = False
        if tag == "abbr":
            self._abbr = False
        if self._skip and tag == self._skip[-1][0]:
            self._skip[-1][1] -= 1
            if self._skip[-1][1] == 0:
                self._skip.pop()

    def handle_data(self, data):
        if self._abbr:
            self.carded.add(data)
            self.sections[-1].append((data, True))
        elif self._article and not self._skip:
            self.sections[-1].append((data, False))


def parsed(site, page: str) -> _Prose:
    prose = _Prose()
    path = "index.html" if page == "index.md" else f"{page.removesuffix('.md')}/index.html"
    prose.feed(markup.well_formed((site / path).read_text("utf-8")))
    return prose


@pytest.mark.parametrize("page", ARTICLES)
def test_a_pages_first_use_of_a_term_carries_its_card_and_no_later_use_does(built_site, page):
    wrong = []
    seen = set()
    for number, section in enumerate(parsed(built_site, page).sections):
        for text, carded in section:
            for term in (text,) if carded else (m.group(0) for m in USE.finditer(text)):
                if carded == (term in seen):
                    wrong.append(f"section {number}: {term!r} {'carded again' if carded else 'first used without a card'}")
                seen.add(term)
    assert not wrong, f"{page}: " + "; ".join(wrong)


@pytest.mark.parametrize("page", [*ARTICLES, "glossary.md"])
def test_every_card_takes_keyboard_focus_and_says_its_definition(built_site, page):
    cards = {t.term: t.short for t in TERMS}
    prose = parsed(built_site, page)
    for attrs in prose.abbr_tags:
        assert attrs.get("tabindex") == "0", attrs
        assert attrs.get("data-card") in cards.values(), attrs


@pytest.mark.parametrize("page", [*ARTICLES, "glossary.md"])
def test_a_terms_card_links_to_the_page_that_says_more_from_every_other_page(built_site, page):
    folder = built_site if page == "index.md" else built_site / page.removesuffix(".md")
    link_of = {t.short: t.link for t in TERMS}
    for attrs in parsed(built_site, page).abbr_tags:
        link = link_of[attrs["data-card"]]
        if link in ("", page):
            assert "data-card-link" not in attrs, attrs
        else:
            assert (folder / attrs["data-card-link"]).resolve() == (built_site / link.removesuffix(".md")).resolve(), attrs
            assert attrs["data-card-link-text"] == glossary.title(link), attrs


def test_no_entry_is_unused_and_unlinked(built_site):
    used = set().union(*(parsed(built_site, page).carded for page in ARTICLES))
    linked = {r for t in TERMS for r in t.related}
    dead = [t.term for t in TERMS if t.term not in used and t.term not in linked]
    assert not dead, f"glossary entries no article uses and no entry links to: {dead}"


def test_the_glossary_page_lists_every_term_alphabetised_each_linkable(built_site):
    page = markup.parse((built_site / "glossary" / "index.html").read_text("utf-8"))
    ids = [h.attrs["id"] for h in page.iter("h2", id=True) if h.attrs["id"] != citation.SECTION_ID]  # every page ends with its citation
    assert ids == [t.anchor for t in sorted(TERMS, key=lambda t: t.term.casefold())]
    entries = {section.find("h2").attrs["id"]: section for section in page.iter("section", class_="page-section")}
    for t in TERMS:
        links = [(a.attrs.get("href"), a.text()) for a in entries[t.anchor].iter("a")]
        for related in t.related:
            anchor = next(r.anchor for r in TERMS if r.term == related)
            assert f"#{anchor}" in dict(links)
        if t.link:  # the page that says more, by its title
            assert (f"../{t.link.removesuffix('.md')}/", glossary.title(t.link)) in links, t.term


def test_the_seeds_terms_are_all_in_the_glossary():
    # The terms the seed articles explain inline or in hover cards.
    names = {t.term for t in TERMS}
    assert {"BF16", "MLP", "MoE", "LoRA", "QLoRA", "ZeRO", "FSDP", "NVLink", "MFU", "token", "checkpoint"} <= names


def test_a_runs_footprint_terms_are_defined_and_the_number_format_terms_link_to_the_precision_page():
    by_name = {t.term: t for t in TERMS}
    assert {"PUE", "CO₂e"} <= set(by_name)
    for term in ("BF16", "FP8", "mantissa", "exponent", "block scaling", "NF4"):
        assert by_name[term].link == "precision.md", term


@pytest.mark.parametrize("entry, problem", [
    ('term = "A"\nshort = "x"\n[[terms]]\nterm = "A"\nshort = "y"', "defined twice"),
    ('term = "A"\nshort = "x"\nrelated = ["B"]', "relates to 'B'"),
    ('term = "A"\nshort = "takes 16 bytes"', "hand-typed quantity"),
    ('term = "A"\nshort = "x"\nlink = "no-such-page.md"', "not a page of docs/"),
])
def test_a_bad_entry_stops_the_build_with_one_line(tmp_path, entry, problem):
    data = tmp_path / "glossary.toml"
    data.write_text("[[terms]]\n" + entry + "\n", "utf-8")
    [finding] = glossary.findings(glossary.load(data))
    assert problem in finding


def test_marked_once_keeps_a_terms_first_mark_on_the_page_as_a_focusable_card():
    use = '<abbr title="x">A</abbr>'
    parts = [f"<p>{use} and {use}</p>", f"<h2>B</h2><p>{use} <abbr class=\"keep\">C</abbr></p>"]
    assert glossary.marked_once(parts) == [
        '<p><abbr tabindex="0" data-card="x">A</abbr> and A</p>',
        '<h2>B</h2><p>A <abbr class="keep">C</abbr></p>',
    ]


def test_marked_once_gives_a_linked_terms_card_its_link():
    links = {"A": ' data-card-link="../p/" data-card-link-text="P"'}
    assert glossary.marked_once(['<p><abbr title="x">A</abbr> <abbr title="y">B</abbr></p>'], links) == [
        '<p><abbr tabindex="0" data-card="x" data-card-link="../p/" data-card-link-text="P">A</abbr> '
        '<abbr tabindex="0" data-card="y">B</abbr></p>',
    ]

