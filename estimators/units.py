"""Units policy: the one place a number becomes text.

Decimal SI prefixes throughout (1 GB = 10⁹ bytes, 1 EFLOP/s = 10¹⁸ FLOP/s);
a binary unit appears only where it is named as such (GiB = 2³⁰ bytes).
Counts of parameters and tokens use the K / M / B / T suffixes of model
names (405B parameters, 15.6T tokens).

Every formatter takes the number of decimals it prints, so an article and a
widget that show the same quantity show the same text.
"""

import math

from .errors import EstimatorError

# Decimal prefixes for units (bytes, FLOPs, FLOP/s), from 10³ to 10²⁴.
SI_PREFIXES = ("", "k", "M", "G", "T", "P", "E", "Z", "Y")
# Suffixes for counts of things, as model cards write them.
COUNT_SUFFIXES = ("", "K", "M", "B", "T")
BINARY_PREFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")

SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86400
# A fixed-point figure of a million or more (a duration of 10⁶ days, 10⁶ YFLOP/s)
# is a wall of digits, and a nonzero one that rounds to 0 ("0.0 FLOP/s") says
# nothing: both are printed in scientific notation instead.
FIXED_LIMIT = 1e6


def _finite(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EstimatorError("value", value, "a finite number to format")
    return value


def _scaled(value: float, base: int, prefixes: tuple, decimals: int) -> tuple:
    """(mantissa, prefix index) with 1 <= |mantissa| < base after rounding."""
    index = 0
    magnitude = abs(value)
    while index < len(prefixes) - 1 and round(magnitude / base**index, decimals) >= base:
        index += 1
    return value / base**index, index


def _unreadable(value: float, decimals: int) -> bool:
    """Whether `value` with `decimals` decimals is a wall of digits or a misleading zero (see FIXED_LIMIT)."""
    return abs(value) >= FIXED_LIMIT or (value != 0 and round(value, decimals) == 0)


def _fixed(value: float, decimals: int) -> str:
    return sci(value) if _unreadable(value, decimals) else f"{value:.{decimals}f}"


def _prefixed(value: float, unit: str, decimals: int, base: int, prefixes: tuple, space: str) -> str:
    mantissa, index = _scaled(_finite(value), base, prefixes, decimals)
    if _unreadable(mantissa, decimals):  # beyond the largest prefix, or below 1 and rounding to 0
        return f"{sci(value)}{space}{unit}"
    return f"{mantissa:.{decimals}f}{space}{prefixes[index]}{unit}"


def si(value: float, unit: str, decimals: int = 1) -> str:
    """6.4816e18, "FLOP/s" -> "6.5 EFLOP/s"."""
    return _prefixed(value, unit, decimals, 1000, SI_PREFIXES, " ")


def bytes_(value: float, decimals: int = 1, binary: bool = False) -> str:
    """Bytes with decimal prefixes (810.0 GB), or binary ones (GiB) when asked."""
    if binary:
        return _prefixed(value, "B", decimals, 1024, BINARY_PREFIXES, " ")
    return si(value, "B", decimals)


def count(value: float, decimals: int = 1) -> str:
    """405e9 -> "405.0B"; 26.62e6 -> "26.62M" (decimals=2). No space, as model names write it."""
    return _prefixed(value, "", decimals, 1000, COUNT_SUFFIXES, "")


def sci(value: float, digits: int = 3) -> str:
    """Scientific notation with `digits` significant digits: 3.79e25."""
    mantissa, exponent = f"{_finite(value):.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def integer(value: float) -> str:
    """A whole number with thousands separators: 16,384."""
    return f"{round(_finite(value)):,}"


def percent(fraction: float, decimals: int = 0) -> str:
    """0.4 -> "40%"."""
    return f"{_finite(fraction) * 100:.{decimals}f}%"


def times(ratio: float, decimals: int = 0) -> str:
    """A multiple: 93.75 -> "94×"."""
    return f"{_fixed(_finite(ratio), decimals)}×"


def fixed(value: float, decimals: int = 1) -> str:
    """A plain number with a fixed count of decimals: 18.43 -> "18.4"."""
    return _fixed(_finite(value), decimals)


def hours(seconds: float, decimals: int = 1) -> str:
    """Seconds as hours, whatever their size: 419,400 -> "116.5 h"."""
    return f"{_fixed(_finite(seconds) / SECONDS_PER_HOUR, decimals)} h"


def duration(seconds: float, decimals: int = 1) -> str:
    """Seconds as the largest of s, min, h, days that keeps the figure >= 1.

    Past a million days, days in scientific notation ("1.10e6 days"); a nonzero
    time too short for `decimals` in seconds, seconds likewise ("2.00e-9 s").
    """
    s = _finite(seconds)
    for unit, size in (("days", SECONDS_PER_DAY), ("h", SECONDS_PER_HOUR), ("min", SECONDS_PER_MINUTE)):
        if abs(s) >= size:
            return f"{_fixed(s / size, decimals)} {unit}"
    return f"{_fixed(s, decimals)} s"


def plain(value: float) -> str:
    """The shortest plain form of a number, as a form field shows it: 405, 15.6, 16384."""
    return format(_finite(value), ".15g")
