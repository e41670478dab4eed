"""The units policy holds for every formatter across its whole range.

Each text is read back by a parser of this test's own, from the SI brochure's
prefixes and the usual units of time, so a slip in units.py's tables or
rounding cannot hide behind the same slip here. A few thousand values spread
log-uniformly from 1e-12 to 1e30, every power of 1000 (and of 1024) just below
and above, the ends of a minute, hour, day and year, and figures that round up
across a boundary, each positive, negative and zero.
"""

import math
import random
import re

import pytest

from estimators import EstimatorError, units

# SI brochure, 9th edition, table 7 (yocto to yotta), by power of ten.
SI = {"y": -24, "z": -21, "a": -18, "f": -15, "p": -12, "n": -9, "µ": -6, "m": -3, "": 0,
      "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18, "Z": 21, "Y": 24}
# IEC 80000-13 binary prefixes, by power of 1024.
IEC = {"": 0, "Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
# Model cards' count suffixes, by power of ten.
MODEL_CARD = {"": 0, "K": 3, "M": 6, "B": 9, "T": 12}
JULIAN_YEAR = 365.25 * 86400
PLAIN = (1e-3, 1e6)  # a figure with no larger unit (unitless, years) prints in full between these
# name: (seconds, how many of it make the next larger unit)
TIME = {"ps": (1e-12, 1000), "ns": (1e-9, 1000), "µs": (1e-6, 1000), "ms": (1e-3, 1000), "s": (1, 60),
        "min": (60, 60), "h": (3600, 24), "day": (86400, 365.25), "days": (86400, 365.25),
        "year": (JULIAN_YEAR, PLAIN[1]), "years": (JULIAN_YEAR, PLAIN[1])}
DIGITS = 3  # the policy's significant digits for every kind of quantity


def scales(table: dict, base: float, unit: str) -> dict:
    """Suffix text -> (scale, the next prefix's scale; past the top, where scientific notation starts)."""
    ordered = sorted(table.items(), key=lambda kv: kv[1])
    result = {}
    for i, (prefix, power) in enumerate(ordered):
        upper = base ** (ordered[i + 1][1] if i + 1 < len(ordered) else power + 1)
        result[prefix + unit] = (base**power, upper)
    return result


def si_scales(unit, lowest=-24):
    return scales({p: e // 3 for p, e in SI.items() if e >= lowest}, 1000, unit)


# name: (formatter, space before the unit, suffix -> (scale, next scale), whether below the
# smallest scale prints plain (True) or in scientific notation (False))
KINDS = {
    "FLOP/s": (lambda v: units.si(v, "FLOP/s"), " ", si_scales("FLOP/s"), False),
    "B/s": (lambda v: units.si(v, "B/s"), " ", si_scales("B/s", 0), True),
    "bytes": (units.bytes_, " ", si_scales("B", 0), True),
    "binary bytes": (lambda v: units.bytes_(v, binary=True), " ", scales(IEC, 1024, "B"), True),
    "count": (units.count, "", scales({p: e // 3 for p, e in MODEL_CARD.items()}, 1000, ""), True),
    "duration": (units.duration, " ", {u: (s, s * n) for u, (s, n) in TIME.items()}, False),
    "number": (units.number, "", {"": (1, PLAIN[1])}, True),
    "times": (units.times, "", {"×": (1, PLAIN[1])}, True),
    "percent": (lambda v: units.percent(v / 100), "", {"%": (1, PLAIN[1])}, True),
    "sci": (units.sci, "", {"": (1, PLAIN[1])}, False),
}

_TEXT = re.compile(r"(?P<sign>-?)(?P<mantissa>[\d,]+(?:\.\d+)?)(?:e(?P<exp>-?\d+))?(?P<space> ?)(?P<suffix>\D*)")


def rounded(x: float, digits: int = DIGITS) -> float:
    return round(x, digits - 1 - math.floor(math.log10(x))) if x else 0.0


def significant(mantissa: str) -> int:
    """Digits from the first nonzero one; a whole number's trailing zeros may be rounding's, so not counted."""
    digits = mantissa.replace(",", "")
    if "." not in digits:
        digits = digits.rstrip("0")
    return len(digits.replace(".", "").lstrip("0"))


def boundary_values() -> list:
    values = [59.99, 59.996, 60, 3599.9, 3600, 86399, 86400, 364.9 * 86400, 365.2 * 86400, JULIAN_YEAR,
              999.96e9, 999.94e9, 1023.99 * 1024, 99.95, 9.9996, 0.00099996, 999_999.6]
    for power in range(-30, 31):
        for factor in (1 - 1e-9, 1, 1 + 1e-9, 0.99996, 0.9994):
            values += [factor * 10.0**power, factor * 1000.0 ** (power / 3)]
    for power in range(8):
        values += [1024.0**power * f for f in (1 - 1e-9, 1, 0.99996)]
    for size in (1, 60, 3600, 86400, JULIAN_YEAR):
        values += [size * f for f in (1 - 1e-9, 1, 1 + 1e-9, 0.99996, 0.9995, 59.9996, 1e6 * 0.99996)]
    return values


VALUES = sorted(set(boundary_values() + [10 ** random.Random(8).uniform(-12, 30) for _ in range(3000)]))


def check(kind: str, value: float) -> str | None:
    """What is wrong with the text of `value`, or None."""
    formatter, space, suffixes, plain_below = KINDS[kind]
    text = formatter(value)
    if kind == "percent" and value and rounded(abs(value)) < PLAIN[0]:  # a share too small for a figure reads in words
        return None if text == ("under 0.001%" if value > 0 else "over -0.001%") else "a tiny share not in words"
    if re.search(r"nan|inf|e\+|\.\d*0(?!\d)|(?<![\d.,])1 (days|years)\b", text):
        return "forbidden form"
    m = _TEXT.fullmatch(text)
    if not m or m["suffix"] not in suffixes:
        return "unparsable"
    if value == 0:
        return None if text == f"0{m['space']}{m['suffix']}" and not m["sign"] else "zero"
    if (m["sign"] == "-") != (value < 0) or m["space"] != (space if m["suffix"] else ""):
        return "sign or spacing"
    scale, upper = suffixes[m["suffix"]]
    mantissa = float(m["mantissa"].replace(",", "")) * 10 ** int(m["exp"] or 0)
    magnitude = abs(value) / scale
    # Digits shown: the policy's, or the whole part in full of a figure with no larger unit (unitless, years).
    whole = len(str(int(mantissa))) if upper / scale == PLAIN[1] and m["exp"] is None and mantissa >= 1 else 0
    digits = max(DIGITS, whole)
    if significant(m["mantissa"]) > digits:
        return "too many digits"
    if abs(mantissa - magnitude) > 0.5 * 10 ** (math.floor(math.log10(mantissa)) - digits + 1) * (1 + 1e-9):
        return "does not read back"
    smallest = min(s for s, _ in suffixes.values())
    top = max(suffixes.values())
    if m["exp"] is not None:  # scientific notation: only beyond the prefixes (or outside a plain figure's range)
        beyond_top = rounded(abs(value) / top[0]) >= top[1] / top[0]
        below = rounded(abs(value) / smallest) < (PLAIN[0] if plain_below else 1)
        return None if beyond_top or below or kind == "sci" else "scientific inside the prefix range"
    if kind == "sci":
        return "not scientific"
    if scale == smallest and plain_below:
        return None if PLAIN[0] <= mantissa < upper / scale else "plain figure out of range"
    if not 1 <= mantissa < upper / scale:
        return "not the largest unit that keeps the figure >= 1"
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_every_text_reads_back_to_its_value_in_the_largest_unit(kind):
    problems = [(v, KINDS[kind][0](v), why) for sign in (1, -1) for v in [sign * x for x in VALUES] + [0.0]
                if (why := check(kind, v))]
    assert not problems, problems[:10]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, True, "8", None])
def test_what_is_not_a_finite_number_is_refused(kind, bad):
    formatter = units.percent if kind == "percent" else KINDS[kind][0]  # not through the test's division
    with pytest.raises(EstimatorError):
        formatter(bad)


def test_no_formatter_takes_a_count_of_decimals():
    import inspect

    for name, fn in inspect.getmembers(units, inspect.isfunction):
        if fn.__module__ == units.__name__ and not name.startswith("_"):
            assert not {"decimals", "digits"} & set(inspect.signature(fn).parameters), name


@pytest.mark.parametrize(
    "text, expected",
    [
        (units.bytes_(405e9 * 2), "810 GB"),  # Llama 3 405B's BF16 weights at Meta's round count
        (units.bytes_(405e9 * 16), "6.48 TB"),  # and its mixed-precision Adam state
        (units.bytes_(80e9), "80 GB"),
        (units.bytes_(6.5e12), "6.5 TB"),
        (units.bytes_(999.96e9), "1 TB"),  # rounded first, then the prefix chosen
        (units.bytes_(0), "0 B"),
        (units.bytes_(-5e9), "-5 GB"),
        (units.bytes_(80 * 2**30, binary=True), "80 GiB"),
        (units.count(405e9), "405B"),
        (units.count(15.6e12), "15.6T"),
        (units.count(2e15), "2e15"),  # past T, no "2000T"
        (units.sci(6 * 405e9 * 15.6e12), "3.79e25"),
        (units.si(2e-3, "FLOP/s"), "2 mFLOP/s"),
        (units.duration(59.99), "1 min"),
        (units.duration(23.999 * 3600), "1 day"),
        (units.duration(2 * 86400), "2 days"),
        (units.duration(1e-3), "1 ms"),
        (units.duration(1e4 * 86400), "27.4 years"),
        (units.percent(0.4), "40%"),
        (units.number(1875), "1,875"),  # a whole part is never rounded away
        (units.integer(16384), "16,384"),
    ],
)
def test_readable_examples(text, expected):
    assert text == expected


@pytest.mark.parametrize("seconds, text", [
    (59.96, "1 min"),  # 0.999 min, and 60.0 s at three digits: the policy's one minute, never "60 s"
    (3597, "1 h"),  # 59.95 min rounds to 60 min
    (86292, "1 day"),  # 23.97 h rounds to 24 h
    (59.94, "59.9 s"),  # still short of a minute at three digits
])
def test_a_duration_that_rounds_up_to_the_next_unit_reads_one_of_it(seconds, text):
    assert units.duration(seconds) == text


def test_a_half_rounds_up_as_a_reader_rounds_by_hand():
    # 466 interruptions × 30 min / 2 = 116.5 h exactly: the seed article's "≈ 117 h".
    assert units.duration(116.5 * 3600, "h") == "117 h"
    assert units.number(116.5) == "117" and units.number(-116.5) == "-117"


def test_a_duration_capped_at_hours_never_climbs_to_days_and_names_a_bad_unit():
    assert units.duration(5e6, "h") == "1,389 h" and units.duration(30, "h") == "30 s"
    with pytest.raises(EstimatorError) as error:
        units.duration(1, "hours")
    assert error.value.argument == "largest"


def test_a_figure_set_apart_takes_the_digits_that_tell_it_from_the_other():
    # The H100's dense BF16 peak: 989 TFLOPS (datasheet) against 989.4 (Hopper whitepaper).
    assert units.apart(989e12, 989.4e12, "FLOP/s") == "989 TFLOP/s"
    assert units.apart(989.4e12, 989e12, "FLOP/s") == "989.4 TFLOP/s"
    assert units.apart(26.6738e6, 26.6846e6) == "26.67M"  # a count, unitless
    assert units.apart(5e9, 5e9, "B") == "5 GB"  # equal figures keep the policy's digits
    assert units.kind_of(units.apart, 1e12, "FLOP/s") != units.kind_of(units.si, "FLOP/s")


@pytest.mark.parametrize("value, unit, text", [
    (1, "GPUs", "GPU"), (2, "GPUs", "GPUs"), (0, "GPUs", "GPUs"), (1, "sequences per GPU", "sequence per GPU"),
    (1, "billion parameters", "billion parameters"), (1, "% of peak", "% of peak"), (1, "in the window", "in the window"),
    (1.0, "days", "day"), (1.5, "days", "days"),
])
def test_a_unit_reads_singular_after_one_and_as_given_otherwise(value, unit, text):
    assert units.unit_after(value, unit) == text


def test_a_count_and_its_noun_read_together():
    assert units.noun(1, "GPUs") == "1 GPU"
    assert units.noun(16384, "GPUs") == "16,384 GPUs"
    assert units.noun(1, "saves", "one") == "one save"


@pytest.mark.parametrize("before, after", [(2e9, 5e9), (3.1e12, 7.5e11), (-4.0, -1.0)])
def test_a_difference_of_two_figures_of_one_sign_is_their_ratio(before, after):
    for formatter, args in ((units.bytes_, ()), (units.si, ("FLOP/s",)), (units.duration, ())):
        assert units.difference(before, after, formatter, *args) == units.times(after / before)


def test_a_share_moves_by_points_and_a_figure_across_zero_by_its_change():
    assert units.difference(0.2, 0.215, units.percent) == f"+{units.number(1.5)} points"
    assert units.difference(0.4, 0.1, units.percent) == f"-{units.number(30)} points"
    assert units.difference(0, 3e9, units.bytes_) == "+" + units.bytes_(3e9)
    assert units.difference(2.0, -3.0, units.si, "W") == units.si(-5.0, "W")


def test_figures_that_print_alike_are_the_same_whatever_their_digits_beyond():
    assert units.difference(405e9, 405.1e9, units.count) == "same"
    assert units.difference(405e9, 406e9, units.count) != "same"


def test_a_share_too_small_for_the_policys_digits_reads_in_words():
    # An asynchronous save of Llama 3 405B pauses the GPUs for milliseconds every 30 minutes: its share
    # of the run once read "3.01e-4% of the run". Under the smallest plain figure, it says so.
    smallest = units.percent(PLAIN[0] / 100)
    assert smallest == "0.001%"
    assert units.percent(3.01e-6) == f"under {smallest}"
    assert units.percent(-3.01e-6) == f"over -{smallest}"
    assert units.percent(0.99996e-5) == smallest  # rounds up to the smallest plain figure: a figure
    from pyodide_widgets.widgets import checkpoint_modes

    out = checkpoint_modes.update(checkpoint_modes.presets()["async"]["state"])["outputs"]
    assert out["run_share"].startswith(f"under {smallest} of the run")
