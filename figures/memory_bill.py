"""The memory bill of the data-parallel GPUs: one stacked column per GPU (the first eight, then one
column for the rest), a weights-only column for serving the same model beside them, and a rule
at the GPU's memory.

Each column stacks the parts one GPU holds during a step (weights, gradients, master weights, the
two moments, activations); the ZeRO stage slices the parts it shards across the GPUs, so stepping
it shrinks those parts in every column at once, inside an outline of the same bill without ZeRO
(which also keeps the scale still from stage to stage). The rows ("bill": one per column and part;
"whole": each column's bill without ZeRO; "budget": the GPU's memory) are the widget's update's, every figure from estimators.memory_bill
and every label preformatted text from estimators.units.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("bill", "whole", "budget")
# One colour per part in stacking order (weights, gradients, master weights, momentum, variance,
# activations): Okabe and Ito's colour-blind-safe set, the weights and their gradients in two blues,
# then a hue of its own for each part of the optimizer state, so no two parts look alike to any
# reader, and the activations, which the step makes rather than the model, a neutral grey under the
# red line of the GPU's memory; each at least 3:1 against the dark palette's background.
PART_COLOURS = ("#0072b2", "#56b4e9", "#009e73", "#cc79a7", "#e69f00", "#6f6f6f")
BUDGET_COLOUR = "#e53935"
OUTLINE_COLOUR = "#9e9e9e"  # a mid grey, seen on both palettes
# Each column's width in CSS pixels: ten columns, the axis and the legend fit a 360 px phone's
# column (about 286 px) at their own size, so the picture is never scaled down below legible text
# nor scrolled sideways; a wider column scales it up (widgets.css).
COLUMN_STEP = 22
PLOT_HEIGHT = 170


# The line above the plot names the GPU's memory (from the rows), so the title leaves it room.
TITLE = alt.Title("What each GPU holds during a step", subtitle="grey outline: the same GPU without ZeRO",
                  subtitleFontSize=10, offset=18)


def chart() -> alt.LayerChart:
    """Rows of "bill": {column, column_order, part, order, bytes, label}; of "whole": {column, column_order,
    bytes, label}; of "budget": {bytes, label}."""
    y_axis = alt.Axis(title="bytes on each GPU", labelExpr=_axis_labels.bytes_(), tickCount=5, grid=True)
    x_axis = alt.Axis(title=None, labelAngle=-50, labelAlign="right", labelLimit=90)
    # min: a column's order is on each of its rows, and a sort field sums them by default.
    x = alt.X("column:N", sort=alt.EncodingSortField("column_order", op="min"), axis=x_axis)
    bars = (
        alt.Chart(alt.NamedData(name="bill"))
        .mark_bar(stroke="white", strokeWidth=0.5)
        .encode(
            x=x,
            y=alt.Y("bytes:Q", stack="zero", axis=y_axis),
            color=alt.Color(
                "part:N",
                sort=alt.EncodingSortField("order"),
                scale=alt.Scale(range=list(PART_COLOURS)),
                legend=alt.Legend(title=None, orient="bottom", columns=2, symbolType="square", labelLimit=120),
            ),
            order=alt.Order("order:Q"),
            tooltip=[alt.Tooltip("label:N", title="holds")],
        )
    )
    outline = (
        alt.Chart(alt.NamedData(name="whole"))
        .mark_bar(fill=None, stroke=OUTLINE_COLOUR, strokeWidth=1, strokeDash=[3, 2])
        .encode(x=x, y="bytes:Q", tooltip=[alt.Tooltip("label:N", title="without ZeRO")])
    )
    budget = alt.Chart(alt.NamedData(name="budget"))
    rule = budget.mark_rule(color=BUDGET_COLOUR, strokeWidth=2, strokeDash=[6, 3]).encode(
        y="bytes:Q", tooltip=[alt.Tooltip("label:N", title="GPU memory")]
    )
    # Said above the plot, not on the line: the line crosses the columns, and text on them is unreadable.
    rule_label = budget.mark_text(align="left", baseline="bottom", dy=-4, fontSize=10).encode(
        y=alt.value(0), x=alt.value(0), text="label:N"
    )
    return (
        alt.layer(outline, bars, rule, rule_label, *_pinned.drawn(bars, "bill"))
        .properties(width=alt.Step(COLUMN_STEP), height=PLOT_HEIGHT, title=TITLE)
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
