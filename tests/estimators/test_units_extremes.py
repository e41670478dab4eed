"""Issue 15: every formatter stays readable across the whole range of finite values.

mfu = 1e-300 once printed a 309-digit duration and "0.0 FLOP/s"; a figure too
large or too small for fixed decimals now switches to scientific notation.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimators import units

# Longer than any of these ever needs: "-1.23e-308 YFLOP/s" and the like.
READABLE = 24
FORMATTERS = {
    "si": lambda v: units.si(v, "FLOP/s", 1),
    "bytes": lambda v: units.bytes_(v, 1),
    "binary bytes": lambda v: units.bytes_(v, 1, binary=True),
    "count": lambda v: units.count(v, 2),
    "times": lambda v: units.times(v, 2),
    "fixed": lambda v: units.fixed(v, 1),
    "hours": lambda v: units.hours(v, 1),
    "duration": lambda v: units.duration(v, 1),
}


@pytest.mark.parametrize("name", FORMATTERS)
@given(value=st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_value_prints_in_a_readable_length(name, value):
    text = FORMATTERS[name](value)
    assert len(text) <= READABLE, text


@pytest.mark.parametrize(
    "text, expected",
    [
        (units.duration(1e307), "1.16e302 days"),  # mfu = 1e-300 on the training-time widget
        (units.duration(86400 * 1.1e6), "1.10e6 days"),
        (units.duration(86400 * 999_999), "999999.0 days"),
        (units.duration(2e-9), "2.00e-9 s"),
        (units.duration(0), "0.0 s"),
        (units.si(1e-300, "FLOP/s", 1), "1.00e-300 FLOP/s"),  # was "0.0 FLOP/s"
        (units.si(1e40, "FLOP/s", 1), "1.00e40 FLOP/s"),  # past the largest prefix
        (units.count(1.06e109, 2), "1.06e109"),
        (units.si(6.4816e18, "FLOP/s", 1), "6.5 EFLOP/s"),  # ordinary values are unchanged
        (units.duration(5.85e6), "67.7 days"),
    ],
)
def test_extreme_values_switch_to_scientific_notation(text, expected):
    assert text == expected
