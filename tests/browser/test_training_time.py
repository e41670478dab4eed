"""W8 in a real browser: build-time numbers first, then the same numbers from
Pyodide's run of the same update(), with nothing fetched from another origin."""

from pyodide_widgets import training_time

from harness.widgets import cpython_outputs, shown_outputs, type_into, wait_for_cpython_outputs, wait_live, form_state

WIDGET = "training_time"


def default_state() -> dict:
    return next(iter(training_time.presets().values()))["state"]


def test_widget_reads_fully_without_javascript(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site_url}/training/")
    shown = shown_outputs(page, WIDGET)
    expected = cpython_outputs(WIDGET, default_state())
    assert shown == {key: expected[key] for key in shown}
    assert page.get_attribute(f'[data-widget="{WIDGET}"]', "data-state") == "static"
    assert page.locator(f'[data-widget="{WIDGET}"] [data-chart] svg').count() == 1
    context.close()


def test_widget_goes_live_and_answers_as_cpython_does(page, site_url):
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    for field, text in [("gpus", "8192"), ("mfu_percent", "35"), ("gpus", "24576")]:
        type_into(page, WIDGET, field, text)
        wait_for_cpython_outputs(page, WIDGET)
    assert form_state(page, WIDGET)["gpus"] == "24576"
    assert not page.log.page_errors and not page.log.console_errors


def test_no_request_leaves_the_site(page, site_url):
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    type_into(page, WIDGET, "gpus", "4096")
    wait_for_cpython_outputs(page, WIDGET)
    assert any("pyodide.asm.wasm" in url for url in page.log.requests)
    assert [url for url in page.log.requests if not url.startswith(site_url + "/")] == []
