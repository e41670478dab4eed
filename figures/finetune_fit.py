"""Full fine-tune, LoRA and QLoRA: the adapter at its layer's true shapes, above what each method
asks of one GPU.

The upper panel draws one adapted linear layer at its true shapes: the frozen W (d × k) beside the
trained update B·A (B d × r, A r × k), every length in units of the larger of d and k, so a narrow
k or v projection looks narrow; r is drawn wider than life where it would not show (the line above
says how much). The widget gives the layer's sizes; where each matrix stands is this figure's
(PLACED, Vega expressions over them). The lower panel stacks each method's bill by part against a
rule at the GPU's memory. Rows: "adapter" {name, d, k, r, trained, tag, label}, "adapter_note"
{label, d, k, r}, "fit" {method, method_order, part, order, bytes, label}, "budget" {bytes,
label}; every text preformatted by estimators.units, or, for how r is drawn, by the expression
_axis_labels.times that re-enacts it.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("adapter", "adapter_note", "fit", "budget")
# The adapter as the picture draws it: the rank r is a sliver of d and k (16 of 4,096 is under half a
# pixel at a phone's width), so it is drawn at least this share of the larger of d and k, and said so.
DRAWN_RANK_SHARE = 0.06
# ...and at most this share, so that a rank near d keeps the picture in its frame (drawn narrower, and said so).
DRAWN_RANK_MAX = 0.2
ADAPTER_GAP = 0.12  # between the frozen W and the product B·A, as a share of the larger of d and k
# The frame every layout fits in, in units of max(d, k): two matrices of at most one unit, the gap and r.
ADAPTER_FRAME = (2 + ADAPTER_GAP + DRAWN_RANK_MAX, 1 + DRAWN_RANK_MAX)

# Where each matrix of a row {name, d, k, r} stands, over max(d, k): W (d rows, k columns) on the left under
# A's strip, B's column of width r after the gap, A's row of height r on top of B·A, so B·A spans W's shape.
_UNIT = "max(datum.d, datum.k)"
_TRUE_RANK = f"(datum.r / {_UNIT})"
DRAWN_RANK = f"clamp({_TRUE_RANK}, {DRAWN_RANK_SHARE}, {DRAWN_RANK_MAX})"
_W_WIDTH, _W_HEIGHT, _B_LEFT = f"(datum.k / {_UNIT})", f"(datum.d / {_UNIT})", f"(datum.k / {_UNIT} + {ADAPTER_GAP})"
PLACED = {
    "x0": f"datum.name == 'W' ? 0 : datum.name == 'B' ? {_B_LEFT} : {_B_LEFT} + {DRAWN_RANK}",
    "x1": f"datum.name == 'W' ? {_W_WIDTH} : datum.name == 'B' ? {_B_LEFT} + {DRAWN_RANK} : "
          f"{_B_LEFT} + {DRAWN_RANK} + {_W_WIDTH}",
    "y0": f"datum.name == 'A' ? 0 : {DRAWN_RANK}",
    "y1": f"datum.name == 'A' ? {DRAWN_RANK} : {DRAWN_RANK} + {_W_HEIGHT}",
}
# How many times wider than life r is drawn (1: to scale), and the note's line that says so.
WIDENED = f"{DRAWN_RANK} / {_TRUE_RANK}"
HOW_R_IS_DRAWN = (f"datum.widened == 1 ? 'r drawn to scale' : 'r drawn ' + {_axis_labels.times('datum.widened')} + "
                  "(datum.widened > 1 ? ' wider' : ' narrower') + ' than life'")
# Drawn at a phone's width (about 286 px of column at 360 px, the methods' names taking about 90 of
# them); the page scales it up on a wider one.
PLOT_WIDTH = 190
# One scale for both directions of the adapter, so that its matrices keep their aspect.
PX_PER_UNIT = PLOT_WIDTH / ADAPTER_FRAME[0]
FROZEN_COLOUR, TRAINED_COLOUR = "#9e9e9e", "#26a69a"
PART_COLOURS = ("#5c6bc0", "#26a69a", "#8d6e63", "#bcaaa4", "#7986cb", "#80cbc4", "#ffa726")
BUDGET_COLOUR = "#e53935"
METHOD_STEP = 24
# Two lines of 10 px text above each panel (what is drawn, what the line is), and a gap under them.
NOTE_HEIGHT = 30


def _adapter() -> alt.LayerChart:
    x = alt.Scale(domain=[0, ADAPTER_FRAME[0]], nice=False, zero=True)
    # Reversed: a layout's y runs down the page, as a matrix's rows do.
    y = alt.Scale(domain=[0, ADAPTER_FRAME[1]], nice=False, zero=True, reverse=True)
    boxes = alt.Chart(alt.NamedData(name="adapter")).transform_calculate(**PLACED)
    rects = boxes.mark_rect(stroke="#616161", strokeWidth=1).encode(
        x=alt.X("x0:Q", scale=x, axis=None), x2="x1:Q",
        y=alt.Y("y0:Q", scale=y, axis=None), y2="y1:Q",
        color=alt.Color("trained:N", scale=alt.Scale(domain=[False, True], range=[FROZEN_COLOUR, TRAINED_COLOUR]),
                        legend=None),
        tooltip=[alt.Tooltip("label:N", title="matrix")],
    )
    # Each matrix named where no other is: W inside its top-left corner, A under its own strip (the
    # empty corner of B·A), B under its column. Its shape is in its text alternative.
    def tag(name: str, y_field: str):
        return boxes.transform_filter(f"datum.name == '{name}'").mark_text(
            align="left", baseline="top", dx=3, dy=3, fontSize=10, fontWeight="bold", lineBreak="\n").encode(
            x=alt.X("x0:Q", scale=x), y=alt.Y(f"{y_field}:Q", scale=y), text="tag:N")

    # Two lines (broken at "\n"): the layer the widget names, then how r is drawn.
    note = alt.Chart(alt.NamedData(name="adapter_note")).transform_calculate(widened=WIDENED).transform_calculate(
        text=f"datum.label + '\\n' + ({HOW_R_IS_DRAWN})").mark_text(
        align="left", baseline="top", fontSize=10, lineBreak="\n").encode(
        x=alt.value(0), y=alt.value(-NOTE_HEIGHT), text="text:N")
    return alt.layer(rects, tag("W", "y0"), tag("A", "y1"), tag("B", "y1"), note).properties(
        width=PLOT_WIDTH, height=PX_PER_UNIT * ADAPTER_FRAME[1],
        title=alt.Title("The adapted layer, to its shapes", offset=NOTE_HEIGHT + 6))


def _fit() -> alt.LayerChart:
    x_axis = alt.Axis(title="bytes on one GPU", labelExpr=_axis_labels.bytes_(), tickCount=4, grid=True)
    bars = alt.Chart(alt.NamedData(name="fit")).mark_bar(stroke="white", strokeWidth=0.5).encode(
        y=alt.Y("method:N", sort=alt.EncodingSortField("method_order", op="min"), axis=alt.Axis(title=None)),
        x=alt.X("bytes:Q", stack="zero", axis=x_axis),
        color=alt.Color("part:N", sort=alt.EncodingSortField("order", op="min"),
                        scale=alt.Scale(range=list(PART_COLOURS)),
                        legend=alt.Legend(title=None, orient="bottom", columns=2, symbolType="square")),
        order=alt.Order("order:Q"),
        tooltip=[alt.Tooltip("label:N", title="part")],
    )
    budget = alt.Chart(alt.NamedData(name="budget"))
    rule = budget.mark_rule(color=BUDGET_COLOUR, strokeWidth=2, strokeDash=[6, 3]).encode(
        x="bytes:Q", tooltip=[alt.Tooltip("label:N", title="GPU memory")])
    label = budget.mark_text(align="left", baseline="top", fontSize=10, lineBreak="\n").encode(
        x=alt.value(0), y=alt.value(-NOTE_HEIGHT), text="label:N")
    return alt.layer(bars, rule, label, *_pinned.drawn(bars, "fit")).properties(
        width=PLOT_WIDTH, height=alt.Step(METHOD_STEP), title=alt.Title("Does it fit on one GPU?", offset=NOTE_HEIGHT + 6))


def chart() -> alt.VConcatChart:
    return (
        alt.vconcat(_adapter(), _fit(), spacing=28)
        .resolve_scale(color="independent")
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
