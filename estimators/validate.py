"""Domain checks shared by every estimator: finite, positive, in range.

Each check returns the value (as a float or int) so a function can write
``n = positive("params", params)`` and go on with a value it can trust.
"""

import difflib
import math

from .errors import EstimatorError


def _number(argument: str, value: object) -> float:
    # bool is an int in Python; True GPUs is a bug, not a count.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EstimatorError(argument, value, "a number")
    if not math.isfinite(value):
        raise EstimatorError(argument, value, "a finite number")
    return value


def positive(argument: str, value: object) -> float:
    """value > 0 and finite."""
    v = _number(argument, value)
    if v <= 0:
        raise EstimatorError(argument, value, "a number greater than 0")
    return v


def non_negative(argument: str, value: object) -> float:
    """value >= 0 and finite."""
    v = _number(argument, value)
    if v < 0:
        raise EstimatorError(argument, value, "a number of 0 or more")
    return v


def positive_int(argument: str, value: object) -> int:
    """A whole number >= 1 (GPU counts, layers, heads)."""
    v = _number(argument, value)
    if v != int(v) or v < 1:
        raise EstimatorError(argument, value, "a whole number of 1 or more")
    return int(v)


def non_negative_int(argument: str, value: object) -> int:
    """A whole number >= 0 (interruptions, shared experts, dense layers)."""
    v = _number(argument, value)
    if v != int(v) or v < 0:
        raise EstimatorError(argument, value, "a whole number of 0 or more")
    return int(v)


def flag(argument: str, value: object) -> bool:
    """True or False, and nothing that merely looks like one (1, "yes")."""
    if not isinstance(value, bool):
        raise EstimatorError(argument, value, "True or False")
    return value


def fraction(argument: str, value: object) -> float:
    """0 < value <= 1 (MFU, shares)."""
    v = _number(argument, value)
    if not 0 < v <= 1:
        raise EstimatorError(argument, value, "a fraction greater than 0 and at most 1")
    return v


def one_of(argument: str, value: object, allowed: "tuple | list | dict") -> object:
    """value is one of a fixed set of names or whole numbers (optimizers, stages, presets).

    A bool never matches (True == 1 in Python), nor does a float that equals a whole number.
    """
    if not any(type(a) is type(value) and a == value for a in allowed):
        close = difflib.get_close_matches(value, [a for a in allowed if isinstance(a, str)], n=1) if isinstance(value, str) else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise EstimatorError(argument, value, "one of " + ", ".join(repr(a) for a in allowed) + hint)
    return value


def finite_result(argument: str, value: float) -> float:
    """Guard an output: a product of finite inputs can still overflow to inf."""
    if not math.isfinite(value):
        raise EstimatorError(argument, value, "inputs whose result is a finite number (these overflow)")
    return value
