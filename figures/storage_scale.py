"""What a run keeps on disk across model sizes: one line per part, log-log, and the reader's run.

Named datasets: "lines" (rows of {part, order, params, bytes, label, pick}),
the parts across a grid of model sizes, and "run" (the same rows for the
reader's size, with no `pick`). Lines may coincide (at 20 tokens of 4 bytes a parameter the dataset
is exactly five checkpoints), so each part is drawn wider than the parts drawn over it: a line under
another shows on both its sides. Your run is a ring on each line and a rule at its size. The x axis is the widget's model-size field
(its DRAG): a drag across the chart moves the size continuously, the arrow keys
step it while the chart has focus, and a click on a grid point sets it there
(runtime.js reads `pick`). Drawn at a phone's width, so it fits every column.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("lines", "run")
# One colour per part, in the order of the outputs: data, weights, one checkpoint, kept, total. Okabe
# and Ito's colour-blind-safe set, each at least 3:1 against the dark palette's background.
PART_COLOURS = ("#0072b2", "#009e73", "#cc79a7", "#e69f00", "#8c8c8c")
# Drawn in that order, each narrower than the one before: the later line lies inside the earlier one.
PART_WIDTHS = (7, 5.5, 4, 2.5, 1.5)
RING_SIZES = (320, 240, 170, 110, 60)  # your run's rings likewise, one inside the other where two parts meet
RUN_COLOUR = "#8c8c8c"  # the rule at your run's size: a mid grey, seen on both palettes
# The plot at a phone's width: with the bytes axis's labels it fits the 286 px column of a 360 px screen.
WIDTH, HEIGHT = 210, 220
# Room round the plot for the bytes axis's labels and title (left), the title (top), the last tick's
# label (right) and the legend (bottom).
PADDING = {"left": 62, "top": 70, "right": 12, "bottom": 100}
# Ticks at every decade a run's sizes and bytes can reach (a tick outside the drawn range is not shown).
DECADES = [10.0**k for k in range(3, 22)]


def _log(field: str, title: str, label: str) -> dict:
    return {
        "field": field,
        "type": "quantitative",
        "scale": alt.Scale(type="log"),
        "axis": alt.Axis(title=title, labelExpr=label, values=DECADES, grid=True),
    }


def chart() -> alt.LayerChart:
    x = alt.X(**_log("params", "parameters N", _axis_labels.count()))
    y = alt.Y(**_log("bytes", "bytes on disk", _axis_labels.bytes_()))
    colour = alt.Color(
        "part:N",
        sort=alt.EncodingSortField("order"),
        scale=alt.Scale(range=list(PART_COLOURS)),
        legend=alt.Legend(title=None, orient="bottom", columns=2),
    )
    width = alt.StrokeWidth("order:N", scale=alt.Scale(type="ordinal", domain=list(range(len(PART_WIDTHS))), range=list(PART_WIDTHS)),
                            legend=None)
    rows = alt.Chart(alt.NamedData(name="lines"))
    lines = rows.mark_line().encode(x=x, y=y, color=colour, strokeWidth=width, tooltip=["label:N"])
    # A dot at each size a click picks: its own layer, so that the lines' widths are not its outline.
    dots = rows.mark_point(size=16, filled=True, opacity=1, cursor="pointer").encode(x=x, y=y, color=colour, tooltip=["label:N"])
    run = alt.Chart(alt.NamedData(name="run"))
    size = run.transform_filter("datum.order == 0").mark_rule(color=RUN_COLOUR, strokeDash=[4, 3]).encode(x=x)
    rings = run.mark_point(filled=False, strokeWidth=2.5, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=["label:N"],
        size=alt.Size("order:N", scale=alt.Scale(type="ordinal", domain=list(range(len(RING_SIZES))), range=list(RING_SIZES)),
                      legend=None))
    return (
        alt.layer(lines, dots, size, rings, *_pinned.drawn(rings, "run"))
        .properties(
            width=WIDTH,
            height=HEIGHT,
            title=alt.TitleParams(
                ["What the run keeps on disk,", "by model size"],
                subtitle=["Rings on the dashed line: your run.", "Drag across the chart to move it."],
            ),
        )
        # Laid out by its own padding, not fitted to its marks' bounds: the browser's Vega and the
        # build's measure the wide lines' ends a few units apart, and the live chart must stand where
        # the build's did (a drag begun on the build's picture lands on the live one).
        .properties(autosize=alt.AutoSizeParams(type="none"), padding=PADDING)
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
