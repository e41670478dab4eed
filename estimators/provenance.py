"""What an estimator's outputs declare about themselves, so that every card reads one declaration.

- An estimator's **formula** is the first paragraph of its docstring, written as
  the methods page writes it ("C = 6·N·D, in FLOPs, …"). `formula_of` reads it;
  prose cards, widget cards and the methods page's list of formulas all go
  through it, so no formula is typed twice.
- A field of a result (or of a preset entry) that holds a number declares,
  with `quantity`, what it holds (`note`), how the units policy prints it
  (`printed`: the name of a formatter of `units`) and, for a field of a
  composed estimate, which estimator computes it (`of`). Cards read these;
  nothing guesses a kind from a field's name.
"""

import dataclasses
import inspect
from dataclasses import dataclass

from . import units

@dataclass(frozen=True)
class Quantity:
    """What a numeric field holds and how it reads: the declaration a card prints it by."""

    note: str = ""  # what the field holds, in a reader's words
    printed: str = "number"  # the units formatter that prints it
    unit: str = ""  # the unit of an `si` quantity ("FLOP/s", "B/s")
    binary: bool = False  # bytes printed with binary prefixes (a GPU's memory)
    of: object = None  # the estimator that computes the field, for a field of a composed estimate

    def __post_init__(self):
        if self.printed not in units.FORMATTERS:
            raise ValueError(f"printed={self.printed!r}: one of {', '.join(units.FORMATTERS)}")
        if (self.printed == "si") != bool(self.unit):
            raise ValueError("an si quantity names its unit, and only an si quantity does")

    def text(self, value) -> str:
        """`value` as the units policy prints this kind of quantity."""
        if self.printed == "si":
            return units.si(value, self.unit)
        if self.printed == "bytes":
            return units.bytes_(value, binary=self.binary)
        return units.FORMATTERS[self.printed](value)


def quantity(note: str = "", printed: str = "number", *, unit: str = "", binary: bool = False, of=None, **field):
    """A dataclass field that holds a number, declared with what it holds and how it reads.

    `field` passes on to `dataclasses.field` (a `default`, say).
    """
    declared = Quantity(note, printed, unit, binary, of=of)
    return dataclasses.field(metadata={"quantity": declared}, **field)


def quantity_of(cls, name: str) -> Quantity | None:
    """The declaration of field `name` of class `cls`, or None if it declares none."""
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if f.name == name:
                return f.metadata.get("quantity")
    return None


@dataclass(frozen=True)
class Formula:
    """An estimator's formula as one declaration: its text and where it is declared."""

    text: str  # as the methods page writes it
    declared_in: str  # "compute.training_flops", "CheckpointStall.shard_bytes": where to read it


def formula_of(target) -> Formula | None:
    """The formula of an estimator, or of a field of an estimator's result.

    `target` is a function, or (result dataclass, field name): a field declared
    with `quantity(of=estimator)` has that estimator's formula, any other its
    declared note. None when nothing declares one.
    """
    if isinstance(target, tuple):
        cls, name = target
        declared = quantity_of(cls, name)
        if declared is None:
            raise ValueError(f"{cls.__name__}.{name} is not a declared quantity")
        if declared.of is None:  # computed inside its estimator: what it holds is its formula
            return Formula(declared.note, f"{cls.__name__}.{name}") if declared.note else None
        target = declared.of
    doc = inspect.getdoc(target)
    if not doc:
        return None
    module = target.__module__.rsplit(".", 1)[-1]
    first_paragraph = " ".join(line.strip() for line in doc.split("\n\n")[0].splitlines())
    return Formula(first_paragraph.replace("`", ""), f"{module}.{target.__name__}")
