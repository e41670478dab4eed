"""Blocks far from the viewport skip style and layout (site.css: content-visibility; a block is
the content between two headings, site_build/sections.py), and nothing a reader does notices: an
anchor lands on its heading, find-in-page reaches a far block, printing draws every block; and
the theme's table of contents, reading every heading's position, lays out no far block, nor does
the browser's form autofill, finding no form control in a skipped block."""

import pytest

import pyodide_widgets
from harness.site import pages
from harness.widgets import set_field, wait_for_cpython_outputs, wait_live

PAGE = "/training/"
# Both far down the long article: the last h2 section, and one well before it.
FAR = ("what-a-run-keeps-on-disk", "the-training-stack-layer-by-layer")
BLOCKS = ".md-typeset .page-section > div"
# How far below the viewport's top a heading may land: the theme's header sits above it.
HEADER_PX = 150
WIDE = {"width": 1600, "height": 900}
# Lighthouse's phone: what it scores a page's layout shift on.
PHONE = {"viewport": {"width": 412, "height": 823}, "device_scale_factor": 1.75, "is_mobile": True, "has_touch": True}
# Every layout shift from the start of the page's load, as Chromium scores it.
SHIFTS = """window.__shifts = [];
new PerformanceObserver((list) => window.__shifts.push(...list.getEntries().map((e) => e.value)))
  .observe({ type: "layout-shift", buffered: true });"""


def skipped(page) -> list:
    """Whether each block's content is skipped by containment now."""
    return page.locator(BLOCKS).evaluate_all(
        "els => els.map(el => !el.firstElementChild.checkVisibility({contentVisibilityAuto: true}))")


def heading_top(page, anchor: str) -> float:
    return page.locator(f"#{anchor}").evaluate("el => el.getBoundingClientRect().top")


@pytest.mark.without_python
def test_a_far_block_is_skipped_until_it_comes_near(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    shown = skipped(page)
    assert not shown[0] and shown[-1], "the first block is drawn and the last is skipped at load"
    page.locator(BLOCKS).last.scroll_into_view_if_needed()
    page.wait_for_function(
        f"() => [...document.querySelectorAll({BLOCKS!r})].at(-1).firstElementChild.checkVisibility({{contentVisibilityAuto: true}})")


@pytest.mark.parametrize("anchor", FAR)
@pytest.mark.without_python
def test_an_anchor_link_lands_on_its_heading_with_containment_on(page, site_url, anchor):
    page.goto(f"{site_url}{PAGE}#{anchor}")
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)  # blocks drawn around it settle first
    assert 0 <= heading_top(page, anchor) <= HEADER_PX
    # From the top of the page, by the table of contents (instant navigation's in-page link),
    # which the theme shows beside the article on a wide screen.
    page.set_viewport_size(WIDE)
    page.goto(f"{site_url}{PAGE}")
    page.locator(f'.md-sidebar--secondary a[href$="#{anchor}"]').click()  # the theme makes the href absolute
    # The theme handles the click once its sitemap has loaded, which on a loaded machine can
    # come later than the click: wait for the heading to land rather than a fixed time.
    page.wait_for_function(
        f"() => {{ const top = document.getElementById('{anchor}').getBoundingClientRect().top;"
        f" return location.hash === '#{anchor}' && top >= 0 && top <= {HEADER_PX}; }}",
        timeout=15_000)
    page.wait_for_timeout(500)  # and stay there while the blocks around it are drawn
    assert 0 <= heading_top(page, anchor) <= HEADER_PX


@pytest.mark.without_python
def test_find_in_page_reaches_a_skipped_block(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    paragraph = page.locator(f"section:has(> #{FAR[-1]}) > div p").first
    words = " ".join(paragraph.evaluate("el => el.textContent").split()[:4])
    assert skipped(page)[-1]
    assert page.evaluate("words => window.find(words)", words)


@pytest.mark.parametrize("path", ["/training/", "/methods/"])
@pytest.mark.without_python
def test_no_heading_the_table_of_contents_reads_stands_in_a_block(page, site_url, path):
    # The theme reads each of these headings' positions at load and whenever the page's height
    # changes; one inside a skipped block would make the browser lay the whole block out there and then.
    page.goto(f"{site_url}{path}")
    targets = page.locator(".md-sidebar--secondary a.md-nav__link").evaluate_all(
        """links => links.map((a) => document.getElementById(decodeURIComponent(a.hash.slice(1)))).map((el) => {
          for (let up = el?.parentElement; up; up = up.parentElement)
            if (getComputedStyle(up).contentVisibility === "auto") return `${el.tagName} in a skippable ${up.className}`;
          return el?.tagName;
        })""")
    assert targets and set(targets) <= {"H2", "H3"}, targets


@pytest.mark.without_python
def test_printing_draws_every_block(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    page.emulate_media(media="print")
    assert not any(skipped(page)), "no block is skipped in print"
    visibility = page.locator(BLOCKS).evaluate_all("els => els.map(el => getComputedStyle(el).contentVisibility)")
    assert set(visibility) == {"visible"}
    assert page.pdf()[:4] == b"%PDF"


def test_no_page_shifts_its_layout_while_it_loads_on_a_phone(browser, built_site, site_url):
    # A block on screen at load is drawn in the first frame, not skipped and drawn a frame late.
    for path in pages(built_site):
        context = browser.new_context(**PHONE)
        page = context.new_page()
        page.add_init_script(SHIFTS)
        page.goto(f"{site_url}{path}", wait_until="load")
        # Two frames after load: a skipped block on screen is drawn by the second.
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        assert page.evaluate("window.__shifts") == [], path
        context.close()


# Each mounted widget: whether its block is skipped now, and how many form controls stand in it.
CONTROLS_OF_WIDGETS = """els => els.filter((el) => el.widget).map((el) => ({
  id: el.id, skipped: !el.checkVisibility({contentVisibilityAuto: true}),
  controls: el.querySelectorAll("input, select, textarea").length}))"""


def test_a_far_widget_makes_its_controls_only_when_it_comes_near(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    widgets = page.locator("[data-widget]")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget]')].every((el) => el.widget)")
    seen = widgets.evaluate_all(CONTROLS_OF_WIDGETS)
    assert any(not w["skipped"] and w["controls"] for w in seen), "a widget near the top has its controls"
    far = [w for w in seen if w["skipped"]]
    assert far and all(w["controls"] == 0 for w in far), seen
    # The last one, once a reader reaches it, has its form, and it answers as CPython does.
    last = f"#{far[-1]['id']}"
    name = page.get_attribute(last, "data-widget")
    field = next(f for f in pyodide_widgets.module(name).FIELDS if f.kind == "choice")
    current = page.eval_on_selector(last, "el => window.widgetRuntime.stateOf(el)")[field.name]
    set_field(page, last, field, next(value for value, _ in field.options if value != current))
    wait_live(page, last)
    wait_for_cpython_outputs(page, last)
