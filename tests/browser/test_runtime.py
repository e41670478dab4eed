"""The widget runtime in a real browser: lazy, once per visit, shareable,
robust to bad input and to a Pyodide that cannot start, themed, accessible.

Each test drives training_time through the DOM contract; the behaviour
is the runtime's, shared by every widget.
"""

import json
import re
from urllib.parse import urlsplit

import pytest

import pyodide_widgets
from harness.browser import LIVE_TIMEOUT_MS
from harness.site import ROOT, nav_paths, nav_sources
from harness.widgets import address, choose, cpython_outputs, form_state, look_at, root, run_axe, shown_outputs, type_into, wait_for_cpython_outputs, wait_live

WIDGET = "training_time"
# The shortest page that holds it: a test of the runtime loads no more than its widget needs.
PAGE = "/ten-steps/"
# What must never be shown in a widget, whatever the input.
GARBAGE = re.compile(r"NaN|Infinity|undefined|Traceback|Error:|\bnull\b")


def widget_text(page) -> str:
    look_at(page, WIDGET)
    return page.inner_text(root(WIDGET))


def test_no_pyodide_file_is_requested_before_the_load_event_the_state_round_trips_through_the_url_and_no_request_leaves_the_site(
        browser, page, site_url):
    before_load = []
    page.on("load", lambda: before_load.extend(page.log.requests))
    page.goto(f"{site_url}{PAGE}", wait_until="load")
    assert before_load, "the load event was not seen"
    assert [url for url in before_load if "/pyodide/" in url or url.endswith(".whl") or "vega" in url] == []
    wait_live(page, WIDGET)
    type_into(page, WIDGET, "gpus", "4096")
    wait_for_cpython_outputs(page, WIDGET)
    assert any("pyodide.asm.wasm" in url for url in page.log.requests)

    choose(page, WIDGET, "gpu", "gb200")
    choose(page, WIDGET, "precision", "fp8")  # under "More inputs": opened as a reader would
    expected = wait_for_cpython_outputs(page, WIDGET)
    shared = address(page)
    assert "training_time.gpus=4096" in shared and "training_time.gpu=gb200" in shared
    other = browser.new_context().new_page()
    other.goto(shared)
    assert form_state(other, WIDGET) == form_state(page, WIDGET)
    wait_live(other, WIDGET)
    assert wait_for_cpython_outputs(other, WIDGET) == expected
    other.close()
    assert [url for url in page.log.requests if not url.startswith(site_url + "/")] == []


def test_input_typed_while_pyodide_boots_is_applied_once_live(page, site_url):
    page.goto(f"{site_url}{PAGE}", wait_until="domcontentloaded")
    type_into(page, WIDGET, "gpus", "2048")
    assert page.get_attribute(root(WIDGET), "data-state") in ("loading", "live")
    wait_live(page, WIDGET)
    wait_for_cpython_outputs(page, WIDGET)


def test_pyodide_boots_once_across_instant_page_changes(page, site_url):
    ten_steps = "AI training at scale, in ten steps"
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    page.evaluate("window.sameDocument = true")  # lost on a full page load
    # Three changes between pages that hold widgets; each page's widget binds to the running worker.
    for link_text, path in [(ten_steps, "/ten-steps/"), ("Training & Fine-Tuning", "/training/"), (ten_steps, "/ten-steps/")]:
        page.click(f'.md-nav__link:has-text("{link_text}")')
        page.wait_for_url(lambda url: urlsplit(url).path == path)
        wait_live(page, WIDGET)
        type_into(page, WIDGET, "gpus", "16")
        wait_for_cpython_outputs(page, WIDGET)
    assert page.evaluate("window.sameDocument") is True
    assert page.evaluate("window.widgetRuntime.boots") == 1
    assert sum(url.endswith("pyodide.asm.wasm") for url in page.log.requests) == 1


def test_a_change_still_unwritten_when_the_address_moves_on_stays_out_of_the_next_address(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    wait_live(page, WIDGET)
    look_at(page, WIDGET)
    # The change and the move in one task, as instant navigation moves on before the page is idle:
    # the runtime writes a widget's state into the address only once the page is idle.
    page.evaluate("""(selector) => {
      const gpus = document.querySelector(`${selector} [name="gpus"]`);
      gpus.value = "4096";
      gpus.dispatchEvent(new Event("input", { bubbles: true }));
      history.pushState(null, "", "../glossary/");
    }""", root(WIDGET))
    assert urlsplit(address(page)).path.endswith("/glossary/")
    assert urlsplit(page.url).query == ""


def test_url_values_are_validated_and_never_inserted_as_html(page, site_url):
    hostile = "<img src=x onerror=window.pwned=1>"
    page.goto(f"{site_url}{PAGE}?training_time.gpus={hostile}&training_time.gpu=tpu-v9")
    wait_live(page, WIDGET)
    error = page.locator(f"{root(WIDGET)} [data-error-for='gpu'], {root(WIDGET)} [data-error-for='gpus']")
    error.filter(has_text="Must be").first.wait_for(timeout=LIVE_TIMEOUT_MS)
    assert page.locator(f"{root(WIDGET)} img").count() == 0
    assert page.evaluate("window.pwned") is None
    assert page.input_value(f'{root(WIDGET)} [name="gpus"]') == hostile


# Each a text a reader might type, or a link might carry, that no field takes.
BAD_INPUTS = [
    ("gpus", ""),
    ("gpus", "many"),
    ("gpus", "-8"),
    ("gpus", "0"),
    ("gpus", "2.5"),
    ("gpus", "1e30"),
    ("mfu", "NaN"),
    ("mfu", "150"),
    ("params", "Infinity"),
    ("tokens", "1e400"),
]


def test_bad_input_is_named_beside_its_field_and_keeps_the_last_good_outputs(page, site_url):
    """Each bad input in turn on one page, each mended before the next: one visit serves them all."""
    page.goto(f"{site_url}{PAGE}")
    wait_live(page, WIDGET)
    type_into(page, WIDGET, "gpus", "8192")
    for field, text in BAD_INPUTS:
        good = wait_for_cpython_outputs(page, WIDGET)
        type_into(page, WIDGET, field, text)
        error = page.locator(f'{root(WIDGET)} [data-error-for="{field}"]')
        error.filter(has_text="Must be").wait_for(timeout=10_000)
        assert page.get_attribute(f'{root(WIDGET)} [name="{field}"]', "aria-invalid") == "true", (field, text)
        assert {key: value for key, value in shown_outputs(page, WIDGET).items() if key in good} == good, (field, text)
        assert not GARBAGE.search(widget_text(page)), (field, text, widget_text(page))
        assert not page.log.console_errors and not page.log.page_errors, (field, text)

        # A valid value for every field above. The outputs may already be the ones it gives (the last
        # mended value was 40 too), so the error clearing is what says the runtime has read it.
        type_into(page, WIDGET, field, "40")
        error.filter(has_text="Must be").wait_for(state="detached", timeout=10_000)
        wait_for_cpython_outputs(page, WIDGET)
        assert page.get_attribute(f'{root(WIDGET)} [name="{field}"]', "aria-invalid") != "true", (field, text)


@pytest.mark.parametrize("blocked", ["**/assets/widgets/pyodide/**", "**/assets/widgets/worker.js", "**/*.whl*"])
def test_widget_keeps_its_build_time_state_when_pyodide_cannot_start(fresh_page, site_url, blocked):
    page = fresh_page  # a snapshot a shared context kept would boot without some of the files blocked
    page.route(blocked, lambda route: route.abort())
    page.goto(f"{site_url}{PAGE}")
    built = shown_outputs(page, WIDGET)
    page.wait_for_selector(f'{root(WIDGET)}[data-state="error"]', timeout=LIVE_TIMEOUT_MS)
    look_at(page, WIDGET)
    status = page.inner_text(f"{root(WIDGET)} [data-status]")
    assert "unavailable" in status and "\n" not in status.strip()
    type_into(page, WIDGET, "gpus", "8")
    assert shown_outputs(page, WIDGET) == built
    assert not GARBAGE.search(widget_text(page))
    assert not page.log.page_errors
    # The rest of the page still works: the search box opens, instant navigation goes on.
    page.click('.md-nav__link:has-text("Home")')
    page.wait_for_url(lambda url: urlsplit(url).path == "/")


CUE = "el => { const cue = getComputedStyle(el, '::before'); return cue.content === 'none' ? '' : parseFloat(cue.fontSize) > 0 ? cue.content : ''; }"


# Whether the widget holds a visible label with `text`, found as find-in-page finds it: from the page's
# start, each match in turn, until one inside the widget.
FOUND_IN_WIDGET = """([selector, text]) => {
  const widget = document.querySelector(selector);
  getSelection().removeAllRanges();
  while (window.find(text, false, false, false)) if (widget.contains(getSelection().anchorNode)) return true;
  return false;
}"""


def assert_every_widgets_inputs_are_in_the_page_and_found(page):
    """Each widget of the page holds a control for every field, none waiting in a <noscript>, and
    find-in-page reaches each field's label inside it."""
    widgets = page.eval_on_selector_all("[data-widget]", "roots => roots.map((r) => [r.id, r.dataset.widget])")
    assert widgets
    page.wait_for_function("() => !document.querySelector('noscript[data-controls]')", timeout=10_000)
    for element_id, name in widgets:
        for field in pyodide_widgets.module(name).FIELDS:
            assert page.locator(f"#{element_id} .widget__inputs :is([name='{field.name}'], [data-field='{field.name}'])").count(), \
                (element_id, field.name)
            assert page.evaluate(FOUND_IN_WIDGET, [f"#{element_id}", field.label]), (element_id, field.label)


def test_with_runtime_js_blocked_every_widgets_inputs_are_in_the_page_and_said_not_live(page, site_url):
    """The build-time numbers stay, every input is there to read and find, and the reader is told
    the inputs do nothing yet."""
    page.route("**/assets/widgets/runtime.js*", lambda route: route.abort())
    page.goto(f"{site_url}/training/")
    assert_every_widgets_inputs_are_in_the_page_and_found(page)
    look_at(page, WIDGET)  # a section far from the viewport is not styled, its cue neither
    status = f"{root(WIDGET)} [data-status]"
    page.wait_for_function(f"() => ({CUE})(document.querySelector('{status}')) !== ''", timeout=10_000)
    assert "not live" in page.eval_on_selector(status, CUE)
    assert page.get_attribute(root(WIDGET), "data-enhanced") is None


def test_with_a_runtime_that_fails_before_mounting_every_widgets_inputs_are_in_the_page(page, site_url):
    """A script error before the first widget is mounted leaves the same page as a blocked script."""
    def failing(route):
        body = route.fetch().text()
        route.fulfill(body=body.replace("function mountAll() {", "function mountAll() { throw new Error('before mounting');", 1),
                      content_type="text/javascript")
    page.route("**/assets/widgets/runtime.js*", failing)
    page.goto(f"{site_url}/ten-steps/")
    assert_every_widgets_inputs_are_in_the_page_and_found(page)
    assert page.locator("[data-widget][data-enhanced]").count() == 0
    status = f"{root(WIDGET)} [data-status]"
    look_at(page, WIDGET)
    page.wait_for_function(f"() => ({CUE})(document.querySelector('{status}')) !== ''", timeout=10_000)
    assert "not live" in page.eval_on_selector(status, CUE)


def test_a_live_chart_follows_the_dark_palette_and_axe_finds_no_violation_in_either_palette(page, site_url):
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    label = f"{root(WIDGET)} [data-chart] svg text"
    light = page.eval_on_selector(label, "el => getComputedStyle(el).fill")
    type_into(page, WIDGET, "params", "70")
    page.wait_for_function(
        "sel => document.querySelector(sel).closest('[data-widget]').widget.view !== null", arg=label
    )
    type_into(page, WIDGET, "gpus", "0")  # an error on show, to check its contrast and naming too
    page.locator(f'{root(WIDGET)} [data-error-for="gpus"]').filter(has_text="Must be").wait_for()
    found = [("default", violation) for violation in run_axe(page)]
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    dark = page.eval_on_selector(label, "el => getComputedStyle(el).fill")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert light != dark and dark != background
    found += [("slate", violation) for violation in run_axe(page)]
    assert found == [], "\n".join(map(str, found))


def test_outputs_are_announced_once_after_typing_stops_and_a_runtime_that_starts_never_shows_the_cue(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    wait_live(page, WIDGET)
    seen_at_ms = page.evaluate("performance.now()")  # looked at: its status line styled, the cue's delay running
    live = f"{root(WIDGET)} [aria-live='polite']"
    page.evaluate(
        """sel => { window.announcements = 0;
             new MutationObserver(() => window.announcements++).observe(document.querySelector(sel),
               {childList: true, characterData: true, subtree: true}); }""",
        live,
    )
    # A reader typing 12800 key by key, a key every 100 ms, paced by the page's own timers (a driver's round
    # trips between keys would take longer than a typist under a loaded machine).
    look_at(page, WIDGET)
    page.eval_on_selector(f'{root(WIDGET)} [name="gpus"]', """(field, texts) => new Promise((typed) => {
        const key = (i) => { field.value = texts[i]; field.dispatchEvent(new Event('input', {bubbles: true}));
                             if (i + 1 < texts.length) setTimeout(() => key(i + 1), 100); else typed(); };
        key(0); })""", ["1", "12", "128", "1280", "12800"])
    wait_for_cpython_outputs(page, WIDGET)
    page.wait_for_function("() => window.announcements > 0")
    page.wait_for_timeout(1000)
    assert page.evaluate("window.announcements") == 1
    assert page.inner_text(live) == cpython_outputs(WIDGET, form_state(page, WIDGET))["summary"]
    # Past the cue's delay on the page's clock (widgets.css: 2 s), the status line has not said "not live".
    page.wait_for_function("since => performance.now() > since + 2500", arg=seen_at_ms)
    assert "not live" not in page.eval_on_selector(f"{root(WIDGET)} [data-status]", CUE)


def test_every_control_works_from_the_keyboard(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    wait_live(page, WIDGET)
    presets = page.locator(f"{root(WIDGET)} [data-preset]")
    presets.nth(1).focus()
    page.keyboard.press("Enter")
    chosen = json.loads(presets.nth(1).get_attribute("data-preset"))
    assert form_state(page, WIDGET)["gpu"] == chosen["gpu"]
    wait_for_cpython_outputs(page, WIDGET)

    for _ in range(len(chosen) + presets.count()):  # Tab through to the GPU count
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "gpus":
            break
    assert page.evaluate("document.activeElement.name") == "gpus"
    page.keyboard.press("Control+A")
    page.keyboard.type("2048")
    wait_for_cpython_outputs(page, WIDGET)
    assert form_state(page, WIDGET)["gpus"] == "2048"


# The pages the build writes, which no Markdown holds: every other page is checked whole at a desktop's
# width in a visit it has anyway (a widget's page live in test_picture_first, prose in test_number_cards).
WRITTEN_BY_THE_BUILD = [path for source, path in zip(nav_sources(), nav_paths()) if not (ROOT / "docs" / source).is_file()]


@pytest.mark.parametrize("path", WRITTEN_BY_THE_BUILD)
def test_axe_finds_no_violation_on_a_page_the_build_writes(page, site_url, path):
    page.goto(f"{site_url}{path}")
    violations = run_axe(page)
    assert violations == [], "\n".join(map(str, violations))


# Lighthouse's mobile preset: a phone's viewport, a touch screen (axe's target-size is WCAG 2.2's 24 px).
PHONE = {"viewport": {"width": 412, "height": 823}, "device_scale_factor": 1.75, "is_mobile": True, "has_touch": True}


@pytest.mark.parametrize("path", nav_paths())
def test_axe_finds_no_violation_on_a_phone(browser, site_url, path):
    """Every rule axe runs, target-size and color-contrast among them, on a phone: as the page loads, its far
    sections not laid out yet (one palette), and again with each of them laid out, in both palettes; one visit.
    The laid-out runs see all the as-loaded one does; it is there for what only a page not yet laid out shows."""
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{site_url}{path}")
    if page.locator("[data-widget]").count():
        page.wait_for_selector('[data-widget][data-state="live"]', timeout=LIVE_TIMEOUT_MS)
    found = [("default", "as loaded", violation) for violation in run_axe(page)]
    page.add_style_tag(content=".md-typeset .page-section > div { content-visibility: visible !important; }")
    for scheme in ("default", "slate"):
        page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
        found += [(scheme, "laid out", violation) for violation in run_axe(page)]
    assert found == [], "\n".join(map(str, found))
