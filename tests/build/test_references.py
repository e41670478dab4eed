"""Papers and sources the prose names are links to them (site_build/references.toml): on every page,
the first mention of each is its link. A link is not a request: no page loads anything from another
origin (tests/build/test_build.py)."""

import re
from html.parser import HTMLParser

import pytest

from harness import markup
from harness.site import nav_paths
from site_build.references import definitions, references, with_definitions


# Pages whose text is data rather than prose: What changed quotes commit messages as they were
# written; the Glossary's definitions are also hover cards, plain text where no link can stand; How
# the numbers were made lists the presets' sources.
NOT_PROSE = ("/what-changed/", "/glossary/", "/numbers/")
# Not prose either: code, pictures, and the sources a preset table folds into a <details>.
SKIPPED = ("script", "style", "svg", "code", "details")
PRESET_TABLES = "presets-and-their-sources"


class Prose(HTMLParser):
    """The article's prose, each piece with the address of the link it stands in (or None); a
    widget's text (its data files') is not prose."""

    def __init__(self):
        super().__init__()
        self.pieces, self.links, self.skip, self.inside, self.widget_divs = [], [], 0, False, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.inside = True
        if tag in SKIPPED:
            self.skip += 1
        if tag == "div" and (self.widget_divs or "widget" in (a.get("class") or "").split()):
            self.widget_divs += 1
        if tag == "a":
            self.links.append(a.get("href"))

    def handle_endtag(self, tag):
        if tag == "article":
            self.inside = False
        if tag in SKIPPED:
            self.skip -= 1
        if tag == "div" and self.widget_divs:
            self.widget_divs -= 1
        if tag == "a" and self.links:
            self.links.pop()

    def handle_data(self, data):
        if self.inside and not self.skip and not self.widget_divs:
            self.pieces.append((re.sub(r"\s+", " ", data), self.links[-1] if self.links else None))


def first_mentions(html: str) -> dict:
    """{reference key: the address of the link its first mention stands in, or None}."""
    prose = Prose()
    prose.feed(html)
    text, starts = "", []
    for piece, _ in prose.pieces:
        starts.append(len(text))
        text += piece
    found = {}
    for r in references():
        at = [i for i in (text.find(name) for name in r.names) if i >= 0]
        if at:
            piece = max(n for n, start in enumerate(starts) if start <= min(at))
            found[r.key] = prose.pieces[piece][1]
    return found


@pytest.mark.parametrize("path", [p for p in nav_paths() if p not in NOT_PROSE])
def test_the_first_mention_of_each_paper_on_a_page_is_its_link(built_site, path):
    html = markup.well_formed((built_site / path.strip("/") / "index.html").read_text("utf-8"))
    # The methods page's preset tables, written from presets.toml, are data too.
    html = html.split(f'id="{PRESET_TABLES}"')[0]
    urls = {r.key: r.url for r in references()}
    unlinked = {key: href for key, href in first_mentions(html).items() if href != urls[key]}
    assert unlinked == {}


def test_every_page_gets_every_definition_once_and_only_a_reference_form_link_uses_it():
    page = with_definitions("See [the ZeRO paper][zero].")
    assert page.count(definitions()) == 1
    assert all(f"[{r.key}]: {r.url} " in page for r in references())
    assert len({r.url for r in references()}) == len(references())  # each address kept once
