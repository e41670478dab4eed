"""Provenance cards, checked for every widget found in pyodide_widgets.widgets.

Every output that states a quantity shows how it was made: its formula, each input it uses with
the value the form holds, and whether that value is a preset's (named, with its source) or the
reader's own. The build writes the cards into the page and the worker sends them with the outputs.
(The theme's tooltip showing them, live, is tests/browser/test_provenance_cards.py.)
"""

import html
import json
import math
import re

import pytest

import pyodide_widgets
from estimators import EstimatorError
from pyodide_widgets import contract, dispatch, provenance
from site_build import render
from site_build.lint import find_quantities

WIDGETS = pyodide_widgets.WIDGETS


def carded(widget) -> dict:
    """{output key: its declaration} for every slot that has a card: a figure's detail shares its card."""
    slots = {}
    for output in widget.OUTPUTS:
        if output.formula or output.source:
            slots[output.key] = output
            if output.detail:
                slots[output.detail] = output
    return slots


def shown(field, raw) -> str:
    """A preset's value as the form shows it, worked out here from the form's own text and labels."""
    text = contract.form_text(field, raw)
    if field.kind in ("number", "whole"):
        return f"{text} {field.unit}".strip()
    if field.kind == "choice":
        return field.label_of(text)
    if field.kind == "multi":
        return ", ".join(field.label_of(v) for v in text.split(contract.MULTI_SEPARATOR))
    return {"true": "on", "false": "off"}[text]


def line(field, value_text: str, origin: str) -> str:
    return f"{field.label}: {value_text} — {origin}"


@pytest.mark.parametrize("name", WIDGETS)
def test_every_output_that_states_a_quantity_has_a_card(name):
    widget = pyodide_widgets.module(name)
    fields = {f.name for f in widget.FIELDS}
    for output in widget.OUTPUTS:
        assert set(output.uses) <= fields, f"{output.key} uses a field the form lacks: {set(output.uses) - fields}"
        assert not output.uses or output.formula, f"{output.key} names inputs but no formula"
    cards = carded(widget)
    for key, preset in widget.presets().items():
        for slot, text in widget.update(preset["state"])["outputs"].items():
            if slot != contract.SUMMARY and find_quantities(text):
                assert slot in cards, f"preset {key}: {slot!r} states {text!r} with no formula or source"


@pytest.mark.parametrize("name", WIDGETS)
def test_a_preset_cards_name_each_used_value_the_preset_and_its_source(name):
    widget = pyodide_widgets.module(name)
    fields = {f.name: f for f in widget.FIELDS}
    presets = list(widget.presets().values())
    if any(o.uses for o in widget.OUTPUTS):
        assert all(p.get("source") for p in presets), "a preset whose values a card cites needs a source"
    for i, preset in enumerate(presets):
        # A state two presets share is the first one's.
        named = next(p for p in presets[:i + 1] if p["state"] == preset["state"])
        cards = provenance.cards(widget, preset["state"])
        assert set(cards) == set(carded(widget))
        for key, output in carded(widget).items():
            card = cards[key].split("\n")
            assert card[0] == (output.formula or output.source)
            for field in output.uses:
                assert line(fields[field], shown(fields[field], preset["state"][field]), provenance.PRESET) in card
            if output.uses:
                assert f"The preset, {named['label']}: {named['source']}" in card
            if output.source:
                assert card[-1] == output.source


def other_values(field, presets: list):
    """Text values of the field that no preset has, as a reader might type or pick them."""
    taken = {contract.form_text(field, p["state"][field.name]) for p in presets}
    if field.kind == "choice":
        yield from (value for value, _ in field.options if value not in taken)
    elif field.kind == "number" or field.kind == "whole":
        base = float(contract.form_text(field, presets[0]["state"][field.name]))
        for factor in (2, 3, 0.5, 10):
            value = round(base * factor) if field.kind == "whole" else base * factor
            text = contract.form_text(field, value)
            if math.isfinite(value) and text not in taken:
                yield text


@pytest.mark.parametrize("name", WIDGETS)
def test_a_changed_input_makes_the_card_say_your_input_with_the_new_value(name):
    widget = pyodide_widgets.module(name)
    presets = list(widget.presets().values())
    default = {f.name: contract.form_text(f, presets[0]["state"][f.name]) for f in widget.FIELDS}
    checked = 0
    for field in widget.FIELDS:
        users = {key: o for key, o in carded(widget).items() if field.name in o.uses}
        if not users:
            continue
        for text in other_values(field, presets):
            state = {**default, field.name: text}
            try:
                widget.update(state)
            except EstimatorError:
                continue
            cards = json.loads(dispatch.handle(json.dumps({"widget": name, "state": state})))["cards"]
            value = provenance.shown(field, contract.read([field], {field.name: text})[field.name])
            for key in users:
                assert line(field, value, provenance.YOURS) in cards[key].split("\n"), (key, cards[key])
            checked += 1
            break
    if not checked:
        # Nothing but a preset's value to pick (a choice of runs, each a preset): every card names a preset,
        # which the test above checks for each of them.
        used = {name for o in widget.OUTPUTS for name in o.uses}
        assert all(not list(other_values(f, presets)) for f in widget.FIELDS if f.name in used)


@pytest.mark.parametrize("name", WIDGETS)
def test_the_page_carries_each_card_on_its_slot_and_figures_take_focus(name):
    widget = pyodide_widgets.module(name)
    page = render.render(name)
    state = next(iter(widget.presets().values()))["state"]
    cards = provenance.cards(widget, state)
    details = {o.detail for o in widget.OUTPUTS if o.detail}
    for key, card in cards.items():
        tag = re.search(rf'<[^>]*data-output="{re.escape(key)}"[^>]*>', page).group(0)
        assert html.unescape(re.search(r'data-card="([^"]*)"', tag).group(1)) == card
        assert ('tabindex="0"' in tag) == (key not in details), tag
