"""Load and validate presets.toml: the inputs the site uses, each with a source.

Every table is declared once, in presets.toml itself, under ``[tables.<name>]``
beside its entries: the lookup a page calls for one entry (``gpu("h100-sxm")``),
its methods-page heading, and each field's type, check, note, how a number
reads (``estimators.provenance.quantity``) and the column it is listed under.
From that declaration this module makes the entries' dataclass, checks every
entry, and ``Presets`` answers ``presets.gpus`` (the table, a dict) and
``presets.gpu(key)`` (one entry, an unknown key named with the closest one).

The declaration lives beside the data rather than in Python so that it
travels with it: the wheel carries presets.toml into the browser, every
module that loads presets sees every table whatever was imported first, and
a widget that needs a table of its own adds it there without touching this
module. A check across a table's entries (the ladder's order, say) is a
function here that the declaration names in ``checks``.

A field declares, in ``[tables.<name>.fields]``:

- ``type``: text, number (a whole number is valid), whole, flag, list or table
  (of names to values); ``optional = true`` or a ``default`` when it may be left out;
- ``check``: a range check or several (``_RANGE_CHECKS``); on a list or a table,
  of each element;
- ``one_of``: the values allowed, listed or named as a vocabulary of the
  estimators (``"memory.RECOMPUTE"``);
- ``key_of``: the tables whose keys the value names, ``key_where`` what that
  entry must hold (an interconnect's ``scope``);
- a number's ``printed``, ``unit``, ``binary`` and ``note`` (its quantity);
- ``column``: its heading on the methods page (a field without one is not
  listed), ``absent`` what a missing value reads there, ``capitals`` whether
  its names are written in capitals (precisions: BF16).

A table of model presets names a ``configuration`` (``"model_size.DecoderConfig"``):
every field of an entry it does not declare belongs to that configuration,
whose own checks run at load, and a field ``counted`` from it ("total" or
"active") holds its parameter count. A table that ``joins`` another shares
its fields, lookup, keys and listing (``moe_models`` joins ``models``).

Any mistake raises EstimatorError whose argument is the place in the file,
``runs.llama3-405b.mfu`` (the build turns it into the file's line).
"""

import dataclasses
import importlib
import tomllib
import types
import typing
from dataclasses import dataclass
from functools import cache
from importlib import resources

from . import data_file, validate
from .errors import EstimatorError
from .model_size import decoder_params
from .moe import MoeConfig, moe_params
from .provenance import quantity

# A field's declared type: the Python type its entries hold, and what a TOML value may be for it
# (a whole number is a valid number, not the reverse; a TOML array becomes an immutable tuple).
_TYPES = {
    "text": (str, (str,)),
    "number": (float, (int, float)),
    "whole": (int, (int,)),
    "flag": (bool, (bool,)),
    "list": (tuple, (list,)),
    "table": (dict, (dict,)),
}
_NUMBERS = ("number", "whole")
_DECLARATION_KEYS = {"lookup", "title", "about", "fields", "checks", "configuration", "joins"}
_FIELD_KEYS = {"type", "optional", "default", "check", "one_of", "key_of", "key_where", "note", "printed", "unit",
               "binary", "column", "absent", "capitals", "counted"}
# Fields the loader adds to every entry: where it lives, and a model's configuration.
_RESERVED = ("address", "config")


def _source(argument: str, value: str) -> str:
    """A source someone can look up: not empty, not only spaces."""
    if not value.strip():
        raise EstimatorError(argument, value, "a source a reader can look up (a URL or a citation), not empty")
    return value


def _whole(argument: str, value: float) -> float:
    """A number with nothing after the point (a byte count read from a datasheet as 80e9)."""
    if value != int(value):
        raise EstimatorError(argument, value, "a whole number")
    return value


_RANGE_CHECKS = {
    "positive": validate.positive,
    "positive_int": validate.positive_int,
    "non_negative_int": validate.non_negative_int,
    "fraction": validate.fraction,
    "whole": _whole,
    "source": _source,
}


@dataclass(frozen=True)
class Field:
    """One field of a table, as its declaration in presets.toml gives it."""

    name: str
    type: str  # a key of _TYPES
    required: bool  # neither optional nor with a default
    default: object = None
    checks: tuple = ()  # range checks, (argument, value) -> value
    one_of: tuple = ()  # the values allowed; empty: any
    key_of: tuple = ()  # tables whose keys the value names; empty: none
    key_where: dict = dataclasses.field(default_factory=dict)  # what the named entry must hold
    column: str = ""  # heading on the methods page; "" for a field it does not list
    absent: str = "not given"  # what a missing value reads there
    capitals: bool = False  # its names (or its table's keys) written in capitals
    counted: str = ""  # "total" or "active": parameters counted from the entry's configuration


@dataclass(frozen=True)
class Table:
    """A table of presets.toml as it is declared: what the loader, the lookups and the methods page read."""

    name: str  # as in presets.toml: "gpus"
    lookup: str  # the method (and page macro) returning one entry: "gpu"
    title: str  # its heading on the methods page
    about: str  # the paragraph under that heading
    fields: tuple  # of Field, in order
    entry: type  # the dataclass of its entries, made from those fields
    checks: tuple = ()  # functions across its entries, (table name, {key: entry}, presets so far)
    configuration: type | None = None  # a model table's configuration dataclass
    joins: str = ""  # the table whose keys and listing this one shares; "" for none

    @property
    def holder(self) -> str:
        """The table of `Presets` its entries are found in."""
        return self.joins or self.name


class Presets:
    """Every table's entries: `presets.gpus` is {key: entry}, `presets.gpu(key)` one entry.

    `declared` holds every table's declaration, `tables` those of the tables that
    hold entries (a joined table's entries are in the one it joins), `lookups`
    maps each lookup to its table.
    """

    def __init__(self, declared: dict, entries: dict):
        self.declared = declared  # {name: Table}
        self.tables = {name: table for name, table in declared.items() if not table.joins}
        self.lookups = {table.lookup: name for name, table in self.tables.items()}
        for name, table in self.tables.items():
            setattr(self, name, entries[name])
            setattr(self, table.lookup, types.MethodType(_lookup(table), self))


def _lookup(table: Table):
    def find(self, key: str):
        entries = getattr(self, table.name)
        return entries[validate.one_of(table.lookup, key, entries)]

    find.__name__ = find.__qualname__ = table.lookup
    find.__doc__ = f"The entry of table {table.name} under `key`."
    return find


def address_of(entry) -> str:
    """Where a preset entry lives in presets.toml, its table and key: "runs.llama3-405b"."""
    address = getattr(entry, "address", "")
    if not address:
        raise EstimatorError("entry", entry, "an entry of a loaded Presets")
    return address


# --- the declarations ---------------------------------------------------------------


def _estimators_name(where: str, dotted: str):
    """A name of an estimators module, "memory.RECOMPUTE": a vocabulary or a configuration."""
    module, _, name = dotted.partition(".")
    try:
        return getattr(importlib.import_module(f".{module}", __package__), name)
    except (ImportError, AttributeError):
        raise EstimatorError(where, dotted, "a name of an estimators module, such as 'memory.RECOMPUTE'") from None


def _names(value) -> tuple:
    """A declaration's name or list of names, as a tuple."""
    return tuple(value) if isinstance(value, list) else (value,)


def _field(where: str, name: str, raw: dict) -> tuple:
    """(Field, the dataclass field its entries hold) from one field's declaration."""
    if not isinstance(raw, dict):
        raise EstimatorError(where, raw, "a table: type, and what else the field declares")
    for key in raw.keys() - _FIELD_KEYS:
        raise EstimatorError(f"{where}.{key}", raw[key], "a known key: " + ", ".join(sorted(_FIELD_KEYS)))
    if name in _RESERVED:
        raise EstimatorError(where, name, "a name the loader does not add itself: not " + " or ".join(_RESERVED))
    kind = validate.one_of(f"{where}.type", raw.get("type"), tuple(_TYPES))
    checks = tuple(validate.one_of(f"{where}.check", c, tuple(_RANGE_CHECKS)) for c in _names(raw.get("check", [])))
    one_of = raw.get("one_of", ())
    if isinstance(one_of, str):
        one_of = _estimators_name(f"{where}.one_of", one_of)
    declared = Field(
        name, kind, required=not raw.get("optional") and "default" not in raw, default=raw.get("default"),
        checks=tuple(_RANGE_CHECKS[c] for c in checks), one_of=tuple(one_of), key_of=_names(raw.get("key_of", [])),
        key_where=raw.get("key_where", {}), column=raw.get("column", ""), absent=raw.get("absent", "not given"),
        capitals=raw.get("capitals", False), counted=raw.get("counted", ""),
    )
    if declared.counted:
        validate.one_of(f"{where}.counted", declared.counted, ("total", "active"))
    python_type = _TYPES[kind][0] if declared.required else _TYPES[kind][0] | None
    default = {} if declared.required else {"default": declared.default}
    if kind in _NUMBERS or "printed" in raw:  # a number, or a list or table of them
        try:
            held = quantity(raw.get("note", ""), raw.get("printed", ""), unit=raw.get("unit", ""),
                            binary=raw.get("binary", False), **default)
        except ValueError as error:
            raise EstimatorError(f"{where}.printed", raw.get("printed"), str(error)) from None
    else:
        held = dataclasses.field(**default)
    return declared, (name, python_type, held)


def _declare(name: str, raw: dict, declared: dict) -> Table:
    """The Table a `[tables.<name>]` declaration gives; `declared` holds the tables before it."""
    where = f"tables.{name}"
    for key in raw.keys() - _DECLARATION_KEYS:
        raise EstimatorError(f"{where}.{key}", raw[key], "a known key: " + ", ".join(sorted(_DECLARATION_KEYS)))
    configuration = _estimators_name(f"{where}.configuration", raw["configuration"]) if "configuration" in raw else None
    checks = tuple(_CHECKS_ACROSS[validate.one_of(f"{where}.checks", c, tuple(_CHECKS_ACROSS))] for c in raw.get("checks", []))
    if "joins" in raw:
        joined = declared[validate.one_of(f"{where}.joins", raw["joins"], [k for k, t in declared.items() if not t.joins])]
        return dataclasses.replace(joined, name=name, joins=joined.name, configuration=configuration, checks=checks)
    fields, held = [], []
    for field_name, field_raw in raw.get("fields", {}).items():
        field, dataclass_field = _field(f"{where}.fields.{field_name}", field_name, field_raw)
        fields.append(field)
        held.append(dataclass_field)
    if configuration is not None:
        held.append(("config", object, dataclasses.field()))
    held.append(("address", str, dataclasses.field(default="", compare=False, repr=False)))
    lookup = raw.get("lookup", "")
    if not lookup.isidentifier():
        raise EstimatorError(f"{where}.lookup", lookup, "the name a page calls for one entry, such as 'gpu'")
    entry = dataclasses.make_dataclass("".join(part.title() for part in lookup.split("_")), held, frozen=True, kw_only=True)
    entry.__module__ = __name__
    return Table(name, lookup, raw.get("title", name), raw.get("about", ""), fields=tuple(fields), entry=entry,
                 checks=checks, configuration=configuration)


def declarations(data: dict) -> dict:
    """{name: Table} from the `tables` of a parsed presets document, in the order declared."""
    declared = {}
    for name, raw in data.items():
        if not isinstance(raw, dict):
            raise EstimatorError(f"tables.{name}", raw, "a table declaring lookup, title and fields")
        declared[name] = _declare(name, raw, declared)
    return declared


@cache
def _shipped_declarations() -> dict:
    return declarations(tomllib.loads(_shipped_text()).get("tables", {}))


# --- the entries ----------------------------------------------------------------------


def _value(where: str, field: Field, value):
    """One field's value, of its declared type and within its checks."""
    accepted = _TYPES[field.type][1]
    if (isinstance(value, bool) and bool not in accepted) or not isinstance(value, accepted):
        raise EstimatorError(where, value, f"a value of type {' or '.join(t.__name__ for t in accepted)}")
    if field.type == "list":
        return tuple(_element(where, field, v) for v in value)
    if field.type == "table":
        return {k: _element(f"{where}.{k}", field, v) for k, v in value.items()}
    return _element(where, field, value)


def _element(where: str, field: Field, value):
    for check in field.checks:
        value = check(where, value)
    if field.one_of:
        validate.one_of(where, value, field.one_of)
    return value


def _configuration(cls, where: str, raw: dict):
    """A model's configuration from the fields its preset does not declare; its own checks run here."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name in raw.keys() - fields.keys():
        raise EstimatorError(f"{where}.{name}", raw[name], "a known field: " + ", ".join(fields))
    values = {}
    for name, field in fields.items():
        if name not in raw:
            if field.default is dataclasses.MISSING:
                raise EstimatorError(f"{where}.{name}", None, "a value (the field is missing)")
            continue
        value = raw[name]
        options = [t for t in typing.get_args(field.type) or (field.type,) if t is not type(None)]
        nested = next((t for t in options if dataclasses.is_dataclass(t)), None)
        if nested is not None:  # MLA's ranks, a table of their own
            if not isinstance(value, dict):
                raise EstimatorError(f"{where}.{name}", value, f"a table of {', '.join(f.name for f in dataclasses.fields(nested))}")
            values[name] = _configuration(nested, f"{where}.{name}", value)
            continue
        accepted = tuple(t for option in options for t in (_TYPES["number"][1] if option is float else (option,)))
        if (isinstance(value, bool) and bool not in accepted) or not isinstance(value, accepted):
            raise EstimatorError(f"{where}.{name}", value, f"a value of type {' or '.join(t.__name__ for t in accepted)}")
        values[name] = value
    try:
        return cls(**values)
    except EstimatorError as error:  # the configuration's own check: say which preset
        raise EstimatorError(f"{where}.{error.argument}", error.value, error.allowed) from None


def _parameters(config, counted: str) -> int:
    """Total or active parameters of a model's configuration: a dense model's tokens pass through all of them."""
    if isinstance(config, MoeConfig):
        counts = moe_params(config)
        return counts.total if counted == "total" else counts.active
    return decoder_params(config).total


def _entry(table: Table, where: str, raw: dict):
    """One entry of `table`, its fields of their types and within their checks."""
    fields = {f.name: f for f in table.fields if not f.counted}
    if not isinstance(raw, dict):
        raise EstimatorError(where, raw, f"a table of {', '.join(fields)}")
    if table.configuration is None:
        for name in raw.keys() - fields.keys():
            raise EstimatorError(f"{where}.{name}", raw[name], "a known field: " + ", ".join(fields))
    values = {}
    for name, field in fields.items():
        if name in raw:
            values[name] = _value(f"{where}.{name}", field, raw[name])
        elif field.required:
            raise EstimatorError(f"{where}.{name}", None, "a value (the field is missing)")
    if table.configuration is not None:
        config = _configuration(table.configuration, where, {k: v for k, v in raw.items() if k not in fields})
        values["config"] = config
        values.update({f.name: _parameters(config, f.counted) for f in table.fields if f.counted})
    return table.entry(**values, address=where)


def _references(table: Table, entries: dict, declared: dict, found: dict) -> None:
    """Each field naming another table's entry names one that exists and holds what the field asks."""
    for field in table.fields:
        if not field.key_of:
            continue
        allowed = [
            key for name in field.key_of for key, entry in found[declared[name].holder].items()
            if address_of(entry).startswith(f"{name}.") and all(getattr(entry, a) == v for a, v in field.key_where.items())
        ]
        for key, entry in entries.items():
            value = getattr(entry, field.name)
            if value is not None:
                validate.one_of(f"{table.name}.{key}.{field.name}", value, allowed)


def parse_presets(text: str) -> Presets:
    """Parse and validate presets from TOML text; a mistake names its place by key (`runs.x.mfu`)."""
    return presets_from_data(tomllib.loads(text))


def presets_from_data(data: dict) -> Presets:
    """Validated presets from parsed TOML.

    Its tables are checked against the declarations of presets.toml, and
    against any the data declares itself (which take their place).
    """
    data = dict(data)
    declared = {**_shipped_declarations(), **declarations(data.pop("tables", {}))}
    for name in data.keys() - declared.keys():
        raise EstimatorError(name, "...", "a known table: " + ", ".join(declared))
    found = {name: {} for name, table in declared.items() if not table.joins}
    entries = {}  # {table: {key: entry}}, a joined table's apart from the one it joins
    for name, table in declared.items():
        entries[name] = {}
        for key, raw in data.get(name, {}).items():
            if key in found[table.holder]:
                raise EstimatorError(f"{name}.{key}", key, f"a key not already used in {table.holder}")
            entries[name][key] = found[table.holder][key] = _entry(table, f"{name}.{key}", raw)
    # Once every entry is built, since a table may name the entries of one declared after it.
    for name, table in declared.items():
        _references(table, entries[name], declared, found)
        for check in table.checks:
            check(name, entries[name], found)
    return Presets(declared, found)


# --- checks across a table's entries, named by its declaration ------------------------


def _unrounded_peaks_have_rounded_ones(table: str, gpus: dict, found: dict) -> None:
    """A GPU's unrounded peaks are for precisions it has a rounded peak at."""
    for key, gpu in gpus.items():
        for precision in gpu.peak_flops_unrounded or {}:
            validate.one_of(f"{table}.{key}.peak_flops_unrounded", precision, gpu.peak_flops)


def _precision_of_its_gpu(table: str, runs: dict, found: dict) -> None:
    """A run's precision is one its GPU has a peak at."""
    for key, run in runs.items():
        validate.one_of(f"{table}.{key}.precision", run.precision, found["gpus"][run.gpu].peak_flops)


def _mfu_inside_reported(table: str, runs: dict, found: dict) -> None:
    """The site's round MFU is taken from inside the range its source reports, never outside it."""
    for key, run in runs.items():
        bounds = run.mfu_reported
        if bounds is not None and (len(bounds) != 2 or not bounds[0] <= run.mfu <= bounds[1]):
            raise EstimatorError(f"{table}.{key}.mfu_reported", list(bounds), f"[low, high] around mfu ({run.mfu})")


def _params_of_its_model(table: str, runs: dict, found: dict) -> None:
    """A run's N is the count of its model's configuration, the parameters a token passes through:
    one parameter count per model across the site, never a paper's round figure beside it."""
    for key, run in runs.items():
        model = found["models"][run.model]
        if run.params != model.active_params:
            raise EstimatorError(f"{table}.{key}.params", run.params,
                                 f"models.{run.model}'s count from its configuration, {model.active_params}")


def _unexpected_at_most_interruptions(table: str, failures: dict, found: dict) -> None:
    for key, f in failures.items():
        if f.unexpected > f.interruptions:
            raise EstimatorError(f"{table}.{key}.unexpected", f.unexpected, f"at most interruptions ({f.interruptions})")


def _ladder_climbs(table: str, scales: dict, found: dict) -> None:
    """The rungs climb in the order written: each range starts above the last one's end; only the top is open."""
    below = None  # (key, max_gpus) of the rung below
    for key, scale in scales.items():
        if scale.max_gpus is not None and scale.max_gpus < scale.min_gpus:
            raise EstimatorError(f"{table}.{key}.max_gpus", scale.max_gpus, f"at least min_gpus ({scale.min_gpus})")
        if below is not None:
            if below[1] is None:
                raise EstimatorError(f"{table}.{below[0]}.max_gpus", None, "a value (only the top rung is open-ended)")
            if scale.min_gpus <= below[1]:
                raise EstimatorError(f"{table}.{key}.min_gpus", scale.min_gpus, f"more than {table}.{below[0]}.max_gpus ({below[1]})")
        below = (key, scale.max_gpus)


def _modules_each_once(table: str, finetunes: dict, found: dict) -> None:
    """A fine-tune adapts at least one module, and names each once."""
    for key, setup in finetunes.items():
        if not setup.modules:
            raise EstimatorError(f"{table}.{key}.modules", [], "at least one module")
        if len(set(setup.modules)) != len(setup.modules):
            raise EstimatorError(f"{table}.{key}.modules", list(setup.modules), "each module named once")


def _seconds_or_gpu_hours(table: str, stages: dict, found: dict) -> None:
    """A stage's report gives its wall-clock time or its GPU-hours: exactly one, the other is derived."""
    for key, stage in stages.items():
        if (stage.seconds is None) == (stage.gpu_hours is None):
            raise EstimatorError(f"{table}.{key}.seconds", stage.seconds, "a value, or gpu_hours instead (one of the two)")


_CHECKS_ACROSS = {
    "unrounded_peaks_have_rounded_ones": _unrounded_peaks_have_rounded_ones,
    "precision_of_its_gpu": _precision_of_its_gpu,
    "mfu_inside_reported": _mfu_inside_reported,
    "params_of_its_model": _params_of_its_model,
    "unexpected_at_most_interruptions": _unexpected_at_most_interruptions,
    "ladder_climbs": _ladder_climbs,
    "modules_each_once": _modules_each_once,
    "seconds_or_gpu_hours": _seconds_or_gpu_hours,
}


# --- the shipped presets -----------------------------------------------------------------


def _shipped_text() -> str:
    return resources.files(__package__).joinpath("presets.toml").read_text("utf-8")


def load_presets() -> Presets:
    """The validated presets shipped with the package (read once).

    A plain function, the cache kept behind it, so that it is a macro like every
    other public function (a page reaches a table with no macro of its own,
    such as ``load_presets().scale("rack")``, through it).
    """
    return _shipped_presets()


@cache
def _shipped_presets() -> Presets:
    # Through the one data-file loader, so a mistake names presets.toml's line as well as its key.
    return data_file.load(__package__, "presets.toml", presets_from_data)
