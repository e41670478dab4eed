"""Reading a widget's state: raw form values (text from an input or a URL,
or numbers at build time) become validated numbers and choices.

Every failure raises EstimatorError with the field's name as `argument`, so
the runtime can show the message beside that field.
"""

from dataclasses import dataclass

from estimators import units, validate
from estimators.errors import EstimatorError


@dataclass(frozen=True)
class Field:
    name: str  # the form control's name, the URL key and the state key
    label: str
    unit: str = ""  # shown after the input, e.g. "billion"
    options: tuple = ()  # (value, label) pairs for a choice; empty for a number
    whole: bool = False  # a count: whole numbers only (and a numeric keypad on phones)
    max: float = float("inf")  # beyond this the value is a typo, not a what-if


def number(field: Field, raw: object) -> float:
    """A finite number from text or a number, within (0, field.max]."""
    value = raw
    if isinstance(raw, str):
        text = raw.strip().replace(",", "")
        if not text:
            raise EstimatorError(field.name, raw, "a number (the field is empty)")
        try:
            value = float(text)
        except ValueError:
            raise EstimatorError(field.name, raw, "a number") from None
    value = validate.positive(field.name, value)
    if value > field.max:
        raise EstimatorError(field.name, raw, f"a number of at most {units.integer(field.max)}")
    return value


def whole(field: Field, raw: object) -> int:
    """A whole number of 1 or more, within field.max."""
    return validate.positive_int(field.name, number(field, raw))


def choice(field: Field, raw: object) -> str:
    """One of the field's option values."""
    return validate.one_of(field.name, raw, [value for value, _ in field.options])
