"""A value in fewer bits: the chosen format's bits to scale, the two values it holds either side of the
reader's value with the rounding error between, and every format's range on one log scale.

The rows are the number_line widget's update's ("bits": one per bit, {x, x2, part, bit, label}, and a
block-scaled format's share of its scale; "near": the value, what it is stored as and the values held
either side, {at, kind, text, label}; "error": {from, to, label}; "formats": one per format, {format,
order, low, high, picked, value, label, pick}), every figure from estimators.number_formats and every
label preformatted by estimators.units. Drawn at a phone's width; widgets.css scales it to the column.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("bits", "caption", "near", "error", "formats")
WIDTH = 205  # px: with the formats' names beside it, fits a 390 px phone's column at 11 px text or larger
# The widest format, FP32, spans the bits panel, so every format's bits are drawn to one scale.
WIDEST_BITS = 32
# Okabe and Ito's colour-blind-safe hues: sign, exponent, mantissa (an integer's and NF4's bits the mantissa's
# hue: they too buy precision), and the grey of a block's shared scale.
PARTS = ("sign", "exponent", "mantissa", "integer", "level", "shared scale")
PART_COLOURS = ("#cc79a7", "#0072b2", "#009e73", "#009e73", "#009e73", "#9e9e9e")
# Light enough to stand 3:1 against the dark palette's background as well as the light one's.
VALUE_COLOUR, HELD_COLOUR, RANGE_COLOUR = "#ff9800", "#8c9eff", "#9fa8da"
# From below FP32's smallest value (1.4e-45) to past its largest (3.4e38): every unscaled format's range.
LOG_DOMAIN = (1e-46, 1e40)
DECADES = (1e-40, 1e-30, 1e-20, 1e-10, 1, 1e10, 1e20, 1e30)
ROW = 12  # px per format on the range panel


def _bits() -> alt.LayerChart:
    base = alt.Chart(alt.NamedData(name="bits")).encode(
        x=alt.X("x:Q", scale=alt.Scale(domain=[0, WIDEST_BITS], nice=False), axis=None), x2="x2:Q",
        tooltip=[alt.Tooltip("label:N", title="bit")])
    boxes = base.mark_rect(stroke="white", strokeWidth=0.5, height=16).encode(
        color=alt.Color("part:N", scale=alt.Scale(domain=list(PARTS), range=list(PART_COLOURS)), legend=None))
    # The parts named in their order and colours, under the boxes: a sign's one box is too narrow for its name.
    caption = alt.Chart(alt.NamedData(name="caption")).mark_text(align="left", dy=18, fontSize=10).encode(
        x=alt.value(0), text="text:N")
    digits = alt.Chart(alt.NamedData(name="bits")).transform_calculate(middle="(datum.x + datum.x2) / 2").mark_text(
        fontSize=10, color="white").encode(x=alt.X("middle:Q", scale=alt.Scale(domain=[0, WIDEST_BITS], nice=False)),
                                          text="bit:N")
    return alt.layer(boxes, digits, caption).properties(
        width=WIDTH, height=24,
        title=alt.Title("Its bits, to scale", subtitle="FP32's 32 bits span the width", subtitleFontSize=10))


def _near() -> alt.LayerChart:
    x = alt.X("at:Q", scale=alt.Scale(zero=False, nice=False, padding=24), axis=None)
    near = alt.Chart(alt.NamedData(name="near")).encode(x=x, tooltip=[alt.Tooltip("label:N", title="value")])
    held = near.transform_filter("datum.kind != 'value'").mark_tick(thickness=2, size=22).encode(
        color=alt.condition("datum.kind == 'stored'", alt.value(VALUE_COLOUR), alt.value(HELD_COLOUR)))
    held_text = near.transform_filter("datum.kind != 'value'").mark_text(dy=20, fontSize=10).encode(text="text:N")
    value = near.transform_filter("datum.kind == 'value'").mark_point(shape="triangle-down", filled=True, size=70,
                                                                        color=VALUE_COLOUR, yOffset=-14)
    value_text = near.transform_filter("datum.kind == 'value'").mark_text(dy=-26, fontSize=10, color=VALUE_COLOUR).encode(
        text="text:N")
    error = alt.Chart(alt.NamedData(name="error")).mark_rule(color=VALUE_COLOUR, strokeWidth=3).encode(
        x=alt.X("from:Q", axis=None), x2="to:Q", tooltip=[alt.Tooltip("label:N", title="rounding error")])
    return alt.layer(error, held, held_text, value, value_text, *_pinned.drawn(held, "near")).properties(
        width=WIDTH, height=50,
        title=alt.Title("Around your value", subtitle=["▼ your value; ticks: the values it holds;", "orange: the rounding error"],
                        subtitleFontSize=10))


def _formats() -> alt.LayerChart:
    x = alt.X("low:Q", scale=alt.Scale(type="log", domain=list(LOG_DOMAIN), clamp=True),
              axis=alt.Axis(title="magnitude (log scale)", values=list(DECADES), labelExpr=_axis_labels.number(),
                            labelFontSize=10))
    y = alt.Y("format:N", sort=alt.EncodingSortField("order"), axis=alt.Axis(title=None, labelFontSize=10))
    base = alt.Chart(alt.NamedData(name="formats")).encode(y=y, tooltip=[alt.Tooltip("label:N", title="stored")])
    picked = alt.datum.picked
    ranges = base.mark_rule(strokeWidth=7, cursor="pointer").encode(
        x=x, x2="high:Q", color=alt.condition(picked, alt.value(VALUE_COLOUR), alt.value(RANGE_COLOUR)))
    value = alt.Chart(alt.NamedData(name="formats")).mark_rule(color=VALUE_COLOUR, strokeDash=[3, 2]).encode(
        x=alt.X("min(value):Q", scale=alt.Scale(type="log", domain=list(LOG_DOMAIN), clamp=True)))
    return alt.layer(ranges, value).properties(
        width=WIDTH, height=alt.Step(ROW),
        title=alt.Title("Every format's range", subtitle=["smallest above zero to largest;", "dashed: your value; pick a format"],
                        subtitleFontSize=10))


def chart() -> alt.VConcatChart:
    return (
        alt.vconcat(_bits(), _near(), _formats(), spacing=14)
        .resolve_scale(x="independent", color="independent")
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
