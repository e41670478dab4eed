"""Full fine-tune, LoRA and QLoRA: the adapter at its layer's true shapes, above what each method
asks of one GPU.

The upper panel draws one adapted linear layer as estimators.lora_adapter_layout places it: the
frozen W (d × k) beside the trained update B·A (B d × r, A r × k), every length in units of the
larger of d and k, so a narrow k or v projection looks narrow; r is drawn wider than life (the
line above says how much). The lower panel stacks each method's bill by part against a rule at
the GPU's memory. Rows: "adapter" {name, x0, x1, y0, y1, trained, tag, label}, "adapter_note"
{label}, "fit" {method, method_order, part, order, bytes, label}, "budget" {bytes, label}; every
text preformatted by estimators.units.
"""

import altair as alt

from estimators.finetune import ADAPTER_FRAME

from . import _axis_labels, _pinned

DATASETS = ("adapter", "adapter_note", "fit", "budget")
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
    boxes = alt.Chart(alt.NamedData(name="adapter"))
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

    note = alt.Chart(alt.NamedData(name="adapter_note")).mark_text(
        align="left", baseline="top", fontSize=10, lineBreak="\n").encode(
        x=alt.value(0), y=alt.value(-NOTE_HEIGHT), text="label:N")
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
