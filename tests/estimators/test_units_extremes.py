"""Every formatter stays readable across the whole range of finite values.

mfu = 1e-300 once printed a 309-digit duration and "0.0 FLOP/s"; a figure too
large or too small for the units policy's prefixes and units now switches to scientific notation.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimators import units

# Longer than any of these ever needs: "-1.23e-308 YFLOP/s" and the like.
READABLE = 24
FORMATTERS = {
    "si": lambda v: units.si(v, "FLOP/s"),
    "bytes": units.bytes_,
    "binary bytes": lambda v: units.bytes_(v, binary=True),
    "count": units.count,
    "times": units.times,
    "number": units.number,
    "percent": units.percent,
    "sci": units.sci,
    "duration": units.duration,
}


@pytest.mark.parametrize("name", FORMATTERS)
@given(value=st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_value_prints_in_a_readable_length(name, value):
    text = FORMATTERS[name](value)
    assert len(text) <= READABLE, text


@pytest.mark.parametrize(
    "text, expected",
    [
        (units.duration(1e307), "3.17e299 years"),  # mfu = 1e-300 on the training-time widget
        (units.duration(86400 * 1.1e6), "3,012 years"),
        (units.duration(2e-9), "2 ns"),
        (units.duration(2e-15), "2e-15 s"),  # below a picosecond
        (units.duration(0), "0 s"),
        (units.si(1e-300, "FLOP/s"), "1e-300 FLOP/s"),  # was "0.0 FLOP/s"
        (units.si(1e40, "FLOP/s"), "1e40 FLOP/s"),  # past the largest prefix
        (units.count(1.06e109), "1.06e109"),
        (units.duration(5.85e6), "67.7 days"),
    ],
)
def test_extreme_values_switch_to_scientific_notation(text, expected):
    assert text == expected
