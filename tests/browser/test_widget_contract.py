"""The widget contract in a real browser, for every widget found in pyodide_widgets.widgets.

A throwaway site holds one page per widget with two copies of it. On each, with
no test written for the widget: the copies go live, answer as CPython does, keep
two states and two sets of URL keys, and come back from a shared link, a changed
chart redrawn live; a pinned state is drawn in the chart beside the live one;
every preset answers; a bad value from a link is named beside its field (the
shared link carries one for the second copy); no status line complains (a widget
without a chart included); and axe finds nothing in either palette. Each page
state is visited once for every check that reads it. What the copies read
without JavaScript is their HTML, which needs no browser
(tests/contract/test_widget_contract.py).
"""

import json
import math

import pytest

import figures
import pyodide_widgets
from estimators import EstimatorError
from pyodide_widgets.contract import form_text

from harness.widgets import (
    address,
    form_state,
    root,
    run_axe,
    set_field,
    wait_for_cpython_outputs,
    wait_live,
)

WIDGETS = pyodide_widgets.WIDGETS


def default_text_state(name: str) -> dict:
    widget = pyodide_widgets.module(name)
    fields = {f.name: f for f in widget.FIELDS}
    state = next(iter(widget.presets().values()))["state"]
    return {key: form_text(fields[key], value) for key, value in state.items()}


def candidates(field, text: str):
    """Other values a reader might give the field, nearest first."""
    if field.kind == "choice":
        yield from (value for value, _ in field.options if value != text)
    elif field.kind == "multi":
        picked = set(text.split(","))
        for value, _ in field.options:
            yield ",".join(v for v, _ in field.options if (v in picked) != (v == value))
    elif field.kind == "toggle":
        yield "false" if text == "true" else "true"
    else:
        number = float(text)
        for factor in (2, 0.5, 10, 0.1):
            value = round(number * factor) if field.kind == "whole" else number * factor
            if math.isfinite(value) and value >= 1:
                yield form_text(field, value)


def a_change(name: str):
    """(field, text): the first change of one field that gives valid, different outputs."""
    widget = pyodide_widgets.module(name)
    default = default_text_state(name)
    before = widget.update(default)["outputs"]
    for field in widget.FIELDS:
        for text in candidates(field, default[field.name]):
            try:
                after = widget.update({**default, field.name: text})["outputs"]
            except EstimatorError:
                continue
            if after != before:
                return field, text
    pytest.fail(f"{name}: no single-field change alters its outputs")


# A value no field takes, markup in it: a link that carries it must show it named beside its field, never as HTML.
NOT_VALID = "%3Cb%3Enot-valid"


@pytest.mark.parametrize("name", WIDGETS)
def test_two_copies_keep_their_own_state_and_url_a_changed_chart_redraws_live_a_pinned_state_is_drawn_beside_it_a_bad_value_from_a_link_is_named_and_every_preset_answers(
        browser, page, widget_site, name):
    page.emulate_media(reduced_motion="reduce")  # Play is "Next": one step a press
    page.goto(f"{widget_site}/{name}-twice/")
    first, second = f"#{name}", f"#{name}-2"
    wait_live(page, first)
    # A chart Vega draws: its state pinned before the change, drawn beside the changed one, then unpinned.
    pinned = pin(page, first) if page.locator(f"{first} [data-chart-spec]").count() else None
    field, text = a_change(name)
    set_field(page, first, field, text)
    changed = wait_for_cpython_outputs(page, first)
    if pinned is not None:
        assert_the_pinned_state_drawn_beside_the_live_one_until_unpinned(page, name, pinned)
    assert form_state(page, first)[field.name] == text
    assert form_state(page, second) == default_text_state(name)
    wait_for_cpython_outputs(page, second)
    shared_address = address(page)
    assert f"{name}.{field.name}=" in shared_address and f"{name}-2." not in shared_address
    for copy in (first, second):
        assert page.inner_text(f"{copy} [data-status]").strip() == "", "a status line complains"
    if _has_live_chart(name):  # the changed copy's chart is a live view now, redrawn from the answer
        page.wait_for_function("sel => document.querySelector(sel).widget.view !== null", arg=root(first))
        assert page.locator(f"{first} [data-chart] svg").count() == 1

    # The shared link, with a bad value for the second copy's first field added, as a hand-edited link has.
    bad = pyodide_widgets.module(name).FIELDS[0].name
    shared = browser.new_context().new_page()
    shared.goto(f"{shared_address}&{name}-2.{bad}={NOT_VALID}")
    wait_live(shared, first)
    assert form_state(shared, first) == form_state(page, first)
    assert wait_for_cpython_outputs(shared, first) == changed
    assert {key: text for key, text in form_state(shared, second).items() if key != bad} == {
        key: text for key, text in default_text_state(name).items() if key != bad}
    assert_named_beside_its_field(shared, second, first, bad)
    # The link's state lights the presets that hold every value of it, and no other.
    assert_highlight_matches(shared, first, "address")
    shared.close()
    # A widget of one preset shows no row of them (widget.html): nothing to press, nothing to highlight.
    if len(pyodide_widgets.module(name).presets()) > 1:
        assert_every_preset_answers_and_the_highlight_follows_every_kind_of_move(page, name)
    assert not page.log.page_errors and not page.log.console_errors


def assert_named_beside_its_field(page, widget: str, other: str, field: str):
    """The bad value is named beside its field in `widget`, not as markup, not in the `other` copy; and axe
    finds nothing in the widget, its error shown, in either palette (the page around it is checked whole
    in test_runtime)."""
    page.locator(f'{widget} [data-error-for="{field}"]').filter(has_text="Must be").wait_for()
    assert page.locator(f"{widget} b").count() == 0
    assert page.get_attribute(f'{widget} [name="{field}"]', "aria-invalid") == "true"
    assert page.inner_text(f"{other} [data-error-for='{field}']") == ""
    for scheme in ("default", "slate"):
        page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
        violations = run_axe(page, within=widget)
        assert violations == [], "\n".join(map(str, [scheme, *violations]))


# What a pinned state's marks' text alternatives start with (figures/_pinned.py).
PINNED = "Pinned: "


def texts(rows) -> set:
    """Every text a widget's chart rows hold, which its marks' text alternatives are read from."""
    return {value for marks in rows.values() if isinstance(marks, list) for row in marks for value in row.values()
            if isinstance(value, str)}


def pin(page, widget: str) -> dict:
    """Pin the state the widget shows; that state."""
    pinned = form_state(page, widget)
    page.click(f"{widget} [data-tool='pin']")
    return pinned


def assert_the_pinned_state_drawn_beside_the_live_one_until_unpinned(page, name: str, pinned: dict):
    """The pinned state's marks drawn beside the live ones in every live chart of the widget, folded ones
    included, each read from its own state's rows; unpinned, they go."""
    selector = f"#{name}"
    widget = pyodide_widgets.module(name)
    # Every chart Python's answers redraw, the picture and each folded one, draws the pinned state.
    page.wait_for_function("""([sel, prefix]) => [...document.querySelectorAll(`${sel} [data-chart-spec]`)].every((chart) =>
                                [...chart.querySelectorAll('[aria-label]')].some((el) => el.getAttribute('aria-label').startsWith(prefix)))""",
                           arg=[selector, PINNED])
    labels = page.eval_on_selector_all(f"{selector} [data-chart-spec] svg [aria-label]", "els => els.map((el) => el.getAttribute('aria-label'))")
    shown = {label.removeprefix(PINNED) for label in labels if label.startswith(PINNED)}
    live = {label for label in labels if not label.startswith(PINNED)}
    assert shown and shown <= texts(widget.update(pinned)["data"]), (name, shown)
    assert live & texts(widget.update(form_state(page, selector))["data"]), name
    page.click(f"{selector} [data-tool='pin']")  # unpinned: the pinned marks go
    page.wait_for_function("""([sel, prefix]) => ![...document.querySelectorAll(`${sel} [data-chart-spec] [aria-label]`)]
                                .some((el) => el.getAttribute('aria-label').startsWith(prefix))""", arg=[selector, PINNED])


# The presets whose every value the form holds: the ones the highlight must mark, and no other.
HIGHLIGHT = """(el) => {
  const state = window.widgetRuntime.stateOf(el);
  return [...el.querySelectorAll("[data-preset]")].map((b) => {
    const matches = Object.entries(JSON.parse(b.dataset.preset)).every(([field, value]) => state[field] === value);
    return [b.textContent.trim(), matches, b.getAttribute("aria-pressed") === "true"];
  });
}"""
# A mark of the live chart whose row names a pick (Vega's SVG renderer keeps each mark's item on its element).
PICKABLE = "(el) => [...el.querySelectorAll('[data-chart] svg *')].filter((m) => m.__data__?.datum?.pick).length"
CLICK_PICKABLE = """(el) => {
  const marks = [...el.querySelectorAll('[data-chart] svg *')].filter((m) => m.__data__?.datum?.pick);
  marks.at(-1).dispatchEvent(new MouseEvent("click", { bubbles: true }));
}"""


def assert_highlight_matches(page, widget: str, move: str):
    wait_for_cpython_outputs(page, widget)
    presets = page.eval_on_selector(root(widget), HIGHLIGHT)
    assert [(label, matches) for label, matches, _ in presets] == [(label, pressed) for label, _, pressed in presets], move


def assert_every_preset_answers_and_the_highlight_follows_every_kind_of_move(page, name: str):
    """By each preset, the first last, each answered as CPython answers its state; then by a field, a pick,
    Play and a click on the chart, the highlight marks the presets the form holds, and no other."""
    first = f"#{name}"
    buttons = page.locator(f"{first} [data-preset]")
    for index in reversed(range(buttons.count())):
        buttons.nth(index).click()
        assert form_state(page, first) == json.loads(buttons.nth(index).get_attribute("data-preset"))
        assert_highlight_matches(page, first, f"preset {index}")
        assert buttons.nth(index).get_attribute("aria-pressed") == "true"
    field, text = a_change(name)
    set_field(page, first, field, text)
    assert_highlight_matches(page, first, "field")
    for button in ("[data-pick]", "[data-play]"):
        if page.locator(f"{first} {button}").count():
            page.locator(f"{first} {button}").last.click()
            assert_highlight_matches(page, first, button)
    if _has_live_chart(name):
        page.wait_for_function("sel => document.querySelector(sel).widget.view", arg=root(first))
        if page.eval_on_selector(root(first), PICKABLE):
            page.eval_on_selector(root(first), CLICK_PICKABLE)
            assert_highlight_matches(page, first, "chart click")


def _has_live_chart(name: str) -> bool:
    """A Vega chart; a diagram (figures' `draw`) stays the build-time SVG, its picked part marked."""
    chart = getattr(pyodide_widgets.module(name), "CHART", None)
    return bool(chart) and not figures.is_diagram(chart)
