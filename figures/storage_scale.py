"""What a run keeps on disk across model sizes: one line per part, log-log, and the reader's run.

Named datasets: "lines" (rows of {part, order, params, bytes, label, pick}),
the parts across a grid of model sizes, and "run" (the same rows for the
reader's size, with no `pick`). The x axis is the widget's model-size field
(its DRAG): a drag across the chart moves the size continuously, the arrow keys
step it while the chart has focus, and a click on a grid point sets it there
(runtime.js reads `pick`). Drawn at a phone's width, so it fits every column.
"""

import altair as alt

from . import _axis_labels

DATASETS = ("lines", "run")
# One colour per part, in the order of the outputs: data, weights, one checkpoint, kept, total.
PART_COLOURS = ("#26a69a", "#5c6bc0", "#ab47bc", "#ffa726", "#9e9e9e")
RUN_COLOUR = "#e65100"
# The plot at a phone's width: with the bytes axis's labels it fits the 286 px column of a 360 px screen.
WIDTH, HEIGHT = 210, 220
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
    lines = (
        alt.Chart(alt.NamedData(name="lines"))
        .mark_line(point=alt.OverlayMarkDef(size=30, cursor="pointer"), strokeWidth=1.5)
        .encode(x=x, y=y, color=colour, tooltip=["label:N"])
    )
    run = (
        alt.Chart(alt.NamedData(name="run"))
        .mark_point(filled=True, size=110, color=RUN_COLOUR, stroke="white", strokeWidth=1)
        .encode(x=x, y=y, tooltip=["label:N"])
    )
    return (
        alt.layer(lines, run)
        .properties(
            width=WIDTH,
            height=HEIGHT,
            title=alt.TitleParams(
                ["What the run keeps on disk,", "by model size"],
                subtitle=["Orange dots: your run. Drag across the", "chart to move the model size."],
            ),
        )
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
