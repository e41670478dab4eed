"""Axis labels as the units policy writes them: a Vega `labelExpr` per kind of axis.

An axis picks its own ticks (Vega's round steps), so its labels cannot be
preformatted as a tooltip is: each expression re-enacts an estimators.units
formatter on the tick, `datum.value`, built from that module's own tables
(SIGNIFICANT, the prefix tables, PLAIN_RANGE), so an axis reads "1K" and
"10 GB" where the prose does (D3's "~s" writes "1k" and "10G"). It runs under
vega-interpreter in the browser and in vl-convert at build time;
tests/build/test_axis_labels.py draws it and compares the labels with units.

Vega expressions have no variables: each helper returns an expression text
that the next splices in. Both sides round in decimal (`toExponential`,
Python's "e" format); they differ only on a value exactly halfway in binary
(1.125 to three digits), which no axis tick is.
"""

import json

from estimators import units

MAGNITUDE = "abs(datum.value)"
SIGN = "(datum.value < 0 ? '-' : '')"


def _text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _rounded(x: str, digits: int) -> str:
    """units._round: x to `digits` significant digits, as a number."""
    return f"toNumber(format({x}, '.{digits - 1}e'))"


def _digits(x: str, digits: int) -> str:
    """units._digits: at most `digits` significant digits, no trailing zeros."""
    return f"format({x}, '.{digits}~r')"


def _sci(x: str, digits: int) -> str:
    """units._sci: "1.23e15", "1e-30"."""
    return f"replace(format({x}, '.{digits - 1}~e'), '+', '')"


def _plain(x: str, digits: int) -> str:
    """units._plain: a figure of `digits` digits, or of all its whole part's (1,875), with thousands
    separators; scientific outside PLAIN_RANGE."""
    low, high = units.PLAIN_RANGE
    whole = 10 ** (digits - 1)  # from here up the whole part has at least `digits` digits: rounded to a unit
    return (f"(round({x}) >= {high} ? {_sci(x, digits)} : {x} >= {whole} ? format({x}, ',.0f') : "
            f"{_rounded(x, digits)} < {low} ? {_sci(x, digits)} : {_digits(x, digits)})")


def _prefixed(unit: str, rule: units.Prefixes) -> str:
    """units._prefixed: the largest prefix that keeps the rounded figure >= 1; scientific beyond the largest;
    below the smallest, a plain figure if it is "" and scientific otherwise."""
    digits = units.SIGNIFICANT[rule.kind]

    def scaled(power: int) -> str:
        return f"{MAGNITUDE} / {rule.base ** power}" if power >= 0 else f"{MAGNITUDE} * {rule.base ** -power}"

    powers = sorted(rule.table, reverse=True)
    beyond = f"{_sci(MAGNITUDE, digits)} + {_text(f' {unit}'.rstrip())}"
    if powers[-1] == 0:
        below = f"{_plain(MAGNITUDE, digits)} + {_text(f'{rule.space}{unit}'.rstrip())}"
    else:
        below = beyond
    chain = f"{_rounded(scaled(powers[0]), digits)} >= {rule.base} ? {beyond} : "
    for power in powers:
        text = f"{_digits(scaled(power), digits)} + {_text(rule.space + rule.table[power] + unit)}"
        chain += f"{_rounded(scaled(power), digits)} >= 1 ? {text} : "
    return f"{MAGNITUDE} == 0 ? {_text(f'0{rule.space}{unit}')} : {SIGN} + ({chain}{below})"


def count() -> str:
    """As units.count: 1K, 405B, 15.6T."""
    return _prefixed("", units.COUNT)


def bytes_() -> str:
    """As units.bytes_: 0 B, 80 GB, 5.67 TB."""
    return _prefixed("B", units.BYTES)


def si(unit: str) -> str:
    """As units.si(value, unit): 989 TFLOP/s, 2 mFLOP/s."""
    return _prefixed(unit, units.Prefixes.si(unit))


def number() -> str:
    """As units.number, for a unitless axis: 0.75, 18.4, 1,875."""
    digits = units.SIGNIFICANT["ratio"]
    return f"{MAGNITUDE} == 0 ? '0' : {SIGN} + {_plain(MAGNITUDE, digits)}"


def times(x: str) -> str:
    """As units.times, of a positive expression `x` rather than a tick: "15.4×"."""
    return f"{_plain(x, units.SIGNIFICANT['ratio'])} + '×'"
