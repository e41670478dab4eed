"""Provenance cards: how each output of a widget is made, read from its declaration.

A card is plain text, one line each: the formula of what computes the output
(`Output.of`, through `estimators.provenance.formula_of`: the one declaration
prose cards and the methods page read too), then every field it uses
(`Output.uses`) with its label, its value as the form shows it and where that
value comes from: the presets.toml entry or estimate that supplied it
(`contract.Supplied`), nothing for an option a preset picks with no entry
behind it (a cut, a mode), or "your input" when no preset holds that value;
then the source of each entry named, once; then the output's own `source`,
for inputs no field changes.

When several presets supply the value a field holds, the one that agrees with
the state on the most fields names it (the first on a tie): whichever it is,
the source named did supply that very number.

The build writes each card into the page as the output's `data-card`, and the
worker returns the cards beside the outputs, so a card follows its inputs.
"""

from functools import cache

from estimators import units
from estimators.provenance import formula_of

from .contract import form_text, read

YOURS = "your input"
PICKED = object()  # an option a preset picks that no presets.toml entry supplies
TOGGLE_WORDS = {True: "on", False: "off"}


@cache  # an output's declaration and its estimator's docstring are fixed: read once per output
def formula_text(output) -> str:
    """The formula line of an output's card: its estimator's declared formula."""
    declared = formula_of(output.of) if output.of is not None else None
    return declared.text if declared else ""


def cards(widget, state: dict) -> dict:
    """{output key: card} for every output that names what computes it or a source, its detail sharing its card."""
    fields = {f.name: f for f in widget.FIELDS}
    values = _read_as_shown(widget.FIELDS, state)
    ranked = _nearest_first(widget, values)
    result, used = {}, {}  # used: each field's line and the sources it cites, the same in every card that uses it
    for output in widget.OUTPUTS:
        formula = formula_text(output)
        if not (formula or output.source):
            continue
        lines = [formula] if formula else []
        cited = {}
        for name in output.uses:
            if name not in used:
                used[name] = _field_line(fields[name], values[name], _supplier(ranked, values, name))
            line, sources = used[name]
            lines.append(line)
            cited.update(sources)
        lines += [f"{address}: {source}" for address, source in cited.items()]
        if output.source:
            lines.append(output.source)
        text = "\n".join(lines)
        result[output.key] = text
        if output.detail:
            result[output.detail] = text
    return result


def _field_line(field, value, supplied) -> tuple:
    """(a card's line for a field it uses, {address: source} that line cites): its label, value and supplier."""
    line = f"{field.label}: {shown(field, value)}"
    if supplied is PICKED:
        return line, {}
    if supplied is None:
        return f"{line} — {YOURS}", {}
    return f"{line} — {supplied.origin}", supplied.sources


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


def _nearest_first(widget, values: dict) -> list:
    """The widget's (preset, its values), the one agreeing with `values` on the most fields first (stable on a tie)."""
    return sorted(_presets(widget), key=lambda pair: sum(pair[1][n] == v for n, v in values.items()), reverse=True)


def _supplier(ranked: list, values: dict, name: str):
    """Where the value field `name` holds comes from: the `Supplied` of the nearest preset that gave it
    (`ranked`, nearest first); PICKED for an option a preset picks without a presets.toml entry
    behind it (a cut, a mode); None when no preset holds it: the reader's own."""
    for preset, theirs in ranked:
        if theirs[name] == values[name]:
            return preset["supplied"].get(name, PICKED)
    return None
