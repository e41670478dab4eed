"""Every computed number in prose opens its derivation card: on focus, drawn as the theme
draws its tooltips, described to assistive technology, without moving the text, axe-clean in
both palettes; and with JavaScript off, CSS shows the same card on focus."""

from pathlib import Path

import pytest

from harness.site import ROOT
from harness.widgets import run_axe
from site_build import numbers

PAGES = sorted(path.stem for path in (ROOT / "docs").glob("*.md"))


def url_path(stem: str) -> str:
    return "/" if stem == "index" else f"/{stem}/"


def prose_numbers(entries: list, stem: str) -> list:
    return [e for e in entries if e.page == f"{stem}.md" and e.kind != "widget"]


def samples(locator) -> list:
    """The first, a middle and the last number of a page: cards from its start to its end."""
    count = locator.count()
    return sorted({0, count // 2, count - 1}) if count else []


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("stem", PAGES)
def test_a_numbers_card_shows_its_derivation_on_focus_without_layout_shift(page, built_site, site_url, stem, scheme):
    entries = prose_numbers(numbers.read(built_site), stem)
    page.goto(f"{site_url}{url_path(stem)}")
    page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
    shown = page.locator("article data.number")
    assert shown.count() == len(entries), "every number the manifest lists for the page, and no other, is a card"
    derivations = {e.derivation for e in entries}
    for index in samples(shown):
        number = shown.nth(index)
        assert number.evaluate("el => el.tabIndex") == 0
        text = number.inner_text()
        block = number.locator("xpath=ancestor::*[self::p or self::li or self::td or self::h2 or self::h3][1]")
        number.scroll_into_view_if_needed()  # so that focus scrolls nothing, and only a shift could move it
        before = block.bounding_box()
        number.focus()
        tooltip = page.locator(".md-tooltip2--active")
        tooltip.wait_for()
        card = page.locator(f"#{number.get_attribute('aria-describedby')}").inner_text()
        first = card.splitlines()[0]
        assert first.startswith(f"{text} = ") and first.removeprefix(f"{text} = ") in derivations
        assert block.bounding_box() == before
        number.blur()
        tooltip.wait_for(state="detached")
    violations = run_axe(page)
    assert violations == [], "\n".join(map(str, violations))


def test_with_javascript_off_every_number_shows_its_card_on_focus(browser, built_site, site_url):
    entries = [e for e in numbers.read(built_site) if e.kind != "widget"]
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        for stem in PAGES:
            page.goto(f"{site_url}{url_path(stem)}")
            derivations = {e.derivation for e in prose_numbers(entries, stem)}
            shown = page.locator("article data.number")
            cards = shown.evaluate_all("els => els.map(el => [el.textContent, el.dataset.card])")
            assert len(cards) == len(prose_numbers(entries, stem))
            for text, card in cards:
                assert card.splitlines()[0].removeprefix(f"{text} = ") in derivations
            for index in samples(shown):
                number = shown.nth(index)
                number.focus()
                # The card is CSS's generated content after the number, in place of the script's tooltip.
                content = number.evaluate("el => getComputedStyle(el, '::after').content")
                assert content.strip('"').startswith(number.inner_text() + " = ")
    finally:
        context.close()
