"""The memory bill of one GPU: a stacked bar of what it holds during a step,
against a rule at the GPU's memory.

The parts (weights, gradients, master weights, the two moments, activations)
and the GPU's memory are the named datasets "bill" and "budget", which the
widget's update returns; every label is preformatted text from estimators.units.
"""

import altair as alt

from . import _axis_labels

DATASETS = ("bill", "budget")
# One colour per part in stacking order: the model state in blues and greens
# (darker for the FP32 optimizer state), activations in orange. Mid-tones that
# read on the light and the dark palette alike.
PART_COLOURS = ("#5c6bc0", "#7986cb", "#26a69a", "#4db6ac", "#80cbc4", "#ffa726")
BUDGET_COLOUR = "#e53935"
# Drawing size in CSS pixels; the page scales the SVG to its column.
WIDTH, BAR_HEIGHT = 640, 56
# Past this share of the plot's width the rule's label goes on its left.
LABEL_FLIP_AT = 0.6


def chart() -> alt.LayerChart:
    """Rows of "bill": {part, order, bytes, label}; of "budget": {bytes, label}."""
    x_axis = alt.Axis(title="bytes on one GPU", labelExpr=_axis_labels.bytes_(), tickCount=6, grid=True)
    bars = (
        alt.Chart(alt.NamedData(name="bill"))
        .mark_bar(height=BAR_HEIGHT)
        .encode(
            x=alt.X("bytes:Q", stack="zero", axis=x_axis),
            color=alt.Color(
                "part:N",
                sort=alt.EncodingSortField("order"),
                scale=alt.Scale(range=list(PART_COLOURS)),
                legend=alt.Legend(title=None, orient="bottom", columns=3, symbolType="square"),
            ),
            order=alt.Order("order:Q"),
            tooltip=[alt.Tooltip("label:N", title="part")],
        )
    )
    budget = alt.Chart(alt.NamedData(name="budget"))
    rule = budget.mark_rule(color=BUDGET_COLOUR, strokeWidth=2, strokeDash=[6, 3]).encode(
        x="bytes:Q", tooltip=[alt.Tooltip("label:N", title="GPU memory")]
    )
    # The label sits beside the rule, on whichever side has room: left of it in the right part of the plot.
    right_part = f"scale('x', datum.bytes) > width * {LABEL_FLIP_AT}"
    rule_label = budget.mark_text(
        align=alt.ExprRef(f"{right_part} ? 'right' : 'left'"),
        dx=alt.ExprRef(f"{right_part} ? -4 : 4"),
        dy=-BAR_HEIGHT / 2 - 6,
        fontWeight="bold",
    ).encode(x="bytes:Q", text="label:N")
    return (
        alt.layer(bars, rule, rule_label)
        .properties(width=WIDTH, height=BAR_HEIGHT + 40, title="What one GPU holds during a step")
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
