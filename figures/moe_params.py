"""Total against active parameters on one scale: for each model a bar of what
it stores and, over it, a bar of what one token passes through; under each
mixture-of-experts model, a dense model of its active size, whose two bars are
the same length.

The rows are the named dataset "params", which the widget's update returns
from estimators.moe_params; every label is preformatted by estimators.units.
"""

import altair as alt

from . import _axis_labels

DATASETS = ("params",)
# Stored in a light tone, used per token in a strong one: mid-tones that read on both palettes.
PART_COLOURS = {"stored (total)": "#90a4ae", "used per token (active)": "#5c6bc0"}
# Drawing size in CSS pixels; the page scales the SVG to its column.
WIDTH, ROW_HEIGHT = 640, 26


def chart() -> alt.Chart:
    """Rows of "params": {model, order, part, params, label}, two parts a model."""
    return (
        alt.Chart(alt.NamedData(name="params"))
        .mark_bar(height=ROW_HEIGHT - 8)
        .encode(
            x=alt.X("params:Q", stack=None,
                    axis=alt.Axis(title="parameters", labelExpr=_axis_labels.count(),
                                  tickCount=6, grid=True)),
            y=alt.Y("model:N", sort=alt.EncodingSortField("order"), title=None),
            color=alt.Color("part:N", sort=list(PART_COLOURS),
                            scale=alt.Scale(domain=list(PART_COLOURS), range=list(PART_COLOURS.values())),
                            legend=alt.Legend(title=None, orient="bottom", symbolType="square")),
            # Stored first, so the active bar is drawn over it.
            order=alt.Order("part:N", sort="ascending"),
            tooltip=[alt.Tooltip("label:N", title="parameters")],
        )
        .properties(width=WIDTH, height=alt.Step(ROW_HEIGHT), title="Stored against used per token, one scale")
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
