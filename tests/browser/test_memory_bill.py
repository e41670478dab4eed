"""W3 in a real browser: the memory bill reads fully from the build, then answers
a change of ZeRO stage, optimizer and GPU count with CPython's numbers, and its
chart becomes a live Vega view."""

from pyodide_widgets import memory_bill

from harness.widgets import (
    choose,
    cpython_outputs,
    form_state,
    read_without_javascript,
    root,
    shown_outputs,
    type_into,
    wait_for_cpython_outputs,
    wait_live,
)

WIDGET = "memory_bill"


def default_state() -> dict:
    return next(iter(memory_bill.presets().values()))["state"]


def test_widget_reads_fully_without_javascript(browser, site_url):
    seen = read_without_javascript(browser, f"{site_url}/training/", WIDGET)
    expected = cpython_outputs(WIDGET, default_state())
    assert seen["outputs"] == {key: text for key, text in expected.items() if key != "summary"}
    assert seen["state"] == "static"
    assert seen["chart_svgs"] == 1
    # The build-time chart already carries the GPU's memory line.
    assert memory_bill.update(default_state())["data"]["budget"][0]["label"] in seen["chart_text"]


def test_widget_goes_live_and_answers_as_cpython_does(page, site_url):
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    for field, value in [("stage", "1"), ("stage", "3"), ("optimizer", "adam8bit"), ("optimizer", "sgd")]:
        choose(page, WIDGET, field, value)
        wait_for_cpython_outputs(page, WIDGET)
    for text in ["64", "2"]:
        type_into(page, WIDGET, "gpus", text)
        wait_for_cpython_outputs(page, WIDGET)
    assert form_state(page, WIDGET) == {**{k: str(v) for k, v in default_state().items()}, "stage": "3", "optimizer": "sgd", "gpus": "2"}
    assert not page.log.page_errors and not page.log.console_errors


def test_chart_becomes_a_live_vega_view_that_redraws(page, site_url):
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    choose(page, WIDGET, "gpu", "h200-sxm")
    wait_for_cpython_outputs(page, WIDGET)
    page.wait_for_function(f"document.querySelector('{root(WIDGET)}').widget.view !== null")
    # The live view draws the new GPU's memory line from the rows update() returned.
    budget = memory_bill.update({**default_state(), "gpu": "h200-sxm"})["data"]["budget"][0]["label"]
    page.wait_for_selector(f'{root(WIDGET)} [data-chart] svg text:text-is("{budget}")')
    assert page.locator(f"{root(WIDGET)} [data-chart] svg").count() == 1


def test_bad_input_is_named_beside_its_field(page, site_url):
    page.goto(f"{site_url}/training/")
    wait_live(page, WIDGET)
    good = shown_outputs(page, WIDGET)
    type_into(page, WIDGET, "gpus", "0")
    page.wait_for_selector(f'{root(WIDGET)} [data-error-for="gpus"]:not(:empty)')
    assert shown_outputs(page, WIDGET) == good
    assert page.get_attribute(f'{root(WIDGET)} [name="gpus"]', "aria-invalid") == "true"
