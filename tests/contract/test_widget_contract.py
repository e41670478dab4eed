"""The widget contract, checked for every widget found in pyodide_widgets.widgets.

A new widget gets every check here without a test of its own: its outputs match
its declaration and its page slots, every preset renders and validates, every
field refuses bad input under its own name, and the page is readable without a
chart. (CPython = Pyodide is tests/parity; the browser side, two copies of each
widget on one page included, is tests/browser/test_widget_contract.py.)
"""

import json
import math
import os
import re

import pytest

import figures
import pyodide_widgets
from estimators import EstimatorError
from pyodide_widgets import contract, dispatch
from site_build import numbers, render

WIDGETS = pyodide_widgets.WIDGETS
# Text a reader must never see in an output.
# What Python or JavaScript print for a value that is no number, as whole words and in their own case:
# "InfiniBand" is no inf, and "none: one GPU talks to no one" is English.
GARBAGE = re.compile(r"\b(?:nan|NaN|inf|Infinity|None|undefined|Traceback)\b")
BAD_INPUT = {
    "number": ["", "abc", "-1", "0", "nan", "inf", "1e400", "1,5", "½", None, True],
    "whole": ["", "abc", "-1", "0", "2.5", "nan", "1e400", "1,5", None],
    "choice": ["", "not-an-option", "<script>", None, 1],
    "multi": ["", "not-an-option", "q,not-an-option", None, 7],
    "toggle": ["", "maybe", "1", None],
}


def bad_inputs(field: contract.Field) -> list:
    """Values the field must refuse: its kind's usual mistakes, and ten times its limit."""
    values = list(BAD_INPUT[field.kind])
    if field.kind in ("number", "whole") and math.isfinite(field.max):
        values.append(repr(field.max * 10))
    return values


def presets(name):
    return pyodide_widgets.module(name).presets()


def default_state(name) -> dict:
    return dict(next(iter(presets(name).values()))["state"])


@pytest.mark.parametrize("name", WIDGETS)
def test_declaration_is_complete(name):
    widget = pyodide_widgets.module(name)
    assert widget.TITLE and widget.FIELDS is not None and widget.OUTPUTS
    assert all(isinstance(f, contract.Field) for f in widget.FIELDS)
    assert all(isinstance(o, contract.Output) for o in widget.OUTPUTS)
    assert len({f.name for f in widget.FIELDS}) == len(widget.FIELDS), "field names repeat"
    keys = [o.key for o in widget.OUTPUTS] + [o.detail for o in widget.OUTPUTS if o.detail]
    assert len(set(keys)) == len(keys) and contract.SUMMARY not in keys, "output keys repeat"
    chart = getattr(widget, "CHART", None)
    assert chart is None or chart in figures.CHARTS
    # A folded chart is redrawn live beside the picture: a chart (a diagram has no spec), of a widget with a picture.
    folded = getattr(widget, "FOLDED_CHARTS", {})
    assert not folded or chart, "a folded chart under no picture"
    assert all(name in figures.CHARTS and not figures.is_diagram(name) and summary for name, summary in folded.items())


@pytest.mark.parametrize("name", WIDGETS)
def test_every_preset_validates_and_returns_exactly_the_declared_outputs(name):
    widget = pyodide_widgets.module(name)
    assert presets(name), "a widget needs at least its default state"
    for key, preset in presets(name).items():
        assert preset["label"], key
        assert set(preset["state"]) == {f.name for f in widget.FIELDS}, key
        result = widget.update(preset["state"])
        render.check_outputs(name, result["outputs"])
        for text in result["outputs"].values():
            assert isinstance(text, str) and text and not GARBAGE.search(text), (key, text)
        json.dumps(result, allow_nan=False)  # what the worker sends must be strict JSON


@pytest.mark.parametrize("name", WIDGETS)
def test_form_text_gives_the_same_answer_as_the_preset_values(name):
    # The browser sends every field as the text the form holds.
    widget = pyodide_widgets.module(name)
    fields = {f.name: f for f in widget.FIELDS}
    for preset in presets(name).values():
        text = {k: contract.form_text(fields[k], v) for k, v in preset["state"].items()}
        assert widget.update(text) == widget.update(preset["state"])


@pytest.mark.parametrize("name", WIDGETS)
def test_every_preset_renders_with_one_slot_per_declared_output(name):
    for key in presets(name):
        html = render.render(name, key)
        render.check_slots(name, html)
        assert f'data-widget="{name}"' in html


@pytest.mark.parametrize("name", WIDGETS)
def test_both_copies_read_fully_without_javascript(name):
    """What a page holding the widget twice shows before any script runs: in each copy every output but
    the screen readers' summary (written live only), as CPython computes the default state, and the
    widget marked static. The HTML is what a browser without JavaScript shows; no browser needed."""
    expected = pyodide_widgets.module(name).update(default_state(name))["outputs"]
    for element_id in (name, f"{name}-2"):
        html = render.render(name, element_id=element_id)
        assert re.search(rf'<div class="widget" id="{element_id}" data-widget="{name}" data-state="static"', html)
        shown = numbers.widget_outputs(html)
        assert shown.pop("summary") == ""
        assert shown == {key: text for key, text in expected.items() if key != "summary"}, element_id


@pytest.mark.parametrize(
    "name, field", [(name, field) for name in WIDGETS for field in pyodide_widgets.module(name).FIELDS],
    ids=lambda value: getattr(value, "name", value),
)
def test_every_field_refuses_bad_input_under_its_own_name(name, field):
    for raw in bad_inputs(field):
        with pytest.raises(EstimatorError) as error:
            pyodide_widgets.module(name).update({**default_state(name), field.name: raw})
        assert error.value.argument == field.name, raw
        reply = json.loads(dispatch.handle(json.dumps({"widget": name, "state": {**default_state(name), field.name: raw}})))
        assert reply["error"]["field"] == field.name and reply["error"]["message"].startswith("Must be")


@pytest.mark.parametrize("name", WIDGETS)
def test_a_missing_field_is_named(name):
    for field in pyodide_widgets.module(name).FIELDS:
        state = default_state(name)
        del state[field.name]
        with pytest.raises(EstimatorError) as error:
            pyodide_widgets.module(name).update(state)
        assert error.value.argument == field.name


@pytest.mark.parametrize("name", WIDGETS)
def test_the_page_holds_a_chart_only_for_a_widget_that_has_one(name):
    html = render.render(name)
    chart = getattr(pyodide_widgets.module(name), "CHART", None)
    assert ("data-chart" in html) == (chart is not None)
    # A diagram is drawn once; only a chart is redrawn live, from its Vega spec.
    assert ("data-chart-spec" in html) == (chart is not None and not figures.is_diagram(chart))


def test_a_template_slot_typo_is_caught():
    html = render.render("memory_bill")
    with pytest.raises(render.WidgetError, match="missing total.*undeclared totl"):
        render.check_slots("memory_bill", html.replace('data-output="total"', 'data-output="totl"'))


def test_outputs_that_differ_from_the_declaration_are_caught():
    outputs = pyodide_widgets.module("training_time").update(default_state("training_time"))["outputs"]
    with pytest.raises(render.WidgetError, match="missing duration"):
        render.check_outputs("training_time", {k: v for k, v in outputs.items() if k != "duration"})


def test_the_widget_registry_is_the_package_folder():
    folder = pyodide_widgets.widgets.__path__[0]
    modules = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_"))
    assert list(WIDGETS) == modules


@pytest.mark.parametrize("name", WIDGETS)
def test_a_widget_shows_at_most_four_fields_beside_its_picture_and_folds_the_rest(name):
    widget = pyodide_widgets.module(name)
    main, more = contract.main_fields(widget)
    assert 1 <= len(main) <= contract.MOST_MAIN_FIELDS
    assert sorted(f.name for f in main + more) == sorted(f.name for f in widget.FIELDS)
    page = render.render(name)
    fold = re.search(r'<details class="widget__more".*?</details>', page, re.S)
    # A checkbox of a multiple choice carries its option in its name and its field in data-field.
    controls = re.findall(r'<(?:input|select|textarea)\b[^>]*>', fold.group(0)) if fold else []
    folded = {(re.search(r'\sdata-field="([^"]+)"', c) or re.search(r'\sname="([^"]+)"', c)).group(1) for c in controls}
    assert folded == {f.name for f in more}
    # The picture (a chart, or what a layout of its own draws) comes before every control.
    if getattr(widget, "CHART", None) or getattr(widget, "TEMPLATE", None):
        picture = re.search(r'class="widget__(?:chart|matrix|stack)\b', page)
        assert picture and picture.start() < page.index('class="widget__inputs"')


def test_a_widget_of_many_fields_must_name_its_main_ones():
    many = tuple(contract.whole(f"n{i}", f"N{i}") for i in range(contract.MOST_MAIN_FIELDS + 1))
    undeclared = type("Widget", (), {"FIELDS": many, "__name__": "many"})
    with pytest.raises(ValueError, match="MAIN"):
        contract.main_fields(undeclared)
    with pytest.raises(ValueError, match="no field"):
        contract.main_fields(type("Widget", (), {"FIELDS": many, "MAIN": ("n0", "typo"), "__name__": "many"}))


def test_a_field_that_plays_the_picture_stands_beside_it():
    fields = (*(contract.whole(f"n{i}", f"N{i}") for i in range(contract.MOST_MAIN_FIELDS)),
              contract.choice("clock", "Clock", {"1": "one", "2": "two"}, play=True))
    with pytest.raises(ValueError, match="clock plays the picture"):
        contract.main_fields(type("Widget", (), {"FIELDS": fields, "MAIN": ("n0", "n1"), "__name__": "folded"}))
    main, _ = contract.main_fields(type("Widget", (), {"FIELDS": fields, "MAIN": ("n0", "clock"), "__name__": "beside"}))
    assert [f.name for f in main] == ["n0", "clock"]
