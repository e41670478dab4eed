"""Provenance cards: how each output of a widget is made, read from its declaration.

A card is plain text, one line each: the formula of what computes the output
(`Output.of`, through `estimators.provenance.formula_of`: the one declaration
prose cards and the methods page read too), then every field it uses
(`Output.uses`) with its label as the page shows it, its value as a person
types it and where that value comes from, in a reader's words: the
presets.toml entry or estimate that supplied it (`contract.Supplied.by`: "from
Llama 3 405B pretraining"), nothing for an option a preset picks itself (an
entry, a cut, a mode: the value names it), or "your input" when no preset
holds that value; then each source those entries cite, once, and the output's
own `source`, for inputs no field changes. No key or code name reaches a card.

When several presets supply the value a field holds, the one that agrees with
the state on the most fields names it (the first on a tie): whichever it is,
the source named did supply that very number.

A field's line reads the same in every card that uses it, so the page and the
worker carry the lines once per widget and each card apart from them (`parts`):
the build writes a widget's lines on its root and each output's formula and
sources on its slot (site_build/render.py), and the worker returns the lines
and each card's sources beside the outputs, so a card follows its inputs.
"""

from dataclasses import dataclass
from functools import cache

from estimators import units
from estimators.provenance import formula_of

from .contract import as_typed, form_text, read

YOURS = "your input"
PICKED = object()  # an option a preset picks that no presets.toml entry supplies
TOGGLE_WORDS = {True: "on", False: "off"}


@cache  # an output's declaration and its estimator's docstring are fixed: read once per output
def formula_text(output) -> str:
    """The formula line of an output's card: its estimator's declared formula."""
    declared = formula_of(output.of) if output.of is not None else None
    return declared.text if declared else ""


@dataclass(frozen=True)
class Card:
    """An output's card apart from its inputs' lines, which every card of the widget shares: its formula
    (none for an output that quotes its sources), the fields whose lines it reads, and what it cites. A
    source is only ever cited, never the card's own text: the page writes each source once, under its
    widget, and a card that only quotes its report (the stages' objectives, artifacts and examples) refers
    to it there, as every other card does."""
    formula: str
    uses: tuple  # the fields whose lines it reads, in order
    sources: tuple  # what it cites, in order: its fields' entries' sources, each once, then its own


def parts(widget, state: dict) -> tuple[dict, dict]:
    """({field: its line}, {output key: Card}) for every output that names what computes it or a source,
    its detail sharing its card: a field's line (label, value, supplier) reads the same in every card."""
    fields = {f.name: f for f in widget.FIELDS}
    values = _read_as_shown(widget.FIELDS, state)
    ranked = _nearest_first(widget, values)
    lines, cited_by, result = {}, {}, {}
    for output in widget.OUTPUTS:
        formula = formula_text(output)
        if not (formula or output.source):
            continue
        cited = {}
        for name in output.uses:
            if name not in lines:
                lines[name], cited_by[name] = _field_line(fields[name], values[name], _supplier(ranked, values, name))
            cited.update(cited_by[name])
        sources = tuple(dict.fromkeys((*cited.values(), *((output.source,) if output.source else ()))))
        result[output.key] = Card(formula, tuple(output.uses), sources)
        if output.detail:
            result[output.detail] = result[output.key]
    return lines, result


def listed(lines: dict, found: dict) -> tuple:
    """What "Sources of these figures" under a widget lists for a state: every source its cards cite,
    each once, in the order they first cite them; then, when some input is the reader's own, one line
    naming those inputs, which no source gave."""
    sources = tuple(dict.fromkeys(source for card in found.values() for source in card.sources))
    yours = [line.split(": ", 1)[0] for line in lines.values() if line.endswith(f" — {YOURS}")]
    return sources + ((f"{YOURS.capitalize()}: {', '.join(yours)}",) if yours else ())


def text(card: Card, lines: dict) -> str:
    """The card as a reader reads it: its formula, its fields' lines, then its sources, one line each."""
    return "\n".join(filter(None, (card.formula, *(lines[name] for name in card.uses), *card.sources)))


def cards(widget, state: dict) -> dict:
    """{output key: card} for every output that names what computes it or a source, its detail sharing its card."""
    lines, found = parts(widget, state)
    return {key: text(card, lines) for key, card in found.items()}


def _field_line(field, value, supplied) -> tuple:
    """(a card's line for a field it uses, {address: source} that line cites): its label, value and supplier."""
    line = f"{field.label}: {shown(field, value)}"
    if supplied is PICKED:
        return line, {}
    if supplied is None:
        return f"{line} — {YOURS}", {}
    return (f"{line} — {supplied.by}" if supplied.by else line), dict(supplied.sources)


def shown(field, value) -> str:
    """A validated value as the form shows it: a number as a person types it, in the field's display units
    (singular after one), an option by its label."""
    if field.kind in ("number", "whole"):
        figure = value / field.scale
        return " ".join(filter(None, (as_typed(field, units.plain(figure)), units.unit_after(figure, field.unit))))
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
