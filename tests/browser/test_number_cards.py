"""Every computed number in prose opens its derivation card: on focus, drawn as the theme
draws its tooltips, described to assistive technology, without moving the text, axe-clean in
both palettes; and with JavaScript off, its link leads to the same card on the list page
(site_build/cards.py)."""

from pathlib import Path

import pytest

from harness.site import ROOT, listed, number_cards
from harness.widgets import run_axe, scrolled_into_view
from site_build import numbers
from site_build.cards import list_page


# Prose numbers and their cards: nothing here needs the live calculator.
pytestmark = pytest.mark.without_python

PAGES = sorted(path.stem for path in (ROOT / "docs").glob("*.md"))


def url_path(stem: str) -> str:
    return "/" if stem == "index" else f"/{stem}/"


def prose_numbers(entries: list, stem: str) -> list:
    return [e for e in entries if e.page == f"{stem}.md" and e.kind != "widget"]


def stored_cards(built_site, stem: str) -> list:
    """(text, card) of each number of the built page, read from its list."""
    return number_cards((built_site / url_path(stem).strip("/") / "index.html").read_text("utf-8"), listed(built_site, f"{stem}.md"))


def samples(locator) -> list:
    """The first, a middle and the last number of a page: cards from its start to its end."""
    count = locator.count()
    return sorted({0, count // 2, count - 1}) if count else []


@pytest.mark.parametrize("stem", PAGES)
def test_a_numbers_card_shows_its_derivation_on_focus_without_layout_shift_axe_clean_in_both_palettes_and_a_prose_page_whole(page, built_site, site_url, stem):
    entries = prose_numbers(numbers.read(built_site), stem)
    page.goto(f"{site_url}{url_path(stem)}")
    if not page.locator("[data-widget]").count():  # a page of prose only: the whole of it, as loaded (a widget's
        violations = run_axe(page)                 # page is checked whole live, in test_picture_first)
        assert violations == [], "\n".join(map(str, violations))
    shown = page.locator("article data[value] > a")
    assert shown.count() == len(entries), "every number the manifest lists for the page, and no other, is a card"
    # A card begins with the number as the manifest recorded it, then what it is (a page may relabel
    # what it shows: the methods page prints a GPU's "80 GiB" as its vendor's "80 GB").
    firsts = {e.text for e in entries}
    stored = stored_cards(built_site, stem)
    for index in samples(shown):
        number = shown.nth(index)
        block = number.locator("xpath=ancestor::*[self::p or self::li or self::td or self::h2 or self::h3][1]")
        scrolled_into_view(number)  # so that focus scrolls nothing, and only a shift could move it
        before = block.bounding_box()
        number.focus()
        tooltip = page.locator(".md-tooltip2--active")
        tooltip.wait_for()
        card = page.locator(f"#{number.get_attribute('aria-describedby')}").inner_text()
        assert card.splitlines()[0].partition(": ")[0] in firsts
        assert card == stored[index][1], "the tooltip reads the page's entry, formulas and sources written out"
        assert block.bounding_box() == before
        number.blur()
        tooltip.wait_for(state="detached")
    # The last card open, in each palette: the card as a reader meets it (test_runtime checks each page whole).
    found = []
    if shown.count():
        shown.last.focus()
        page.locator(".md-tooltip2--active").wait_for()
        for scheme in ("default", "slate"):
            page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
            found += [(scheme, violation) for violation in run_axe(page, within=".md-tooltip2--active")]
    assert found == [], "\n".join(map(str, found))


def test_with_javascript_off_every_number_links_to_its_card(browser, built_site, site_url):
    entries = [e for e in numbers.read(built_site) if e.kind != "widget"]
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        followed = False
        for stem in PAGES:
            page.goto(f"{site_url}{url_path(stem)}")
            firsts = {e.text for e in prose_numbers(entries, stem)}
            shown = page.locator("article data[value] > a")
            cards = stored_cards(built_site, stem)
            assert len(cards) == shown.count() == len(prose_numbers(entries, stem))
            assert {card.splitlines()[0].partition(": ")[0] for _, card in cards} <= firsts
            # Every number's link names its entry (above); one followed, the last of the first page that has any,
            # shows where they land: each follow loads that page's list of numbers, and lands as the others do.
            for index in samples(shown)[-1:] if not followed else []:
                followed = True
                number = shown.nth(index)
                first = cards[index][1].splitlines()[0]
                number.focus()
                page.keyboard.press("Enter")
                # The link lands on the card's entry on the list page, in view: its first line is the number's derivation.
                page.wait_for_url(f"**/{list_page(f'{stem}.md').removesuffix('.md')}/#*")
                entry = page.locator(":target")
                page.wait_for_function("() => document.querySelector(':target') !== null")
                assert entry.evaluate("el => el.tagName") == "DT"
                assert entry.inner_text() == first
                box = entry.bounding_box()
                assert 0 <= box["y"] < page.viewport_size["height"]
                page.go_back()
    finally:
        context.close()


@pytest.mark.parametrize("where", ["top", "bottom"])
def test_a_card_opens_below_its_number_unless_only_above_has_room(page, site_url, where):
    """Near the window's bottom edge a card would hang out of sight: it opens above its number instead."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{site_url}/training/")
    number = page.locator("article p data[value] > a").nth(20)
    # The number's line at the window's top edge, or its bottom edge; again once the sections drawn
    # around it (content-visibility) have taken their real sizes.
    for _ in range(3):
        page.evaluate("([el, where]) => { const box = el.getBoundingClientRect();"
                      " window.scrollBy(0, where === 'top' ? box.top - 80 : box.bottom - window.innerHeight + 12); }",
                      [number.element_handle(), where])
        page.wait_for_timeout(300)
    number.evaluate("el => el.focus({ preventScroll: true })")
    tooltip = page.locator(".md-tooltip2--active")
    tooltip.wait_for()
    page.wait_for_timeout(500)  # the theme's entrance transition slides the card by 0.4rem
    host = number.bounding_box()
    card = page.locator(".md-tooltip2--active .md-tooltip2__inner").bounding_box()
    assert 0 <= card["y"] and card["y"] + card["height"] <= 720, (where, host, card)
    if where == "bottom":
        assert card["y"] + card["height"] <= host["y"], "the card covers or hangs below its number"
    else:
        assert card["y"] >= host["y"] + host["height"], "a card with room below opens below"


# A number's dotted line, as drawn: its colour (transparent: not drawn).
LINE_COLOUR = "el => getComputedStyle(el).textDecorationColor"
TRANSPARENT = "rgba(0, 0, 0, 0)"


def test_a_number_is_plain_at_rest_and_shows_its_line_under_the_pointers_paragraph_and_on_focus(page, site_url):
    """Hundreds of numbers in an article read as text; where the reader is, they show they hold a card."""
    page.emulate_media(reduced_motion="reduce")  # the line's fade, off: each state reads as it settles
    page.goto(f"{site_url}/training/")
    numbers = page.locator(".md-typeset p > data[value] > a")
    first, other = numbers.nth(0), numbers.nth(numbers.count() - 1)
    scrolled_into_view(first)
    assert first.evaluate(LINE_COLOUR) == TRANSPARENT and other.evaluate(LINE_COLOUR) == TRANSPARENT
    # The pointer over the paragraph, not the number: its numbers show their line; another paragraph's do not.
    paragraph = first.locator("xpath=ancestor::p[1]")
    box = paragraph.bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    assert first.evaluate(LINE_COLOUR) != TRANSPARENT
    assert other.evaluate(LINE_COLOUR) == TRANSPARENT
    page.mouse.move(0, 0)
    scrolled_into_view(other)
    other.focus()
    assert other.evaluate(LINE_COLOUR) != TRANSPARENT
