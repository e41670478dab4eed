"""Charts stay legible on a phone, static and live, in both palettes:
no chart text below 10 CSS px at 360 px wide (a chart too wide for the column
scrolls sideways in its frame), and the page itself never scrolls sideways.
Also: with JavaScript off, a widget says that its inputs need it. The live
charts are checked in test_csp's visit of every page, each widget moved once.
"""

import pytest

from harness.site import widget_pages
from harness.widgets import CHARTS


PHONE = {"width": 360, "height": 740}
SMALLEST_TEXT_PX = 10
# Every page that holds a widget (each holds a chart), found from the nav and the pages' Markdown.
CHART_PAGES = tuple(widget_pages())
# The rendered size of each chart text, of every chart a widget draws: its font size times the SVG's scale on
# screen (an SVG a pick-one widget hides, another option's diagram, or one folded, is not on screen).
TEXT_SIZES = """(charts) => [...document.querySelectorAll(`${charts} svg`)].filter((svg) => svg.getBoundingClientRect().width > 0).flatMap((svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim())
    .map((t) => [t.textContent.trim(), parseFloat(getComputedStyle(t).fontSize) * scale]);
})"""


def too_small(page) -> list:
    sizes = page.evaluate(TEXT_SIZES, CHARTS)
    assert sizes, "no chart text found"
    return [(text, round(size, 1)) for text, size in sizes if size < SMALLEST_TEXT_PX]


def phone_page(browser, scheme: str, javascript: bool = True):
    context = browser.new_context(viewport=PHONE, java_script_enabled=javascript,
                                  color_scheme="dark" if scheme == "slate" else "light")
    return context.new_page()


def status_cue(page) -> str:
    """What the first widget's status line says before any message of the runtime's (widgets.css)."""
    return page.eval_on_selector("[data-widget] [data-status]", "el => getComputedStyle(el, '::before').content")


@pytest.mark.parametrize("path", CHART_PAGES)
def test_static_charts_are_legible_at_360_px_in_either_palette(browser, site_url, path):
    page = phone_page(browser, "default", javascript=False)
    page.goto(f"{site_url}{path}")
    for scheme in ("default", "slate"):
        # Without JavaScript the style sheet follows the palette the reader's system asks for, as it changes.
        page.emulate_media(color_scheme="dark" if scheme == "slate" else "light")
        assert too_small(page) == [], scheme
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], scheme
    assert "needs JavaScript" in status_cue(page)
    page.close()


def assert_live_charts_are_legible(page):
    """Every chart of a page at PHONE width, each widget moved once (test_csp's visit of every page), redrawn
    live and legible in both palettes, and the page not scrolling sideways."""
    # Every chart redrawn by Vega (a diagram is drawn once, at build time, and stays).
    page.wait_for_function("() => [...document.querySelectorAll('[data-chart-spec]')].every((c) => c.closest('[data-widget]').widget.view)")
    page.wait_for_function("() => document.querySelectorAll('[data-chart-spec] svg').length === document.querySelectorAll('[data-chart-spec]').length")
    for scheme in ("default", "slate"):
        page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
        assert too_small(page) == [], scheme
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert "needs JavaScript" not in status_cue(page)
