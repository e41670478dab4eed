"""Synchronous against asynchronous checkpoints, both on one clock of seconds, to scale.

Four lanes share one time axis: each mode's GPUs (training, paused for the save, training again)
above its storage (writing the checkpoint: during the pause synchronously, after it
asynchronously). Every stretch is as wide as it lasts, so the two pauses compare at a glance; the
half hour of training between two saves is cut out, a dashed line where it would be. The rows are
the widget's update's, from estimators.checkpoint_clock: "segments" (one per stretch of a lane, in
seconds on the clock), "hand" (where the clock is, and its last stop), "tally" (each mode's pauses
so far, and what the cuts leave out, preformatted by estimators.units) and "breaks" (the cuts). Play
steps the clock, so the lanes grow save by save and the tallies add up.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("segments", "hand", "tally", "breaks")
KIND_COLOURS = {"training": "#5c6bc0", "GPUs paused": "#e53935", "writing to storage": "#ffa726"}
HAND_COLOUR = "#9e9e9e"  # a mid grey, seen on both palettes
# Drawn at a phone's width (about 286 px of column at 360 px): four lanes, their names on the left.
PLOT_WIDTH, LANE_STEP = 170, 26
TALLY_LINE = 13  # px between the tally's lines, above the plot
TALLY_LINES = 3  # each mode's pauses so far, and what the cuts leave out


def chart() -> alt.LayerChart:
    """Rows of "segments": {lane, lane_order, kind, start, end, label}; "hand": {at, face, label};
    "tally": {line, label}; "breaks": {at, label}."""
    x = alt.X("start:Q", scale=alt.Scale(domain=alt.ExprRef("[0, data('hand')[0].face]"), nice=False, zero=True),
              axis=alt.Axis(title="seconds on the clock", labelExpr=_axis_labels.si("s"), tickCount=4, grid=False))
    lanes = (
        alt.Chart(alt.NamedData(name="segments"))
        .mark_bar()
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
    cuts = alt.Chart(alt.NamedData(name="breaks")).mark_rule(color=HAND_COLOUR, strokeDash=[3, 2]).encode(
        x="at:Q", tooltip=[alt.Tooltip("label:N", title="cut")])
    # The tallies above the plot, a line each, where no lane runs under them.
    tallies = alt.Chart(alt.NamedData(name="tally"))
    tally = [
        tallies.transform_filter(f"datum.line == {line}")
        .mark_text(align="left", baseline="bottom", fontSize=10, fontWeight="bold")
        .encode(x=alt.value(0), y=alt.value(-4 - TALLY_LINE * (TALLY_LINES - 1 - line)), text="label:N")
        for line in range(TALLY_LINES)
    ]
    return (
        alt.layer(lanes, cuts, rule, *tally, *_pinned.drawn(lanes, "segments"))
        .properties(width=PLOT_WIDTH, height=alt.Step(LANE_STEP),
                    title=alt.Title("Both modes on one clock, to scale", offset=8))
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
