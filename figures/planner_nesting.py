"""How the planner's fastest layout nests its cuts: one data-parallel replica, GPU by GPU.

Each drawn pipeline stage is a band of cells, one per GPU, in the order the
layout numbers them (tensor-parallel ranks innermost, then context-parallel
ones), its first stages and its last; neighbouring context-parallel groups
alternate in shade, so each tensor-parallel group reads as a run of one shade.
A dashed outline marks the GPUs of one server (one scale-up domain), so a
tensor-parallel group inside a server and a pipeline crossing servers are
seen as such. The rows are the widget's update's: "gpus" (line, column,
group, label: the widget's gpu_placement), "servers" (line, first and last
column, label) and "labels" (line, text), every text preformatted by
estimators.units. Under them a key says what the shades and the outline mean. Coordinates are grid cells, so the chart keeps one scale
whatever the layout and the live redraw only swaps the rows.
"""

import altair as alt

from . import _pinned

DATASETS = ("gpus", "servers", "labels")
# Grid of the picture: 16 GPUs a line, four stages of a label line and two GPU lines, a footer line,
# then the key's lines.
COLUMNS, DRAWN_LINES = 16, 13
# The key: a cell of each shade, and a server's outline, each before what it means.
KEY_GPUS = ({"col": 0, "line": DRAWN_LINES, "group": 0, "label": "one shade"},
            {"col": 1, "line": DRAWN_LINES, "group": 1, "label": "the other shade"})
KEY_SERVER = ({"line": DRAWN_LINES + 2, "start": 0, "end": 2, "label": "one server"},)
KEY_TEXT = ({"line": DRAWN_LINES, "col": 2.4, "text": "each run of one shade: a tensor-parallel group,"},
            {"line": DRAWN_LINES + 1, "col": 2.4, "text": "the next one, in the other shade"},
            {"line": DRAWN_LINES + 2, "col": 2.4, "text": "a server: its GPUs on one scale-up link"})
LINES = DRAWN_LINES + 3
CELL = 17  # px a grid cell: 16 of them fit a 360 px phone's column (about 286 px)
GROUP_COLOURS = ("#5c6bc0", "#26a69a")  # mid-tones that read on the light and the dark palette alike
SERVER_COLOUR = "#ffa726"


def chart() -> alt.LayerChart:
    """Rows of "gpus": {col, line, group, label}; "servers": {line, start, end, label}; "labels": {line, col, text}."""
    layout = _layers(alt.NamedData(name="gpus"), alt.NamedData(name="servers"), alt.NamedData(name="labels"))
    return (
        alt.layer(*layout, *_layers(alt.Data(values=list(KEY_GPUS)), alt.Data(values=list(KEY_SERVER)), alt.Data(values=list(KEY_TEXT))),
                  *_pinned.drawn(layout[0], "gpus"))
        .properties(width=COLUMNS * CELL, height=LINES * CELL,
                    title=alt.Title("How the fastest layout nests its cuts", subtitle="one data-parallel replica, GPU by GPU",
                                    subtitleFontSize=10))
        .configure(background="transparent")
        .configure_view(stroke=None)
    )


def _layers(gpu_rows, server_rows, label_rows) -> tuple:
    """The cells, the servers' outlines and the texts, drawn from these rows: the layout's, or the key's."""
    none = None  # a grid of cells: no axis
    x_scale = alt.Scale(domain=[0, COLUMNS], nice=False, zero=True)
    y_scale = alt.Scale(domain=[0, LINES], nice=False, reverse=True)
    gpus = (
        alt.Chart(gpu_rows)
        .transform_calculate(x="datum.col + 0.1", x2="datum.col + 0.9", y="datum.line + 0.1", y2="datum.line + 0.9")
        .mark_rect()
        .encode(
            x=alt.X("x:Q", scale=x_scale, axis=none), x2="x2:Q",
            y=alt.Y("y:Q", scale=y_scale, axis=none), y2="y2:Q",
            color=alt.Color("group:N", scale=alt.Scale(domain=[0, 1], range=list(GROUP_COLOURS)), legend=None),
            tooltip=[alt.Tooltip("label:N", title="GPU")],
        )
    )
    servers = (
        alt.Chart(server_rows)
        .transform_calculate(x="datum.start + 0.02", x2="datum.end - 0.02", y="datum.line + 0.02", y2="datum.line + 0.98")
        .mark_rect(fill=None, stroke=SERVER_COLOUR, strokeWidth=1.5, strokeDash=[3, 2])
        .encode(x=alt.X("x:Q", scale=x_scale, axis=none), x2="x2:Q", y=alt.Y("y:Q", scale=y_scale, axis=none), y2="y2:Q",
                tooltip=[alt.Tooltip("label:N", title="server")])
    )
    labels = (
        alt.Chart(label_rows)
        .transform_calculate(y="datum.line + 0.75")
        .mark_text(align="left", fontSize=10, limit=COLUMNS * CELL)
        .encode(x=alt.X("col:Q", scale=x_scale, axis=none), y=alt.Y("y:Q", scale=y_scale, axis=none), text="text:N")
    )
    return gpus, servers, labels
