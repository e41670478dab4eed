"""Full fine-tune, LoRA and QLoRA: what each method asks of one GPU, the picture the fine-tuning widget
opens on. Each method's bill stacked by part against a rule at the GPU's memory; the adapter the two
adapting methods train is drawn to its shapes in a further figure under it (figures/lora_adapter.py).
Rows: "fit" {method, method_order, part, order, bytes, label}, "budget" {bytes, label}; every text
preformatted by estimators.units.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("fit", "budget")
# Drawn at a phone's width (about 286 px of column at 360 px, the methods' names taking about 90 of
# them); the page scales it up on a wider one.
PLOT_WIDTH = 190
PART_COLOURS = ("#5c6bc0", "#26a69a", "#8d6e63", "#bcaaa4", "#7986cb", "#80cbc4", "#ffa726")
BUDGET_COLOUR = "#e53935"
METHOD_STEP = 24
# Two lines of 10 px text above the bars (what the line is), and a gap under them.
NOTE_HEIGHT = 30


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


def chart() -> alt.LayerChart:
    return _fit().configure(background="transparent").configure_view(stroke=None)
