"""Provenance cards: how each output of a widget is made, in the words of its declaration.

A card is plain text, one line each: the output's formula (`Output.formula`),
then every field it uses (`Output.uses`) with its label, its value as the form
shows it and where that value comes from ("the preset" or "your input"),
then the name and source of that preset (and the output's own `source`, for
inputs no field changes). A value comes from the preset nearest the state (the one that
agrees with it on the most fields, the first on a tie) when it is that
preset's value, and is the reader's own input otherwise.

The build writes each card into the page as the output's `data-card` (site.css's
tooltip with JavaScript off, the theme's tooltip with it on) and the worker
returns the cards beside the outputs, so a card follows its inputs.
"""

from functools import cache

from estimators import units

from .contract import form_text, read

PRESET, YOURS = "the preset", "your input"
TOGGLE_WORDS = {True: "on", False: "off"}


def cards(widget, state: dict) -> dict:
    """{output key: card} for every output that declares a formula or a source, its detail sharing its card."""
    fields = {f.name: f for f in widget.FIELDS}
    values = _read_as_shown(widget.FIELDS, state)
    preset, theirs = _nearest(widget, values)
    agreed = {name for name, value in theirs.items() if values[name] == value}
    result = {}
    for output in widget.OUTPUTS:
        if not (output.formula or output.source):
            continue
        lines = [output.formula] if output.formula else []
        for name in output.uses:
            origin = PRESET if name in agreed else YOURS
            lines.append(f"{fields[name].label}: {shown(fields[name], values[name])} — {origin}")
        if agreed & set(output.uses) and preset.get("source"):
            lines.append(f"The preset, {preset['label']}: {preset['source']}")
        if output.source:
            lines.append(output.source)
        text = "\n".join(lines)
        result[output.key] = text
        if output.detail:
            result[output.detail] = text
    return result


def shown(field, value) -> str:
    """A validated value as the form shows it: a number in the field's display units, an option by its label."""
    if field.kind in ("number", "whole"):
        return " ".join(filter(None, (units.plain(value / field.scale), field.unit)))
    if field.kind == "choice":
        return field.label_of(value)
    if field.kind == "multi":
        return ", ".join(field.label_of(v) for v in value)
    return TOGGLE_WORDS[value]


def _read_as_shown(fields, state: dict) -> dict:
    # Through the form's own text first, so a preset's Python value and the same value typed or
    # sent by a preset button read as the very same number.
    return read(fields, {f.name: form_text(f, state[f.name]) for f in fields})


@cache
def _presets(widget) -> tuple:
    """((preset, validated values), ...) in order: a widget's presets are fixed, so read once per widget."""
    return tuple((p, _read_as_shown(widget.FIELDS, p["state"])) for p in widget.presets().values())


def _nearest(widget, values: dict) -> tuple:
    """(preset, its validated values): the one that agrees with `values` on the most fields, the first on a tie."""
    return max(_presets(widget), key=lambda pair: sum(pair[1][name] == value for name, value in values.items()))
