"""A chart's axis labels read as estimators.units writes the same figures.

Each axis's label expression is drawn by vl-convert (Vega, as the browser runs
it) at known ticks, and the labels read back from the SVG are compared with
the units formatter of the axis's kind: "1K" and "80 GB", where D3's "~s"
would write "1k" and "80G".
"""

import functools
import html
import re

import pytest
import vl_convert

import figures
from estimators import units
from figures import (_axis_labels, checkpoint_modes, compute_plane, cost_chain, finetune_fit, memory_bill, moe_params,
                     number_line, parallel_cuts, stage_bytes, stages, storage_scale, tokens_ruler)

# Ticks across each formatter's branches: zero, below one, each prefix and its rounding edge (999.6 reads
# "1K"), past the largest prefix, and a negative one.
COUNTS = [-2e9, 0, 0.5, 0.0004, 1, 10, 999, 999.6, 1000, 1500, 2.5e6, 405e9, 15.6e12, 999.96e12, 1e15, 1.23e16]
FLOPS = [1e-30, 2e-3, 0.5, 1, 1234, 989e12, 6.4816e18, 1e27, 1.5e30]
# Powers of ten from a thousandth of a tonne to a trillion watt-hours.
DECADES = [10.0**k for k in range(-3, 13)]
NUMBERS = [-18.43, 0, 0.0005, 0.001, 0.75, 1, 18.43, 99.97, 100, 999.7, 1000, 1875, 10000, 999999.7, 2e6]

LABEL = re.compile(r'<g class="mark-text role-axis-label"[^>]*>(.*?)</g>', re.S)
TEXT = re.compile(r"<text[^>]*>([^<]*)</text>")


def drawn_labels(label_expr: str, ticks: list) -> list:
    """The labels vl-convert draws for `ticks` on a linear axis labelled by `label_expr`, in tick order."""
    ticks = sorted(ticks)
    spec = {
        "data": {"values": [{"x": ticks[0]}]},
        "mark": "point",
        "width": 2000,
        "encoding": {"x": {"field": "x", "type": "quantitative", "scale": {"domain": [ticks[0], ticks[-1]]},
                           "axis": {"values": ticks, "labelExpr": label_expr, "labelOverlap": False}}},
    }
    [group] = LABEL.findall(vl_convert.vegalite_to_svg(spec))
    return [html.unescape(text) for text in TEXT.findall(group)]


@pytest.mark.parametrize("label_expr, formatter, ticks", [
    pytest.param(_axis_labels.count(), units.count, COUNTS, id="count"),
    pytest.param(_axis_labels.bytes_(), units.bytes_, COUNTS, id="bytes"),
    pytest.param(_axis_labels.si("FLOP/s"), lambda v: units.si(v, "FLOP/s"), FLOPS, id="si"),
    pytest.param(_axis_labels.si("B/s"), lambda v: units.si(v, "B/s"), COUNTS, id="si-bytes"),
    pytest.param(_axis_labels.number(), units.number, NUMBERS, id="number"),
    # A multiple of a field rather than a tick (how wide the adapter's rank is drawn): positive figures only.
    pytest.param(_axis_labels.times("datum.value"), units.times, [n for n in NUMBERS if n > 0], id="times"),
])
def test_an_axis_labels_each_tick_as_units_writes_it(label_expr, formatter, ticks):
    assert drawn_labels(label_expr, ticks) == [formatter(t) for t in sorted(ticks)]


# Every labelled axis of every chart, by (chart, axis title): the formatter its labels must match, and the
# ticks to try (None: any tick Vega may choose, so COUNTS or NUMBERS; a list: the only ticks the chart draws).
AXES = {
    (moe_params, "parameters"): (units.count, COUNTS),
    (compute_plane, "parameters N"): (units.count, COUNTS),
    (compute_plane, "training tokens D"): (units.count, COUNTS),
    (memory_bill, "bytes on each GPU"): (units.bytes_, COUNTS),
    (checkpoint_modes, "seconds on the clock"): (functools.partial(units.si, unit="s"), NUMBERS),
    (finetune_fit, "bytes on one GPU"): (units.bytes_, COUNTS),
    (parallel_cuts, "training state"): (units.bytes_, COUNTS),
    (storage_scale, "parameters N"): (units.count, COUNTS),
    (storage_scale, "bytes on disk"): (units.bytes_, COUNTS),
    (tokens_ruler, "training tokens per parameter (log scale)"): (units.number, NUMBERS),
    (number_line, "magnitude (log scale)"): (units.number, list(number_line.DECADES)),
    # The stages' axes label every other tick (the rest are grid lines only).
    (stages, "GPUs per run (log scale)"): (units.integer, stages.GPU_LABELS),
    (stages, "wall-clock time (log scale)"): (units.duration, stages.TIME_LABELS),
    (stage_bytes, "bytes read (green) and handed on (pink)"): (units.bytes_, stage_bytes.BYTES_LABELS),
    # The cost chain's log axes label their powers of ten only (the ticks between are unlabelled).
    (cost_chain, "GPU-hours"): (units.count, DECADES),
    (cost_chain, "energy, facility included"): (functools.partial(units.si, unit="Wh"), DECADES),
    (cost_chain, "t CO₂e"): (units.number, DECADES),
    (cost_chain, "US dollars"): (lambda v: "$" + units.count(v), DECADES),
}


def labelled_axes(spec) -> dict:
    """{axis title: labelExpr} of every axis in a Vega-Lite spec that has a label expression."""
    found = {}
    if isinstance(spec, dict):
        axis = spec.get("axis")
        if isinstance(axis, dict) and "labelExpr" in axis:
            found[axis["title"]] = axis["labelExpr"]
        for value in spec.values():
            found |= labelled_axes(value)
    elif isinstance(spec, list):
        for item in spec:
            found |= labelled_axes(item)
    return found


def test_every_labelled_axis_of_every_chart_is_checked():
    charts = [name for name in figures.CHARTS if not figures.is_diagram(name)]
    listed = {(module.__name__.rpartition(".")[2], title) for module, title in AXES}
    found = {(name, title) for name in charts for title in labelled_axes(figures._module(name).chart().to_dict())}
    assert found == listed


@pytest.mark.parametrize("module, title", list(AXES), ids=lambda v: getattr(v, "__name__", v))
def test_a_charts_axis_reads_as_units_writes_its_ticks(module, title):
    formatter, ticks = AXES[module, title]
    label_expr = labelled_axes(module.chart().to_dict())[title]
    assert drawn_labels(label_expr, ticks) == [formatter(t) for t in sorted(ticks)]
