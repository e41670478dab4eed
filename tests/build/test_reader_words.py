"""Reader pages speak to readers: the project's own words ("preset", the tests) stay on the methods
page, which is about how the site is made; an article, its widgets and their labels for assistive
technology never use them."""

import html
import re

import pytest

READER_PAGES = ("index.html", "training/index.html", "ten-steps/index.html", "glossary/index.html")
INTERNAL = re.compile(r"\bpresets?\b|\bthe tests\b|numbers\.lock|presets\.toml", re.I)


def reader_text(raw: str) -> str:
    """What a reader meets: the page's text and the labels read out for its controls, without the
    code the page carries."""
    raw = re.sub(r"<(script|style)\b.*?</\1>", "", raw, flags=re.S)
    labels = " ".join(re.findall(r'\saria-label="([^"]*)"', raw))
    return html.unescape(re.sub(r"<[^>]+>", " ", raw) + " " + labels)


@pytest.mark.parametrize("name", READER_PAGES)
def test_a_reader_page_does_not_use_the_projects_own_words(built_site, name):
    text = reader_text((built_site / name).read_text("utf-8"))
    found = [text[max(0, m.start() - 60):m.end() + 30] for m in INTERNAL.finditer(text)]
    assert not found, found


def test_a_widgets_example_buttons_are_named_by_a_visible_label(built_site):
    raw = (built_site / "training" / "index.html").read_text("utf-8")
    groups = re.findall(r'<div class="widget__presets" role="group" aria-labelledby="([^"]+)">\s*<span [^>]*id="([^"]+)">([^<]+)</span>', raw)
    assert groups and all(by == label_id and text.strip() for by, label_id, text in groups)


# The source articles are the project's starting point, not a reader's: "seed" is the project's word
# for them (a random seed, as the audit practices use it, is a reader's term).
PROJECT_WORDS = re.compile(r"\bseed articles?\b|\bseed's\b|\bseeds'|\bseed-\w|\bthe seeds?\b", re.I)


def test_no_page_calls_a_source_a_seed(built_site):
    """Every page, the methods page and What changed too."""
    found = {}
    for page in sorted(built_site.rglob("index.html")):
        raw = page.read_text("utf-8")
        # The cards' texts too (data-card, and the field lines a widget's style attribute carries).
        cards = re.findall(r'\s(?:data-card|style)="([^"]*)"', raw)
        text = reader_text(raw) + " " + html.unescape(" ".join(cards))
        hits = [text[max(0, m.start() - 50):m.end() + 30] for m in PROJECT_WORDS.finditer(text)]
        if hits:
            found[str(page.relative_to(built_site))] = hits
    assert found == {}
