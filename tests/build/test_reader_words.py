"""Reader pages speak to readers: the project's own words ("preset", the tests) stay on the methods
page, which is about how the site is made; an article, its widgets and their labels for assistive
technology never use them."""

import re

import pytest

from harness import markup

READER_PAGES = ("index.html", "training/index.html", "ten-steps/index.html", "glossary/index.html")
INTERNAL = re.compile(r"\bpresets?\b|\bthe tests\b|numbers\.lock|presets\.toml", re.I)


def reader_text(element: markup.Element, without: tuple = ()) -> str:
    """What a reader meets in `element`: its text, a space at each element's bounds, and the labels
    read out for its controls, without the code the page carries (nor the elements `without`)."""
    left_out = [inner for left in without for inner in left.iter(aria_label=True)]
    labels = [e.attrs["aria-label"] for e in element.iter(aria_label=True) if not any(e is left for left in left_out)]
    return element.spaced(lambda e: e.tag in ("script", "style") or any(e is left for left in without)) + " " + " ".join(labels)


@pytest.mark.parametrize("name", READER_PAGES)
def test_a_reader_page_does_not_use_the_projects_own_words(built_site, name):
    text = reader_text(markup.parse((built_site / name).read_text("utf-8")))
    found = [text[max(0, m.start() - 60):m.end() + 30] for m in INTERNAL.finditer(text)]
    assert not found, found


def test_a_widgets_example_buttons_are_named_by_a_visible_label(built_site):
    page = markup.parse((built_site / "training" / "index.html").read_text("utf-8"))
    groups = list(page.iter("div", class_="widget__presets", role="group"))
    # Each group is named by the label it opens with.
    labels = [next(child for child in group.children if isinstance(child, markup.Element)) for group in groups]
    assert groups and all(group.attrs.get("aria-labelledby") == label.attrs.get("id") and label.tag == "span" and label.text().strip()
                          for group, label in zip(groups, labels))


# The source articles are the project's starting point, not a reader's: "seed" is the project's word
# for them (a random seed, as the audit practices use it, is a reader's term).
PROJECT_WORDS = re.compile(r"\bseed articles?\b|\bseed's\b|\bseeds'|\bseed-\w|\bthe seeds?\b", re.I)


def test_no_page_calls_a_source_a_seed(built_site):
    """Every page, the methods page and What changed too."""
    found = {}
    for page in sorted(built_site.rglob("index.html")):
        built = markup.parse(page.read_text("utf-8"))
        # The cards' texts too (data-card, and the field lines a widget's style attribute carries).
        cards = [e.attrs[name] for e in built.iter() for name in ("data-card", "style") if name in e.attrs]
        text = reader_text(built) + " " + " ".join(cards)
        hits = [text[max(0, m.start() - 50):m.end() + 30] for m in PROJECT_WORDS.finditer(text)]
        if hits:
            found[str(page.relative_to(built_site))] = hits
    assert found == {}
