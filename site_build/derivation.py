"""Where a number on a page comes from: values that carry their derivation.

A page computes its numbers by calling estimators and preset lookups (through
the macros) and, now and then, by arithmetic of its own (`own / kor - 1`).
At build time every value those calls return is wrapped so that it remembers
how it was made:

- a number becomes a `TracedFloat` or `TracedInt`: it behaves as the plain
  number in every way a template uses one, and its `origin` says how it was
  made, and from what;
- a record (a preset, an estimator's dataclass, a dict, a tuple) becomes a
  `Record` whose attributes, items and elements are wrapped in turn, so
  `run("llama3-405b").params` is a number whose origin names the preset and
  its source.

An estimator receives plain values (`plain`), never wrapped ones: its
internals stay untraced, and its result is traced as one step with its
formula (`estimators.provenance.formula_of`). A field read from a record says
what it holds and how it reads by its declaration (`provenance.quantity`).

The filter that formats a traced number (macros) writes its origin into the
numbers manifest and into the number's hover card (`card`).

Nothing here runs in the browser: widgets declare their derivations instead.
"""

import dataclasses
import inspect
import operator
import re
from collections.abc import Mapping

from estimators import load_presets, units
from estimators.errors import EstimatorError
from estimators.provenance import Quantity, formula_of, quantity_of


@dataclasses.dataclass(frozen=True)
class Origin:
    """How a value was made.

    `expression` reads as a page would write the computation, with each preset
    named by its key: `model_state_bytes(model("llama3-405b").params)`.
    `formula` is the estimator's, `source` the preset's; `inputs` are the
    traced values it was computed from; `quantity` is the declaration of the
    record field it was read from (what it holds, how it reads).
    """

    expression: str
    formula: str = ""
    source: str = ""
    inputs: tuple = ()
    quantity: Quantity | None = None


class Traced:
    """A number that knows its `origin` (mixed into float and int below)."""

    origin: Origin

    def __new__(cls, value, origin: Origin):
        self = super().__new__(cls, value)
        self.origin = origin
        return self

    def __round__(self, digits=None):
        shown = "" if digits is None else f", {digits}"
        return traced(round(self._plain_type(self), digits), Origin(f"round({expression(self)}{shown})", inputs=(self,)))

    def __neg__(self):
        return traced(-self._plain_type(self), Origin(f"-{expression(self)}", inputs=(self,)))

    def __abs__(self):
        return traced(abs(self._plain_type(self)), Origin(f"abs({expression(self)})", inputs=(self,)))


def _arithmetic(symbol: str, op, reflected: bool = False):
    def method(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        left, right = (other, self) if reflected else (self, other)
        result = op(plain(left), plain(right))
        inputs = tuple(x for x in (left, right) if isinstance(x, Traced))
        return traced(result, Origin(f"({expression(left)} {symbol} {expression(right)})", inputs=inputs))

    return method


_OPERATORS = {
    "add": ("+", operator.add),
    "sub": ("-", operator.sub),
    "mul": ("*", operator.mul),
    "truediv": ("/", operator.truediv),
    "floordiv": ("//", operator.floordiv),
    "mod": ("%", operator.mod),
    "pow": ("**", operator.pow),
}
for _name, (_symbol, _op) in _OPERATORS.items():
    setattr(Traced, f"__{_name}__", _arithmetic(_symbol, _op))
    setattr(Traced, f"__r{_name}__", _arithmetic(_symbol, _op, reflected=True))


class TracedFloat(Traced, float):
    _plain_type = float


class TracedInt(Traced, int):
    _plain_type = int


def traced(value, origin: Origin):
    """`value` carrying `origin`: numbers as Traced*, records as Record, anything else as it is."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return TracedInt(value, origin)
    if isinstance(value, float):
        return TracedFloat(value, origin)
    if isinstance(value, (Mapping, list, tuple)) or dataclasses.is_dataclass(value) or hasattr(value, "__dict__"):
        if inspect.ismodule(value) or inspect.isclass(value) or callable(value):
            return value
        source = getattr(value, "source", None)  # a preset entry names its own source
        if isinstance(source, str) and not origin.source:
            origin = dataclasses.replace(origin, source=source)
        return Record(value, origin)
    return value


def plain(value):
    """The value without its derivation (what an estimator is given), recursively."""
    if isinstance(value, Traced):
        return value._plain_type(value)
    if isinstance(value, Record):
        return value._value
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def origin_of(value) -> Origin | None:
    if isinstance(value, Traced):
        return value.origin
    if isinstance(value, Record):
        return value._origin
    return None


def expression(value) -> str:
    """How a page would write `value`: its origin's expression, or the literal."""
    if (origin := origin_of(value)) is not None:
        return origin.expression
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, (int, float)):
        return units.plain(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(expression(v) for v in value) + "]"
    return repr(value)


class Record:
    """A record (preset, estimator result, dict, tuple) whose parts are traced."""

    __slots__ = ("_value", "_origin")

    def __init__(self, value, origin: Origin):
        self._value = value
        self._origin = origin

    def _part(self, suffix: str, value, quantity: Quantity | None = None):
        # A preset entry names its own source; its parts (a model's config) inherit it.
        source = getattr(value, "source", None)
        origin = dataclasses.replace(
            self._origin,
            expression=self._origin.expression + suffix,
            source=source if isinstance(source, str) else self._origin.source,
            quantity=quantity,
        )
        return traced(value, origin)

    def __getattr__(self, name: str):
        value = getattr(self._value, name)
        if inspect.ismethod(value) or inspect.isbuiltin(value):
            return self._method(name, value)
        return self._part(f".{name}", value, quantity_of(type(self._value), name))

    def _method(self, name: str, method):
        def call(*args, **kwargs):
            shown = ", ".join([*map(expression, args), *(f"{k}={expression(v)}" for k, v in kwargs.items())])
            return self._part(f".{name}({shown})", method(*plain(list(args)), **plain(kwargs)))

        return call

    def __getitem__(self, key):
        # An item of a declared mapping (a GPU's peak per precision) is a quantity of the same kind.
        return self._part(f"[{expression(key)}]", self._value[plain(key)], self._origin.quantity)

    # A mapping's views, so that `{% for key, fit in fits.items() %}` keeps each value's trace.
    def items(self):
        return [(key, self[key]) for key in self._value]

    def values(self):
        return [self[key] for key in self._value]

    def __iter__(self):
        if isinstance(self._value, Mapping):
            return iter(self._value)
        return (self._part(f"[{index}]", item) for index, item in enumerate(self._value))

    def __len__(self):
        return len(self._value)

    def __bool__(self):
        return bool(self._value)

    def __contains__(self, item):
        return plain(item) in self._value

    def __eq__(self, other):
        return self._value == plain(other)

    def __hash__(self):
        return hash(self._value)

    def __dir__(self):
        return dir(self._value)

    def __str__(self):
        return str(self._value)

    def __repr__(self):
        return repr(self._value)


# --- what a reader sees ------------------------------------------------------------


def formula(fn) -> str:
    """An estimator's formula as its declaration gives it, "" for a function that declares none."""
    declared = formula_of(fn)
    return declared.text if declared else ""


def inputs_of(values) -> tuple:
    """What a call on `values` was computed from: traced numbers and preset entries as they are,
    an estimator's result (a record with a formula) by what it was computed from."""
    found = []
    for v in values:
        origin = origin_of(v)
        if isinstance(v, Record) and origin.formula:
            found.extend(origin.inputs)
        elif origin is not None:
            found.append(v)
    return tuple(found)


def leaves(value) -> list:
    """The published inputs a traced value starts from (preset fields and entries), each once, in order."""
    found, seen = [], set()

    def walk(v):
        origin = origin_of(v)
        if (origin.source and not origin.formula) or not origin.inputs:  # a preset's part, or a start
            if origin.expression not in seen:
                seen.add(origin.expression)
                found.append(v)
            return
        for child in origin.inputs:
            walk(child)

    walk(value)
    return found


def steps(value) -> list:
    """(name, what it computes) of each estimator a traced value went through, and of each
    field of a result it read, outermost first, each once."""
    found = []

    def walk(v):
        origin = origin_of(v)
        if origin.formula and (step := (origin.expression.split("(")[0], origin.formula)) not in found:
            found.append(step)
        read_from_result = origin.formula and origin.quantity and origin.quantity.note
        if read_from_result and (step := ("." + origin.expression.rsplit(".", 1)[-1], origin.quantity.note)) not in found:
            found.append(step)
        for child in origin.inputs:
            walk(child)

    walk(value)
    return found


def input_text(value, quantity: Quantity | None) -> str:
    """An input's value as the units policy prints its declared kind; undeclared, in full."""
    number = plain(value)
    if quantity is not None:
        return quantity.text(number)
    return units.integer(number) if isinstance(number, int) else units.plain(number)


def card(text: str, value) -> str:
    """The hover card of a traced number: what made it, and from which published inputs."""
    first, formulas, inputs = card_parts(text, value)
    return "\n".join([first, *formulas] + [line + (f" (source: {source})" if source else "") for line, source in inputs])


def card_parts(text: str, value) -> tuple:
    """The card apart, in a reader's words (`reading`): its first line, what the number is and for which
    entries; each formula it went through; (input, its source or "") of each input. A page writes each
    formula and each source once and its cards refer to them (site_build/cards.py). The expression
    with its preset keys (`origin.expression`) stays the manifest's and the lock's, never a reader's."""
    return reading(text, value), tuple(formulas_read(value)), tuple(leaf_read(leaf) for leaf in leaves(value))


def leaf_text(leaf) -> str:
    """One published input: `run("llama3-405b").params = 405B (source: …)`; a whole preset entry
    with the numbers it holds: `run("llama3-405b"): params 405B, tokens 15.6T, … (source: …)`."""
    line, source = leaf_line(leaf)
    return line + (f" (source: {source})" if source else "")


def leaf_line(leaf) -> tuple:
    """leaf_text's input and its source, apart."""
    origin = origin_of(leaf)
    if isinstance(leaf, Traced):
        shown = f" = {input_text(leaf, origin.quantity)}"
    else:
        held = numbers_held(plain(leaf))
        shown = ": " + ", ".join(f"{name} {input_text(value, q)}" for name, value, q in held) if held else ""
    return f"{origin.expression}{shown}", origin.source


def numbers_held(record) -> list:
    """(field, number, its declaration) of a dataclass's numeric fields, in order."""
    if not dataclasses.is_dataclass(record):
        return []
    found = [(f.name, getattr(record, f.name), f.metadata.get("quantity")) for f in dataclasses.fields(record)]
    return [(name, v, q) for name, v, q in found if isinstance(v, (int, float)) and not isinstance(v, bool)]


# --- a reader's words ------------------------------------------------------------------
# What a card says, without a function, class or preset key: an entry by its name ("Llama 3 405B
# pretraining"), a field by its declared note ("D, training tokens"), an estimator by its formula.

# A preset lookup in an expression, `run("llama3-405b")` or `load_presets().setup("llama3-8b-node")`.
LOOKUP = re.compile(r'(?:load_presets\(\)\.)?(\w+)\("([^"]*)"\)')


def entry_name(expression: str) -> str:
    """The name of the preset entry an expression starts from ("" when it starts from none)."""
    found = LOOKUP.match(expression)
    if not found:
        return ""
    lookup, key = found.groups()
    presets = load_presets()
    if lookup not in presets.lookups:
        return ""
    try:
        entry = getattr(presets, lookup)(key)
    except EstimatorError:  # no such entry: an expression not made by a lookup of the shipped presets
        return ""
    return getattr(entry, "name", "") or key


# A record a lookup's field holds, by the word a reader knows it by.
_RECORD_WORDS = {"config": "configuration"}


def _words(part: str) -> str:
    """A field's name as words, for a field that declares no note: ".seq_len" -> "seq len"."""
    part = part.strip(".")
    return _RECORD_WORDS.get(part, part.replace("_", " "))


def _what(origin: Origin) -> str:
    """What a value holds: its field's declared note, else its estimator's formula."""
    if origin.quantity is not None and origin.quantity.note:
        return origin.quantity.note
    return origin.formula


def reading(text: str, value) -> str:
    """A card's first line: the number, what it is, and the entries it was computed for."""
    names = list(dict.fromkeys(filter(None, (entry_name(origin_of(leaf).expression) for leaf in leaves(value)))))
    what = _what(value.origin) or "worked out on the page from the figures below"
    return f"{text}: {what}" + (f" ({', '.join(names)})" if names else "")


def formulas_read(value) -> list:
    """The formula of each estimator a value went through, and what each field of a result it read holds,
    outermost first, each once: `steps` without the estimators' names."""
    return list(dict.fromkeys(said for _, said in steps(value)))


def leaf_read(leaf) -> tuple:
    """An input as a reader reads it, and its source: "Llama 3 405B pretraining, D, training tokens = 15.6T";
    a whole entry with the numbers it holds, each by its note."""
    origin = origin_of(leaf)
    name = entry_name(origin.expression)
    found = LOOKUP.match(origin.expression)
    rest = origin.expression[found.end():] if found and name else origin.expression
    if isinstance(leaf, Traced):
        what = _what(origin) or _words(rest.rsplit(".", 1)[-1])
        return f"{name + ', ' if name else ''}{what} = {input_text(leaf, origin.quantity)}", origin.source
    held = numbers_held(plain(leaf))
    # Each number by its note's first clause (a note may go on after a semicolon), as the lines join on them.
    shown = "; ".join(f"{q.note.split(';')[0] if q is not None and q.note else _words(field)} = {input_text(v, q)}"
                      for field, v, q in held)
    part = _words(rest) if rest else ""
    label = ", ".join(filter(None, (name, part)))
    return f"{label}{': ' + shown if shown else ''}", origin.source
