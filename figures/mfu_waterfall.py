"""Where one step's time goes: a waterfall from the GPUs' peak down to the step's MFU.

One row a bar, top to bottom: the GPUs' peak (the whole step, were every second spent on the model's arithmetic
at peak), each loss a floating bar stepping down by its share of the step (a gain, FP8 matrix multiplies beating
the BF16 peak, steps up), and the MFU that is left, from zero. The rows are the widget's update's, from
estimators.step_waterfall: "bars" {order, label, start, end, kind, value} in shares of the step, each value
preformatted by estimators.units.
"""

import altair as alt

from . import _pinned

DATASETS = ("bars",)
KIND_COLOURS = {"peak": "#9e9e9e", "loss": "#e53935", "gain": "#26a69a", "MFU": "#5c6bc0"}
# Drawn at a phone's width (about 286 px of column at 360 px): the bars' names on the left at 11 px, the plot beside.
PLOT_WIDTH, ROW_STEP, LABEL_PX, NAMES_PX = 120, 18, 11, 135


def chart() -> alt.LayerChart:
    """Rows of "bars": {order, label, start, end, kind, value}; each bar's share of the step in its tooltip."""
    y = alt.Y("label:N", sort=alt.EncodingSortField("order", op="min"),
              axis=alt.Axis(title=None, labelLimit=NAMES_PX, labelFontSize=LABEL_PX))
    bars = (
        alt.Chart(alt.NamedData(name="bars"))
        .mark_bar()
        .encode(
            x=alt.X("start:Q", scale=alt.Scale(domain=[0, 1], nice=False, clamp=True),
                    axis=alt.Axis(title="share of the step", format="%", tickCount=2, grid=False,
                                  labelFontSize=LABEL_PX, titleFontSize=LABEL_PX)),
            x2="end:Q",
            y=y,
            color=alt.Color("kind:N", scale=alt.Scale(domain=list(KIND_COLOURS), range=list(KIND_COLOURS.values())),
                            legend=None),
            tooltip=[alt.Tooltip("label:N", title="bar"), alt.Tooltip("value:N", title="share of the step")],
        )
    )
    return (
        alt.layer(bars, *_pinned.drawn(bars, "bars"))
        .properties(width=PLOT_WIDTH, height=alt.Step(ROW_STEP),
                    title=alt.Title("From the GPUs' peak to the MFU", fontSize=LABEL_PX + 1, anchor="start", offset=6))
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
