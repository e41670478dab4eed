"""Synchronous against asynchronous checkpoints, both on one clock of checkpoint intervals.

Four lanes share one time axis: each mode's GPUs (training, then paused for the save at the end of
each interval) above its storage (writing the checkpoint: during the pause synchronously, after it
asynchronously). The rows are the widget's update's, from estimators.checkpoint_clock: "segments"
(one per stretch of a lane, in intervals from the clock's start), "hand" (where the clock is) and
"tally" (each mode's pauses so far, preformatted by estimators.units). Play steps the clock, so the
lanes grow save by save and the tallies add up.
"""

import altair as alt

from estimators.checkpoint import CLOCK_SAVES

from . import _axis_labels

DATASETS = ("segments", "hand", "tally")
KIND_COLOURS = {"training": "#5c6bc0", "GPUs paused": "#e53935", "writing to storage": "#ffa726"}
HAND_COLOUR = "#9e9e9e"  # a mid grey, seen on both palettes
# Drawn at a phone's width (about 286 px of column at 360 px): four lanes, their names on the left.
PLOT_WIDTH, LANE_STEP = 170, 26
TALLY_LINE = 13  # px between the tally's lines, above the plot


def chart() -> alt.LayerChart:
    """Rows of "segments": {lane, lane_order, kind, start, end, label}; "hand": {at, label};
    "tally": {line, label}."""
    x = alt.X("start:Q", scale=alt.Scale(domain=[0, CLOCK_SAVES[-1]], nice=False),
              axis=alt.Axis(title="checkpoint intervals", labelExpr=_axis_labels.number(),
                            values=[0, *CLOCK_SAVES], grid=True))
    lanes = (
        alt.Chart(alt.NamedData(name="segments"))
        .mark_bar(stroke="white", strokeWidth=0.5)
        .encode(
            x=x,
            x2="end:Q",
            y=alt.Y("lane:N", sort=alt.EncodingSortField("lane_order", op="min"),
                    axis=alt.Axis(title=None, labelLimit=130)),
            color=alt.Color("kind:N", scale=alt.Scale(domain=list(KIND_COLOURS), range=list(KIND_COLOURS.values())),
                            legend=alt.Legend(title=None, orient="bottom", direction="horizontal", columns=2)),
            tooltip=[alt.Tooltip("label:N", title="lane")],
        )
    )
    hand = alt.Chart(alt.NamedData(name="hand"))
    rule = hand.mark_rule(color=HAND_COLOUR, strokeWidth=2).encode(x="at:Q", tooltip=[alt.Tooltip("label:N", title="clock")])
    # The tallies above the plot, a line each, where no lane runs under them.
    tallies = alt.Chart(alt.NamedData(name="tally"))
    tally = [
        tallies.transform_filter(f"datum.line == {line}")
        .mark_text(align="left", baseline="bottom", fontSize=10, fontWeight="bold")
        .encode(x=alt.value(0), y=alt.value(-4 - TALLY_LINE * (1 - line)), text="label:N")
        for line in (0, 1)
    ]
    return (
        alt.layer(lanes, rule, *tally)
        .properties(width=PLOT_WIDTH, height=alt.Step(LANE_STEP),
                    title=alt.Title("Both modes on one clock", subtitle="a pause too short to see is drawn wider",
                                    subtitleFontSize=10, offset=2 * TALLY_LINE + 8))
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
