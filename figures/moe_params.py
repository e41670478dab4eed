"""What each model stores against what one token uses, on one scale: a further figure under the
mixture-of-experts widget's blocks (figures/moe_blocks.py), folded once live. For each model a bar of
what it stores and, over it, a bar of what one token passes through; under each mixture-of-experts
model, a dense model of its active size. Rows: "params" {model, order, part, params, label}, from the
widget's update; every text preformatted by estimators.units.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("params",)
# Stored in a light tone, used per token in a strong one: mid-tones that read on both palettes.
PART_COLOURS = {"stored (total)": "#90a4ae", "used per token (active)": "#5c6bc0"}
# Drawn at a phone's width (about 286 px of column at 360 px, the models' names taking about 110 of it).
PLOT_WIDTH, ROW_HEIGHT = 150, 26


def _params() -> alt.LayerChart:
    bars = (
        alt.Chart(alt.NamedData(name="params"))
        .mark_bar(height=ROW_HEIGHT - 8)
        .encode(
            x=alt.X("params:Q", stack=None,
                    axis=alt.Axis(title="parameters", labelExpr=_axis_labels.count(), tickCount=4, grid=True)),
            y=alt.Y("model:N", sort=alt.EncodingSortField("order", op="min"), title=None,
                    axis=alt.Axis(labelLimit=110)),
            color=alt.Color("part:N", sort=list(PART_COLOURS),
                            scale=alt.Scale(domain=list(PART_COLOURS), range=list(PART_COLOURS.values())),
                            legend=alt.Legend(title=None, orient="bottom", symbolType="square", columns=1)),
            # Stored first, so the active bar is drawn over it.
            order=alt.Order("part:N", sort="ascending"),
            tooltip=[alt.Tooltip("label:N", title="parameters")],
        )
    )
    return alt.layer(bars, *_pinned.drawn(bars, "params")).properties(
        width=PLOT_WIDTH, height=alt.Step(ROW_HEIGHT), title=alt.Title("Stored against used per token, one scale", fontSize=11, anchor="start"))


def chart() -> alt.LayerChart:
    return _params().configure(background="transparent").configure_view(stroke=None)
