"""A chart's text alternatives read its numbers as the page prints them.

Every widget's chart or diagram, and each chart folded under it, drawn at every preset, is scanned: each
aria-label, <title> and <desc> holds only text the units formatters made, so
no raw float ("8.63245779872e+13", "202358964.773") and no long unformatted
integer reaches a screen reader.
"""

import re

import pytest

import pyodide_widgets
from site_build import render

# A float as Python or JavaScript prints it (more digits than the policy, "e+"),
# or an integer of seven digits or more without separators. The leading zeros of a
# small figure are not digits of it: 0.00507 t is three, as units.number writes it.
RAW = re.compile(r"(?<![\d.])(?:0\.0*+|[1-9]\d*\.)\d{4,}|e\+|(?<![\d,.])\d{7,}")
ALTERNATIVES = re.compile(r'aria-label="([^"]*)"|<title>([^<]*)</title>|<desc>([^<]*)</desc>')

CASES = [
    (name, chart, preset)
    for name in pyodide_widgets.WIDGETS
    if getattr(pyodide_widgets.module(name), "CHART", None)
    for chart in (pyodide_widgets.module(name).CHART, *getattr(pyodide_widgets.module(name), "FOLDED_CHARTS", {}))
    for preset in pyodide_widgets.module(name).presets()
]


@pytest.mark.parametrize("name, chart, preset", CASES)
def test_no_raw_number_in_a_charts_text_alternatives(name, chart, preset):
    widget = pyodide_widgets.module(name)
    data = widget.update(widget.presets()[preset]["state"])["data"]
    svg = render.chart_svg(chart, data)
    texts = ["".join(groups) for groups in ALTERNATIVES.findall(svg)]
    assert texts, "a chart with no text alternative"
    raw = [text for text in texts if RAW.search(text)]
    assert not raw, raw[:5]
