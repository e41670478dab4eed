"""The glossary's hover cards in a real browser: reached by keyboard, read by screen readers,
shown by the theme's tooltips without moving the text, linking to the page that says more, and
axe-clean in both palettes."""

import pytest

from site_build import glossary

from .test_runtime import run_axe
from harness.widgets import wait_live

CARDS = {t.term: t.short for t in glossary.load()}


@pytest.mark.parametrize("path, widget", [("/glossary/", None), ("/ten-steps/", "ten_steps")])
def test_a_card_opens_on_focus_without_layout_shift_and_axe_is_clean_in_both_palettes(page, site_url, path, widget):
    page.goto(f"{site_url}{path}")
    if widget:
        wait_live(page, widget)
    term = page.locator("article abbr").first
    assert term.evaluate("el => el.tabIndex") == 0
    text = term.inner_text()
    paragraph = term.locator("xpath=..")
    term.scroll_into_view_if_needed()  # where focus would scroll it: the widget was looked at below it
    before = paragraph.bounding_box()
    term.focus()
    tooltip = page.locator(".md-tooltip2--active")
    tooltip.wait_for()
    # The card is the term's description for assistive technology, and it is the glossary's text.
    described = term.get_attribute("aria-describedby")
    assert described and page.locator(f"#{described}").inner_text() == CARDS[text]
    assert paragraph.bounding_box() == before
    # A term whose page says more links to it from its card, the stop after the term by keyboard: Tab
    # reaches the link with the card open, Shift+Tab returns to the term, Tab from the link goes on.
    linked = page.locator("article abbr[data-card-link]").first
    if path == "/glossary/" or linked.count():
        linked.focus()
        link = tooltip.locator("a")
        assert link.get_attribute("href") == linked.get_attribute("data-card-link")
        assert link.inner_text() == linked.get_attribute("data-card-link-text")
        focused = "el => el === document.activeElement"
        page.keyboard.press("Tab")
        assert link.evaluate(focused) and tooltip.is_visible()
        page.keyboard.press("Shift+Tab")
        assert linked.evaluate(focused) and tooltip.is_visible()
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        tooltip.wait_for(state="detached")
        assert not linked.evaluate(focused)
        term.focus()
    # Closed again before axe: the theme appends an open card to <body>, outside every landmark,
    # which axe's best-practice "region" rule reports although a role="tooltip" is no page content.
    term.blur()
    tooltip.wait_for(state="detached")
    found = []
    for scheme in ("default", "slate"):
        page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
        found += [(scheme, violation) for violation in run_axe(page)]
    assert found == [], "\n".join(map(str, found))
