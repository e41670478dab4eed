"""Pin and compare, copy as a command or JSON, and the chart's data as CSV, in a real browser.

Two widgets of different kinds drive every tool: training_time (numbers typed into a form, a
chart) and audit_lanes (a pick-one diagram). What the page shows is checked against CPython:
the differences against `dispatch.handle` with the pinned state, the copied command by running
it, the CSV against `update`'s data rows.
"""

import csv
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

import figures
import pyodide_widgets
from harness.widgets import address, cpython_outputs, form_state, look_at, root, shown_outputs, type_into, wait_for_cpython_outputs, wait_live
from pyodide_widgets import dispatch, take_away
from site_build import render

ROOT = Path(__file__).resolve().parents[2]
# The page holding both widgets, for what they show without JavaScript; the live tools are each used on
# the widget's own page (tests/browser/conftest.py, widget_site): a test loads no more than its widget.
PAGE = "/training/"
# (widget, field, the value a reader changes it to): a typed number, and a pick.
CHANGES = {"training_time": ("gpus", "2048"), "audit_lanes": ("practice", None)}


def change(page, name):
    field, value = CHANGES[name]
    if value is None:  # the second option, picked by its button as a reader picks it
        value = pyodide_widgets.module(name).FIELDS[0].options[1][0]
        page.click(f'{root(name)} [data-pick="{field}={value}"]')
    else:
        type_into(page, name, field, value)
    wait_for_cpython_outputs(page, name)


def tool(page, name, which):
    page.click(f'{root(name)} [data-tool="{which}"]')


def pinned_shown(page, name) -> dict:
    """{output key: (its pinned line's difference, its text)} as the page shows them."""
    return page.eval_on_selector_all(
        f"{root(name)} [data-pinned-for]",
        "els => Object.fromEntries(els.map(el => [el.dataset.pinnedFor, [el.dataset.difference, el.textContent]]))",
    )


def expected_pinned(name, live, pinned) -> dict:
    return json.loads(dispatch.handle(json.dumps({"widget": name, "state": live, "pinned": pinned})))["pinned"]


def live_page(page, url, name):
    page.goto(url)
    look_at(page, name)
    wait_live(page, name)


def own_page(widget_site, name, query: str = "") -> str:
    """The address of the widget alone on a page of the throwaway site."""
    return f"{widget_site}/{name}/{query}"


def test_tools_are_absent_without_javascript(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    static = context.new_page()
    static.goto(f"{site_url}{PAGE}")
    for name in CHANGES:
        assert static.get_attribute(root(name), "data-state") == "static"
        assert static.locator(f"{root(name)} [data-tool]").count() == 0
    context.close()


@pytest.mark.parametrize("name", CHANGES)
def test_tools_shown_once_live_a_pinned_state_stays_beside_the_live_one_and_travels_in_the_address(
        browser, page, widget_site, name):
    live_page(page, own_page(widget_site, name), name)
    assert page.locator(f"{root(name)} [data-tool='pin']").is_visible()
    pinned = form_state(page, name)
    pinned_outputs = cpython_outputs(name, pinned)
    tool(page, name, "pin")
    change(page, name)
    live = form_state(page, name)
    expected = expected_pinned(name, live, pinned)
    page.wait_for_function("sel => document.querySelectorAll(sel).length > 0", arg=f"{root(name)} [data-pinned-for]")
    shown = pinned_shown(page, name)
    assert set(shown) == set(shown_outputs(page, name))
    for key, (difference, text) in shown.items():
        assert difference == expected["differences"][key]
        # An unchanged figure repeats nothing; one line counts them.
        assert text == "" if difference == "same" else pinned_outputs[key] in text
    assert any(difference != "same" for difference, _ in shown.values())
    same = sum(difference == "same" for difference, _ in shown.values())
    status = page.inner_text(f"{root(name)} [data-tool-status]")
    assert (f"the {same} figure" in status) if same else status == ""

    # The address holds both states: opened afresh, it shows the same comparison.
    link = address(page)
    query = dict(parse_qsl(urlsplit(link).query))
    assert {key.rsplit(".", 1)[1]: value for key, value in query.items() if key.startswith(f"{name}.pin.")} == pinned
    shared = browser.new_context().new_page()
    live_page(shared, link, name)
    assert form_state(shared, name) == live
    shared.wait_for_function("sel => document.querySelectorAll(sel).length > 0", arg=f"{root(name)} [data-pinned-for]")
    assert pinned_shown(shared, name) == shown
    assert shared.get_attribute(f"{root(name)} [data-tool='pin']", "aria-pressed") == "true"
    shared.close()

    tool(page, name, "pin")  # unpin
    assert page.locator(f"{root(name)} [data-pinned-for]").count() == 0
    assert f"{name}.pin." not in address(page)
    assert not page.log.page_errors and not page.log.console_errors


def test_a_bad_pinned_state_in_the_address_is_named_and_no_figure_is_compared(page, widget_site):
    name = "training_time"
    live_page(page, own_page(widget_site, name, f"?{name}.pin.gpus=-3&{name}.gpus=2048"), name)
    status = page.locator(f"{root(name)} [data-tool-status]")
    status.wait_for(state="visible")
    assert "GPUs" in status.inner_text() and "whole number" in status.inner_text()
    assert page.locator(f"{root(name)} [data-pinned-for]").count() == 0
    wait_for_cpython_outputs(page, name)  # the live state is still answered
    assert page.inner_text(f"{root(name)} [data-status]").strip() == ""


@pytest.mark.parametrize("name", CHANGES)
def test_the_copied_command_and_json_give_the_shown_outputs_and_the_chart_data_its_rows(browser, widget_site, name):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    live_page(page, own_page(widget_site, name), name)
    change(page, name)
    assert_the_csv_holds_the_rows_drawn(page, name)
    state, shown = form_state(page, name), shown_outputs(page, name)
    copied = page.locator(f"{root(name)} [data-copied]")

    tool(page, name, "command")
    page.wait_for_function("sel => document.querySelector(sel).value", arg=f"{root(name)} [data-copied]")
    command = copied.input_value()
    assert page.evaluate("navigator.clipboard.readText()") == command
    assert command == take_away.command(name, pyodide_widgets.module(name), state)
    words = shlex.split(command)
    done = subprocess.run([sys.executable, *words[1:], "--json"], cwd=ROOT, capture_output=True, text=True, encoding="utf-8")
    from_cli = json.loads(done.stdout)
    assert {key: from_cli["outputs"][key] for key in shown} == shown

    tool(page, name, "json")
    page.wait_for_function("([sel, old]) => document.querySelector(sel).value !== old", arg=[f"{root(name)} [data-copied]", command])
    assert json.loads(copied.input_value()) == from_cli == json.loads(page.evaluate("navigator.clipboard.readText()"))


def cell(value) -> object:
    """A CSV cell as CPython's row value reads: a number as its float, a boolean as JavaScript writes it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return float(value)
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def assert_the_csv_holds_the_rows_drawn(page, name):
    """The chart's data downloads as CSV of the rows it is drawn from."""
    data = pyodide_widgets.module(name).update(form_state(page, name))["data"]
    with page.expect_download() as download:
        tool(page, name, "csv")
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8"))))
    # The widget's rows, then the lines the chart draws for every state (named in its figure module).
    chart = pyodide_widgets.module(name).CHART
    spec = render.chart_spec(chart, data) or {"data": []}  # a diagram has no spec, and draws no more than its rows
    # Not the pinned state's rows (figures.PINNED), which no state of the widget's own draws.
    drawn = {d["name"]: d["values"] for d in spec["data"] if "values" in d and d["name"] not in data
             and not re.fullmatch(r"(source|data)_\d+", d["name"]) and not d["name"].startswith(figures.PINNED)}
    if name == "training_time":
        assert set(drawn) == {"equal_compute_lines", "chinchilla_optimal_line"}
    expected = [{"dataset": dataset, **row} for dataset, marks in {**data, **drawn}.items() for row in marks]
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected):
        assert got["dataset"] == want["dataset"]
        for key, value in want.items():
            if key != "dataset":
                assert (float(got[key]) if isinstance(cell(value), float) else got[key]) == cell(value), key


@pytest.mark.parametrize("name", CHANGES)
def test_the_tools_and_a_comparison_fit_a_360_px_column(browser, widget_site, name):
    page = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    live_page(page, own_page(widget_site, name), name)
    tool(page, name, "pin")
    change(page, name)
    tool(page, name, "command")
    page.wait_for_function("sel => document.querySelector(sel).value", arg=f"{root(name)} [data-copied]")
    overflow = page.eval_on_selector(root(name), """el => [...el.querySelectorAll('[data-tools] *, [data-pinned-for]')]
        .filter(e => e.getBoundingClientRect().right > el.getBoundingClientRect().right + 1).map(e => e.outerHTML.slice(0, 80))""")
    assert overflow == []
