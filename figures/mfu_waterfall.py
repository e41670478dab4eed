"""Where one step's time goes: a waterfall from the GPUs' peak down to the step's MFU.

One row a bar, top to bottom: the GPUs' peak (the whole step, were every second spent on the model's arithmetic
at peak), each loss a floating bar stepping down by its share of the step (a gain, FP8 matrix multiplies beating
the BF16 peak, steps up), and the MFU that is left, from zero. The rows are the widget's update's, from
estimators.step_waterfall: "bars" {order, label, start, end, kind, value} in shares of the step, each value
preformatted by estimators.units.
"""

import altair as alt

DATASETS = ("bars",)
KIND_COLOURS = {"peak": "#9e9e9e", "loss": "#e53935", "gain": "#26a69a", "MFU": "#5c6bc0"}
# Drawn at a phone's width (about 286 px of column at 360 px), the bars' names on the left.
PLOT_WIDTH, ROW_STEP = 150, 17


def chart() -> alt.LayerChart:
    """Rows of "bars": {order, label, start, end, kind, value}."""
    y = alt.Y("label:N", sort=alt.EncodingSortField("order", op="min"), axis=alt.Axis(title=None, labelLimit=150))
    bars = alt.Chart(alt.NamedData(name="bars"))
    drawn = bars.mark_bar().encode(
        x=alt.X("start:Q", scale=alt.Scale(domain=[0, 1], nice=False, clamp=True),
                axis=alt.Axis(title="share of the step at peak", format="%", tickCount=4, grid=False)),
        x2="end:Q",
        y=y,
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(KIND_COLOURS), range=list(KIND_COLOURS.values())),
                        legend=None),
        tooltip=[alt.Tooltip("label:N", title="bar"), alt.Tooltip("value:N", title="share of the step")],
    )
    said = bars.mark_text(align="left", baseline="middle", dx=3, fontSize=10).encode(
        x=alt.X("end:Q"), y=y, text="value:N")
    return (
        alt.layer(drawn, said)
        .properties(width=PLOT_WIDTH, height=alt.Step(ROW_STEP),
                    title=alt.Title("From the GPUs' peak to the step's MFU", offset=8))
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
