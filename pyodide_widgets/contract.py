"""The widget contract: what a widget declares, and the one reader of its state.

A widget module declares its form as `FIELDS` (built with `number`, `whole`,
`choice`, `multi` and `toggle`) and its results as `OUTPUTS`; `read(FIELDS,
state)` turns a raw state (text from a form or a URL, or Python values from a
preset) into validated values in SI units. Every failure raises
EstimatorError whose `argument` is the field's name, so the runtime can show
the message beside that field, in the field's own units and with the labels
the reader sees.
"""

import dataclasses
import math
import re
from dataclasses import dataclass

from estimators import units, validate
from estimators.errors import EstimatorError
from estimators.presets import address_of

KINDS = ("number", "whole", "choice", "multi", "toggle")
# How a multi-choice travels in a form, a URL or a preset's JSON: "q,k,v,o".
MULTI_SEPARATOR = ","
TOGGLE_TEXT = {True: "true", False: "false"}


@dataclass(frozen=True)
class Field:
    """One form control. Numbers are typed in display units; `scale` turns them into SI."""

    name: str  # the control's name, the state key and the URL key
    label: str
    kind: str
    unit: str = ""  # shown after a number, in the units the reader types ("billion parameters")
    scale: float = 1.0  # display units -> SI (1e9 for "billion parameters")
    min: float | None = None  # smallest display value allowed; None: any number above 0
    max: float = math.inf  # largest display value; beyond it the value is a typo, not a what-if
    options: tuple = ()  # (value, label) pairs of a choice or multi-choice
    note: str = ""  # a line under the control
    play: bool = False  # a choice the reader can play through, option by option
    picks: tuple = ()  # display values of a number offered beside it, one press each
    pick_output: tuple = ()  # (output key, label): one more such pick, the value that output holds now

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if (self.kind in ("choice", "multi")) != bool(self.options):
            raise ValueError(f"field {self.name!r}: a choice or multi-choice has options, other kinds none")

    def label_of(self, value: str) -> str:
        return dict(self.options)[value]


def number(name: str, label: str, unit: str = "", scale: float = 1.0, min: float | None = None,
           max: float = math.inf, note: str = "", picks: tuple = (), pick_output: tuple = ()) -> Field:
    """A number typed in display units (scaled to SI by `scale`), above 0 unless `min` says otherwise.
    `picks` are values (display units) a press sets; `pick_output` is (output key, label) of one
    more, whose value an output computes for the current state (an optimum, say)."""
    return Field(name, label, "number", unit=unit, scale=scale, min=min, max=max, note=note,
                 picks=tuple(picks), pick_output=tuple(pick_output))


def whole(name: str, label: str, unit: str = "", min: int = 1, max: float = math.inf, note: str = "") -> Field:
    """A count: whole numbers only (and a numeric keypad on phones)."""
    return Field(name, label, "whole", unit=unit, min=min, max=max, note=note)


def choice(name: str, label: str, options, note: str = "", play: bool = False) -> Field:
    """One of `options`: (value, label) pairs, or a {value: label} vocabulary of the estimators.
    `play` adds a Play button that steps through the options (the stations of a loop, say)."""
    return Field(name, label, "choice", options=_pairs(options), note=note, play=play)


def model_choice(name: str, label: str, models: dict, note: str = "") -> Field:
    """A choice of `models` (a presets table of them), each named with its parameter count, the count its
    configuration gives (estimators.presets counts it): "Llama 3 8B · 8.03B parameters"."""
    return choice(name, label, {key: f"{m.name} · {units.count(m.params)} parameters" for key, m in models.items()},
                  note=note)


def multi(name: str, label: str, options, note: str = "") -> Field:
    """Any non-empty subset of `options`, read in the declared order."""
    return Field(name, label, "multi", options=_pairs(options), note=note)


def toggle(name: str, label: str, note: str = "") -> Field:
    """On or off."""
    return Field(name, label, "toggle", note=note)


def _pairs(options) -> tuple:
    items = options.items() if isinstance(options, dict) else options
    return tuple((str(value), str(label)) for value, label in items)


@dataclass(frozen=True)
class Output:
    """One result slot, `[data-output=key]` in the page.

    `detail` names a second output shown as a line under this one (its own
    key, updated with the rest); `note` is a fixed line; a `sentence` is a
    line of prose across the widget (a verdict) rather than a figure.

    `of` names what computes the output, for its provenance card
    (pyodide_widgets.provenance): an estimator, or `(result class, field)`
    for a field of a composed estimate; the card shows that estimator's
    formula as declared (`estimators.provenance.formula_of`), never a retyped
    one. `uses` are the fields it is computed from, by name (the contract
    tests change each field in turn and check that exactly these move it). A
    detail breaks its figure down from the same inputs and shares its card.
    `source` cites inputs no field changes (a compared model's
    configuration); an output with neither `of` nor `source` quotes data and
    has no card.
    """

    key: str
    label: str = ""
    note: str = ""
    detail: str = ""
    sentence: bool = False
    of: object = None
    uses: tuple = ()
    source: str = ""


SUMMARY = "summary"  # every widget's one-sentence result, announced to screen readers


# The most controls a widget shows beside its picture: more would push the picture off a laptop's
# screen (the rest wait under "More inputs").
MOST_MAIN_FIELDS = 4


def main_fields(widget) -> tuple:
    """(main, more): the widget's fields it shows beside its picture, and the rest, each in the form's order.

    A widget with more than MOST_MAIN_FIELDS fields names its main ones in `MAIN` (its module's tuple of
    field names); one with that many or fewer shows them all unless it names fewer."""
    fields = widget.FIELDS
    names = {f.name for f in fields}
    main = getattr(widget, "MAIN", None)
    if main is None:
        if len(fields) > MOST_MAIN_FIELDS:
            raise ValueError(f"{widget.__name__}: {len(fields)} fields and no MAIN naming the few beside its picture")
        return tuple(fields), ()
    if unknown := [name for name in main if name not in names]:
        raise ValueError(f"{widget.__name__}: MAIN names {', '.join(unknown)}, no field of it")
    if not 1 <= len(main) <= MOST_MAIN_FIELDS:
        raise ValueError(f"{widget.__name__}: MAIN names {len(main)} fields; 1 to {MOST_MAIN_FIELDS} stand beside the picture")
    # Play moves the picture: folded away, the picture's one animation would be out of sight.
    if folded_play := [f.name for f in fields if f.play and f.name not in main]:
        raise ValueError(f"{widget.__name__}: {', '.join(folded_play)} plays the picture and must be in MAIN, beside it")
    return tuple(f for f in fields if f.name in main), tuple(f for f in fields if f.name not in main)


def output_keys(outputs) -> set:
    """Every key `update` must return for these declarations: values, details and the summary."""
    return {o.key for o in outputs} | {o.detail for o in outputs if o.detail} | {SUMMARY}


# --- reading a state ---------------------------------------------------------

# Digits with commas only between thousands ("1,000,000"), or spaces likewise ("1 000"); a point for decimals.
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:([, \u00a0\u202f])\d{3})(?:\1\d{3})*(?:\.\d*)?")


def parse_number(name: str, raw: object) -> float:
    """A finite number from text or a number; text may group thousands with commas or spaces.

    A comma anywhere else ("1,5") is refused rather than guessed: as a decimal comma it
    means 1.5, as a thousands separator 15, and a wrong guess is a wrong answer.
    """
    if not isinstance(raw, str):
        # bool is an int in Python; True GPUs is a bug, not a count.
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            raise EstimatorError(name, raw, "a finite number")
        return raw
    text = raw.strip()
    if not text:
        raise EstimatorError(name, raw, "a number (the field is empty)")
    if _GROUPED.fullmatch(text):
        text = re.sub(r"[, \u00a0\u202f]", "", text)
    elif "," in text:
        raise EstimatorError(name, raw, "a number with a point for decimals (1.5); commas only between thousands (1,000)")
    try:
        value = float(text)
    except ValueError:
        raise EstimatorError(name, raw, "a number") from None
    if not math.isfinite(value):
        raise EstimatorError(name, raw, "a finite number")
    return value


def in_a_sentence(label: str) -> str:
    """A label inside a sentence: "Checkpoints kept" -> "checkpoints kept"; "LoRA rank r" stays."""
    first = label.split()[0]
    return label[0].lower() + label[1:] if first[1:].islower() else label


def _limits(field: Field) -> str:
    """What the field takes, in its own units: "a whole number from 1 to 10,000,000 GPUs", "a number
    from 0.1 to 1,000,000 minutes"; a field without a unit is named instead: "a whole number from 1 to
    100,000 (LoRA rank r)"."""
    def text(value):
        return units.integer(value) if value == int(value) else units.plain(value)
    unit = f" {field.unit}" if field.unit else f" ({in_a_sentence(field.label)})"
    kind = "a whole number" if field.kind == "whole" else "a number"
    if field.min is None:
        return f"{kind} above 0" + (f", at most {text(field.max)}{unit}" if math.isfinite(field.max) else unit)
    if not math.isfinite(field.max):
        return f"{kind} of {text(field.min)} or more{unit}"
    return f"{kind} from {text(field.min)} to {text(field.max)}{unit}"


def _read_number(field: Field, raw: object) -> float:
    value = parse_number(field.name, raw)
    too_low = value < field.min if field.min is not None else value <= 0
    if too_low or value > field.max or (field.kind == "whole" and value != int(value)):
        raise EstimatorError(field.name, raw, _limits(field))
    if field.kind == "whole":
        return int(value)
    return validate.finite_result(field.name, value * field.scale)


def _read_choice(field: Field, raw: object) -> str:
    values = [value for value, _ in field.options]
    if raw not in values:
        raise EstimatorError(field.name, raw, "one of " + ", ".join(label for _, label in field.options))
    return raw


def _read_multi(field: Field, raw: object) -> tuple:
    picked = raw.split(MULTI_SEPARATOR) if isinstance(raw, str) else raw
    if not isinstance(picked, (list, tuple)):
        raise EstimatorError(field.name, raw, "a selection of " + ", ".join(label for _, label in field.options))
    picked = [p.strip() if isinstance(p, str) else p for p in picked if p != ""]
    values = [value for value, _ in field.options]
    unknown = [p for p in picked if p not in values]
    if unknown or not picked:
        raise EstimatorError(field.name, raw, "at least one of " + ", ".join(label for _, label in field.options))
    return tuple(value for value in values if value in picked)


def _read_toggle(field: Field, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    for value, text in TOGGLE_TEXT.items():
        if raw == text:
            return value
    raise EstimatorError(field.name, raw, "on or off")


_READERS = {"number": _read_number, "whole": _read_number, "choice": _read_choice, "multi": _read_multi,
            "toggle": _read_toggle}


class UndeclaredField(LookupError):
    """A widget's own code names a field its FIELDS do not declare (one renamed in FIELDS and not
    where the module reads it): a mistake in the widget, for the build to name, not bad input."""

    def __init__(self, name: str, where: str, fields, unnamed=()):
        declared = [f.name for f in fields]
        # The field it was renamed to, when `where` leaves exactly one declared field unnamed.
        renamed = f"if it is now {unnamed[0]!r}, " if len(unnamed) == 1 else ""
        super().__init__(f"{where} names the field {name!r}, which FIELDS does not declare (it declares "
                         f"{', '.join(declared)}): {renamed}rename it in {where} too, or declare {name!r} in FIELDS again")
        self.field, self.where = name, where


class _State(dict):
    """The values `read` returns: reading a field FIELDS does not declare says so."""

    def __init__(self, fields):
        super().__init__()
        self.fields = fields

    def __missing__(self, name):
        raise UndeclaredField(name, "update()", self.fields)


def read(fields, state: dict) -> dict:
    """{field name: validated value in SI units} for a raw state; the first bad field raises."""
    values = _State(fields)
    for field in fields:
        if field.name not in state:
            raise EstimatorError(field.name, None, "a value (the field is missing)")
        values[field.name] = _READERS[field.kind](field, state[field.name])
    return values


def typed(fields, presets: dict, state: dict, among: tuple) -> str:
    """Of the fields `among` that together make `state` invalid, the one the reader set: the first
    whose value is in none of the widget's `presets` (a keystroke or a link, not a preset); the
    first of `among` when every one still holds a preset's value. Values are compared as read, so
    "2048" and "2,048" are one value."""
    by_name = {f.name: f for f in fields}

    def value(name, held):
        return _READERS[by_name[name].kind](by_name[name], held)

    for name in among:
        if all(value(name, p["state"][name]) != value(name, state[name]) for p in presets.values() if name in p["state"]):
            return name
    return among[0]


# --- presets: every value from presets.toml or an estimator -------------------------


@dataclass(frozen=True)
class Supplied:
    """A preset's value for one field, and the one place it comes from."""

    value: object  # as the preset state holds it: display units, a choice as its option
    origin: str  # `runs.llama3-405b.params`, or `run_preset_estimate("llama3-405b").token_bytes`: for the tests
    sources: tuple  # ((address, source), ...) of the presets.toml entries it comes from
    recompute: object = dataclasses.field(compare=False, repr=False)  # () -> the value again, for the contract tests
    by: str = ""  # where it comes from, in a reader's words ("from Llama 3 405B pretraining"); "" for an entry's pick


def from_preset(entry, attribute: str, scale: float = 1.0) -> Supplied:
    """The value of one field of a presets.toml entry (`attribute` may be dotted: "config.top_k"),
    in display units (`scale` as the field's)."""
    address = address_of(entry)

    def value():
        raw = entry
        for part in attribute.split("."):
            raw = getattr(raw, part)
        return raw / scale if scale != 1.0 else raw

    return Supplied(value(), f"{address}.{attribute}", ((address, entry.source),), value, by=f"from {_name(entry)}")


def from_entry(entry, option: str | None = None) -> Supplied:
    """The pick of a presets.toml entry itself, for a choice whose options are entries: the option
    is the entry's key unless the choice names it otherwise (a run's model, say)."""
    address = address_of(entry)

    def value():
        return option if option is not None else address_of(entry).split(".", 1)[1]

    return Supplied(value(), address, ((address, entry.source),), value)


def from_estimate(estimator, *args, attribute: str = "", scale: float = 1.0, entries=()) -> Supplied:
    """An estimator's result (or one `attribute` of it) computed from presets.toml `entries`."""
    def value():
        result = estimator(*args)
        raw = result
        for name in attribute.split(".") if attribute else ():  # "gpu.matmul_share": an attribute of an attribute
            raw = getattr(raw, name)
        return raw / scale if scale != 1.0 else raw

    addresses = [address_of(e) for e in entries]
    # Named by what it reads: the entries, or (with none) the arguments themselves.
    shown = ", ".join(addresses) if addresses else ", ".join(map(repr, args))
    call = f"{estimator.__name__}({shown})" + (f".{attribute}" if attribute else "")
    by = "computed for " + " and ".join(_name(e) for e in entries) if entries else "computed"
    return Supplied(value(), call, tuple(zip(addresses, (e.source for e in entries))), value, by=by)


def _name(entry) -> str:
    """An entry as a reader knows it: its name ("Llama 3 405B pretraining"), never its key."""
    return getattr(entry, "name", "") or address_of(entry).split(".", 1)[1]


def preset(fields, label: str, values: dict) -> dict:
    """A preset: `{"label", "state", "supplied"}`. `values` maps each field to a `Supplied` (or, for
    a choice, one of its options). The state holds a choice as its option's text and a number as the
    form shows it (15 significant digits), so the preset and the same value from a link or a
    keystroke give one answer."""
    by_name = {f.name: f for f in fields}

    def held(name, value):
        raw = value.value if isinstance(value, Supplied) else value
        if name not in by_name:
            raise UndeclaredField(name, "presets()", fields, [f for f in by_name if f not in values])
        field = by_name[name]
        return form_text(field, raw) if field.kind in ("choice", "number") else raw

    return {
        "label": label,
        "state": {name: held(name, value) for name, value in values.items()},
        "supplied": {name: value for name, value in values.items() if isinstance(value, Supplied)},
    }


def presets_from(fields, table: dict, **renamed) -> dict:
    """{key: preset} with one state per entry of `table` whose fields are named like the form's.

    Each field's value is the entry's attribute of the same name, or of the name `renamed` gives
    (stage="zero_stage"); the entry's `name` is the button's label.
    """
    return {
        key: preset(fields, entry.name, {f.name: from_preset(entry, renamed.get(f.name, f.name)) for f in fields})
        for key, entry in table.items()
    }


def as_typed(field: Field, text: str) -> str:
    """A number's form text as a person would type it, by the units policy (`units.integer` for a count,
    `units.number` for a figure): 405.8533888 billion parameters reads "406", 16384 GPUs "16,384".
    The form keeps the exact text beside it until the reader types (site_build/templates/_field.html,
    runtime.js), so a preset computes with its exact value; any other text is returned as it is."""
    if field.kind not in ("number", "whole"):
        return text
    try:
        value = parse_number(field.name, text)
    except EstimatorError:
        return text
    return units.integer(value) if field.kind == "whole" and value == int(value) else units.number(value)


def form_text(field: Field, value: object) -> str:
    """A state value as the form holds it (and as the URL and the preset buttons carry it)."""
    if field.kind == "multi":
        return MULTI_SEPARATOR.join(value) if isinstance(value, (list, tuple)) else str(value)
    if field.kind == "toggle":
        return TOGGLE_TEXT.get(value, str(value))
    if field.kind in ("number", "whole") and not isinstance(value, str):
        return units.plain(value)
    return str(value)
