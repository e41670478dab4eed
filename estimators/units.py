"""Units policy: the one place a number becomes text.

Decimal SI prefixes throughout (1 GB = 10⁹ bytes, 1 EFLOP/s = 10¹⁸ FLOP/s);
a binary unit appears only where it is named as such (GiB = 2³⁰ bytes).
Counts of parameters and tokens use the K / M / B / T suffixes of model
names (405B parameters, 15.6T tokens).

No formatter takes a count of decimals: how many significant digits a kind of
quantity shows is decided once, in SIGNIFICANT below, so an article, a widget,
a chart and the CLI that show the same quantity show the same text. A figure
is rounded first and its prefix or unit chosen after, so 999.96 GB reads
"1 TB" rather than "1000 GB". Trailing zeros after the decimal point are
dropped ("80 GB", "6.5 TB"): three significant digits are an upper bound, and
a zero the rounding leaves says nothing the shorter text does not.
"""

import decimal
import functools
import math
from typing import NamedTuple

from .errors import EstimatorError

# Significant digits per kind of quantity. Three is what the sources carry
# (Meta's 15.6T tokens, a GPU's 989 TFLOP/s, an MFU of 38%-43%) and what keeps
# neighbouring figures apart (6.48 TB beside 6.5 TB). A percentage is a ratio
# times a hundred, so it gets a ratio's digits: 38.2% and 0.382 say the same.
SIGNIFICANT = {
    "bytes": 3,
    "si": 3,  # FLOPs, FLOP/s, bytes per second, any unit with SI prefixes
    "count": 3,  # parameters, tokens, sequences
    "duration": 3,
    "ratio": 3,  # times() and number(): multiples and unitless figures
    "percent": 3,
    "sci": 3,
}

# Decimal prefixes, 10⁻²⁴ to 10²⁴, indexed by the power of 1000 they stand for.
SI_PREFIXES = {-8: "y", -7: "z", -6: "a", -5: "f", -4: "p", -3: "n", -2: "µ", -1: "m",
               0: "", 1: "k", 2: "M", 3: "G", 4: "T", 5: "P", 6: "E", 7: "Z", 8: "Y"}
# Suffixes for counts of things, as model cards write them; none below one
# (a third of a token is no "333m tokens").
COUNT_SUFFIXES = {0: "", 1: "K", 2: "M", 3: "B", 4: "T"}
BINARY_PREFIXES = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}
# Bytes take no prefix below one: a thousandth of a byte is no millibyte anyone reads.
BYTE_PREFIXES = {p: s for p, s in SI_PREFIXES.items() if p >= 0}


class Prefixes(NamedTuple):
    """How a prefixed formatter writes a figure: SIGNIFICANT[kind] digits, a prefix of `table`
    (powers of `base`), `space` between the figure and the prefix. The charts' axis labels
    (figures/_axis_labels.py) are built from the same."""

    kind: str
    base: int
    table: dict
    space: str

    @staticmethod
    def si(unit: str) -> "Prefixes":
        """What si() gives `unit`: the SI prefixes, none below one for bytes ("B", "B/s")."""
        return Prefixes("si", 1000, BYTE_PREFIXES if unit == "B" or unit.startswith("B/") else SI_PREFIXES, " ")


COUNT = Prefixes("count", 1000, COUNT_SUFFIXES, "")
BYTES = Prefixes("bytes", 1000, BYTE_PREFIXES, " ")
BINARY_BYTES = Prefixes("bytes", 1024, BINARY_PREFIXES, " ")


SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86400
# The Julian year: the mean calendar year over a leap cycle (and the year of
# the light-year), so a run of years is not a quarter-day short per year.
SECONDS_PER_YEAR = 365.25 * SECONDS_PER_DAY
# Units of time below years, largest first: the first whose rounded figure is >= 1 is taken.
_TIME_UNITS = (("day", SECONDS_PER_DAY), ("h", SECONDS_PER_HOUR), ("min", SECONDS_PER_MINUTE), ("s", 1),
               ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9), ("ps", 1e-12))
# A unitless figure has no prefix to take its thousands: it is printed in full
# from a thousandth up to a million, and in scientific notation outside (a wall
# of digits or of leading zeros reads worse than 1.23e7).
PLAIN_RANGE = (1e-3, 1e6)


# A widget's answer formats up to a few hundred figures, most of them the same from one state of its
# form to the next (a change of one field leaves most parts of a bill as they were), and exact decimal
# rounding is most of what a figure costs: each rounding formatter remembers its latest texts. Typed,
# because True and 1 are equal keys, yet only one of them is a number to format.
_remembered = functools.lru_cache(maxsize=1024, typed=True)


def _finite(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EstimatorError("value", value, "a finite number to format")
    return value


def _round(value: float, digits: int) -> float:
    """`value` rounded to `digits` significant digits, a half away from zero as a reader rounds by
    hand (116.5 h is 117 h; the binary value decides, so 2.675, stored just below, is 2.67)."""
    exact = decimal.Decimal(value)
    if not exact:
        return 0.0
    step = decimal.Decimal(1).scaleb(exact.adjusted() - (digits - 1))
    return float(exact.quantize(step, rounding=decimal.ROUND_HALF_UP))


def _rounded_unless_below_half(value: float, digits: int) -> float:
    """`value` rounded as `_round` rounds it, or as it is below a half: rounding to any number of
    significant digits moves such a figure by at most 0.05, so it stays below 1 either way. A unit
    or prefix is picked by whether its figure rounds to 1 or more, and most of those tried are far
    below; exact decimal rounding is the costly part of a widget's answer."""
    return _round(value, digits) if value >= 0.5 else value


def _digits(rounded: float, digits: int, grouping: str = "") -> str:
    """A rounded, nonzero magnitude with at most `digits` significant digits and no trailing zeros."""
    decimals = max(0, digits - 1 - math.floor(math.log10(rounded)))
    text = f"{rounded:{grouping}.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _sign(value: float) -> str:
    return "-" if value < 0 else ""


def _sci(magnitude: float, digits: int) -> str:
    mantissa, exponent = f"{magnitude:.{digits - 1}e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def _plain(magnitude: float, digits: int) -> str:
    """A nonzero magnitude without prefix: `digits` significant digits, but never
    fewer than its whole part has (1875 stays 1,875, not 1,880); scientific outside PLAIN_RANGE."""
    if magnitude >= PLAIN_RANGE[1]:  # rounding only carries upward, so already past the range
        return _sci(magnitude, digits)
    whole_digits = len(str(int(magnitude))) if magnitude >= 1 else 0
    rounded = _round(magnitude, max(digits, whole_digits))
    if not PLAIN_RANGE[0] <= rounded < PLAIN_RANGE[1]:
        return _sci(magnitude, digits)
    return _digits(rounded, max(digits, len(str(int(rounded))) if rounded >= 1 else 0), ",")


def _prefixed(value: float, unit: str, rule: Prefixes, digits: int = 0) -> str:
    """The largest prefix that keeps the rounded mantissa >= 1; scientific beyond the largest.

    Below the smallest prefix: a plain figure if the smallest is "" (a count, bytes),
    scientific otherwise (1e-30 FLOP/s).
    """
    digits, base, prefixes, space = digits or SIGNIFICANT[rule.kind], rule.base, rule.table, rule.space
    magnitude = abs(_finite(value))
    if magnitude == 0:
        return f"0{space}{unit}"
    for power in sorted(prefixes, reverse=True):
        mantissa = _rounded_unless_below_half(magnitude / base**power if power >= 0 else magnitude * base**-power, digits)
        if mantissa >= 1:
            break
    if mantissa >= base:
        return f"{_sign(value)}{_sci(magnitude, digits)} {unit}".rstrip()
    if mantissa < 1:
        text = _plain(magnitude, digits) if power == 0 else _sci(magnitude, digits)
        return f"{_sign(value)}{text}{space if power == 0 else ' '}{unit}".rstrip()
    return f"{_sign(value)}{_digits(mantissa, digits)}{space}{prefixes[power]}{unit}"


@_remembered
def si(value: float, unit: str) -> str:
    """6.4816e18, "FLOP/s" -> "6.48 EFLOP/s"; 2e-3, "FLOP/s" -> "2 mFLOP/s"; bytes ("B", "B/s") from one up."""
    return _prefixed(value, unit, Prefixes.si(unit))


@_remembered
def bytes_(value: float, binary: bool = False) -> str:
    """Bytes with decimal prefixes (810 GB), or binary ones (GiB) when asked."""
    return _prefixed(value, "B", BINARY_BYTES if binary else BYTES)


@_remembered
def count(value: float) -> str:
    """405e9 -> "405B"; 26.62e6 -> "26.6M". No space, as model names write it."""
    return _prefixed(value, "", COUNT)


@_remembered
def apart(value: float, other: float, unit: str = "") -> str:
    """`value` with as many significant digits as it takes to read differently from `other`, the
    figure it is set beside, and never fewer than the policy's: 989.4e12 beside 989e12, "FLOP/s" ->
    "989.4 TFLOP/s"; a count without a unit (26.67M beside 26.68M). The digits are decided by the
    pair, not by the author, so the two figures of a comparison always show their difference."""
    rule = Prefixes.si(unit) if unit else COUNT
    _finite(other)
    for digits in range(SIGNIFICANT[rule.kind], 16):
        text = _prefixed(value, unit, rule, digits)
        if text != _prefixed(other, unit, rule, digits):
            break
    return text


def sci(value: float) -> str:
    """Scientific notation: 3.7915e25 -> "3.79e25"; 0 -> "0"."""
    magnitude = abs(_finite(value))
    return f"{_sign(value)}{_sci(magnitude, SIGNIFICANT['sci'])}" if magnitude else "0"


def integer(value: float) -> str:
    """A whole number, exact, with thousands separators: 16,384."""
    return f"{round(_finite(value)):,}"


@_remembered
def number(value: float) -> str:
    """A unitless figure: 18.43 -> "18.4"; 1875 -> "1,875"; 0.75 -> "0.75"."""
    magnitude = abs(_finite(value))
    return f"{_sign(value)}{_plain(magnitude, SIGNIFICANT['ratio'])}" if magnitude else "0"


@_remembered
def percent(fraction: float) -> str:
    """0.4 -> "40%"; 0.38234 -> "38.2%"; 3.01e-6, under the smallest plain figure, -> "under 0.001%"."""
    magnitude = abs(_finite(fraction)) * 100
    if math.isinf(magnitude):  # a fraction near the float limit: its hundredfold in exact decimal arithmetic
        magnitude = abs(decimal.Decimal(fraction)) * 100
    if not magnitude:
        return "0%"
    if _round(magnitude, SIGNIFICANT["percent"]) < PLAIN_RANGE[0]:
        # A share too small for a plain figure says it is under the smallest one, in words rather than
        # in scientific notation: "3.01e-4% of the run" reads as a typo.
        smallest = _plain(PLAIN_RANGE[0], SIGNIFICANT["percent"])
        return f"under {smallest}%" if fraction > 0 else f"over -{smallest}%"
    return f"{_sign(fraction)}{_plain(magnitude, SIGNIFICANT['percent'])}%"


@_remembered
def times(ratio: float) -> str:
    """A multiple: 93.75 -> "93.8×"."""
    magnitude = abs(_finite(ratio))
    return f"{_sign(ratio)}{_plain(magnitude, SIGNIFICANT['ratio'])}×" if magnitude else "0×"


@_remembered
def duration(seconds: float, largest: str = "") -> str:
    """Seconds in the largest of years, days, h, min, s, ms, µs, ns, ps that keeps
    the rounded figure >= 1: 59.99 -> "1 min"; 86400 -> "1 day"; 3.15e9 -> "99.8 years".

    Years have no larger unit: past a million, scientific ("1.1e6 years"); below a
    picosecond, seconds in scientific notation ("5e-13 s"). `largest` ("h") caps
    the unit, for a quantity its sources give in hours: 419,400 s -> "117 h".
    """
    digits = SIGNIFICANT["duration"]
    magnitude = abs(_finite(seconds))
    units = [unit for unit, _ in _TIME_UNITS]
    if largest and largest not in units:
        raise EstimatorError("largest", largest, "one of " + ", ".join(units))
    if magnitude == 0:
        return "0 s"
    sign = _sign(seconds)
    years = _rounded_unless_below_half(magnitude / SECONDS_PER_YEAR, digits)
    if years >= 1 and not largest:
        text = _plain(magnitude / SECONDS_PER_YEAR, digits)
        return f"{sign}{text} {'year' if text == '1' else 'years'}"
    larger = None  # the unit above the one being tried
    allowed = _TIME_UNITS[units.index(largest):] if largest else _TIME_UNITS
    if largest and _round(magnitude / allowed[0][1], digits) >= 10 ** digits:
        return f"{sign}{_plain(magnitude / allowed[0][1], digits)} {largest}"  # 1,230 h: no larger unit asked for
    for unit, size in allowed:
        figure = _rounded_unless_below_half(magnitude / size, digits)
        if figure >= 1:
            # 59.96 s is 0.999 min, yet rounds to 60 s: a figure that rounds up to the larger unit reads as one of it.
            if larger is not None and figure * size >= larger[1]:
                return f"{sign}1 {larger[0]}"
            text = _digits(figure, digits)
            return f"{sign}{text} {unit + 's' if unit == 'day' and text != '1' else unit}"
        larger = (unit, size)
    return f"{sign}{_sci(magnitude, digits)} s"


def plain(value: float) -> str:
    """The shortest plain form of a number, as a form field shows it: 405, 15.6, 16384."""
    return format(_finite(value), ".15g")


def unit_after(value: float, unit: str) -> str:
    """`unit` as it reads after `value`: its first word singular when the value is one.

    "GPUs" after 1 is "GPU", "stages per layer" "stage per layer"; a unit whose first word is no
    plural ("billion parameters", "% of peak", "GB") reads as given.
    """
    first, _, rest = unit.partition(" ")
    if _finite(value) != 1 or not first.endswith("s") or first.endswith("ss") or not first.isalpha():
        return unit
    return f"{first[:-1]} {rest}".rstrip()


def noun(value: float, unit: str, text: str = "") -> str:
    """`value` printed (`text`, or as an integer) and its unit after it: "1 GPU", "16,384 GPUs"."""
    return f"{text or integer(value)} {unit_after(value, unit)}"


def difference(before: float, after: float, formatter, *args) -> str:
    """How `after` reads against `before`, two figures of one kind that `formatter` (with `args`) prints:
    a share's change in percentage points ("+1.5 points"); the ratio of two figures of one sign
    ("2.5×", "0.4×"); otherwise the change in the figure's own terms ("+3 GB"); "same" when the two
    print alike. A share is compared by its change because a ratio of shares (40% against 20%: 2×)
    reads as a multiple of the quantity itself."""
    if formatter(before, *args) == formatter(after, *args):
        return "same"
    if formatter is percent:
        return f"{'+' if after > before else ''}{number((after - before) * 100)} points"
    if before * after > 0:
        return times(after / before)
    change = after - before
    return ("+" if change > 0 else "") + (number(change) if formatter is apart else formatter(change, *args))


# What each formatter prints, for the build's one-text check (one value of one kind reads one
# way, whichever formatter printed it). The rounded figures of count, sci, number and plain are
# one kind; an exact integer (405,853,388,800) is a kind of its own beside its rounded 406B, as
# binary bytes are beside decimal ones.
_KINDS = {count: "number", sci: "number", number: "number", plain: "number", integer: "exact number",
          duration: "seconds", percent: "fraction", times: "ratio", bytes_: "bytes"}


def kind_of(formatter, *args, **kwargs) -> str:
    """The kind of quantity a call of `formatter` prints: `si(x, "B")` is bytes like `bytes_(x)`."""
    if formatter is apart:  # more digits than the kind's own: a kind of its own beside them
        return f"{(args[1:] or ('number',))[0]} set apart"
    if formatter is si:
        return "bytes" if args[0] == "B" else str(args[0])
    if formatter is bytes_ and kwargs.get("binary"):
        return "binary bytes"
    return _KINDS[formatter]


# The formatters a page, a widget or a card prints a number with (a page's filters, by name
# without the trailing underscore that keeps `bytes_` from shadowing the built-in).
FORMATTERS = {fn.__name__.rstrip("_"): fn for fn in (si, apart, *_KINDS)}
