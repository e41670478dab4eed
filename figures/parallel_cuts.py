"""The picked cut's collective between four of its GPUs, above each GPU's training state against
its memory.

Named datasets, the widget's update's rows: "sends" ({source, target, carries, label}: who
sends what to whom, estimators.cut_sends: a ring, neighbouring stages, or every GPU to every
other), "gpus" ({gpu, bytes, label}: each drawn GPU's training state, estimators.gpu_share),
"memory" ({bytes, label}: one GPU's memory) and "note" ({text}: the collective and what each GPU
sends a step, from estimators.layout_traffic). Each send is an arc from its GPU to the other, its
arrowhead at the receiver; an arc back the other way rides higher, so a pipeline's gradients and
an all-to-all's replies show beside what went out. Drawn at a phone's width, so it fits every
column (widgets.css scales it up on a wider one).
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("sends", "gpus", "memory", "note")
DRAWN_GPUS = 4  # the seed's picture: four GPUs under each cut
# Positions: GPU i sits at x = i; the axis leaves half a slot either side.
X_DOMAIN = [-0.5, DRAWN_GPUS - 0.5]
BAR_HALF_WIDTH = 0.3
PLOT_WIDTH = 185  # with the bytes axis, 286 px: a 360 px phone's column
ARC_HEIGHT, BAR_HEIGHT = 120, 130
# An arc's height (in the arc panel's units, 0 at the GPUs' tops): longer sends ride higher, and
# one going back (right to left) higher still, so opposite sends between two GPUs never overlap.
ARC_BASE, ARC_PER_GPU, ARC_BACK = 0.2, 0.25, 0.15
NOTE_Y = 1.9  # the note's first line, above the arcs
CARRY_COLOURS = ("#5c6bc0", "#ffa726", "#26a69a", "#ab47bc")  # mid-tones that read on both palettes
STATE_COLOUR = "#5c6bc0"
MEMORY_COLOUR = "#e53935"

_X_SCALE = alt.Scale(domain=X_DOMAIN, nice=False, zero=False)
# Fewer GPUs than slots (a cut over two or three) sit in the middle slots, not the first ones.
_CENTRED = f"({DRAWN_GPUS} - length(data('gpus'))) / 2"


def _arcs() -> alt.LayerChart:
    sends = alt.Chart(alt.NamedData(name="sends"))
    colour = alt.Color("carries:N", scale=alt.Scale(range=list(CARRY_COLOURS)),
                       legend=alt.Legend(title=None, orient="top", direction="vertical", labelLimit=260))
    y = alt.Y("y:Q", scale=alt.Scale(domain=[0, NOTE_Y + 0.1], nice=False), axis=None)
    arcs = (
        sends.transform_calculate(
            start=f"datum.source + {_CENTRED}", end=f"datum.target + {_CENTRED}",
            middle=f"(datum.source + datum.target) / 2 + {_CENTRED}",
            rise=f"{ARC_BASE} + {ARC_PER_GPU} * abs(datum.target - datum.source)"
                 f" + (datum.target < datum.source ? {ARC_BACK} : 0)",
        )
        .transform_fold(["start", "middle", "end"], as_=["point", "x"])
        .transform_calculate(y="datum.point === 'middle' ? datum.rise : 0")
        .mark_line(interpolate="cardinal", strokeWidth=1.5)
        .encode(x=alt.X("x:Q", scale=_X_SCALE, axis=None), y=y, color=colour, detail="label:N", order="x:Q",
                tooltip=["label:N"])
    )
    heads = (
        sends.transform_calculate(y="0.04", at=f"datum.target + {_CENTRED}")
        .mark_point(shape="triangle-down", filled=True, size=45, opacity=1)
        .encode(x=alt.X("at:Q", scale=_X_SCALE, axis=None), y=y, color=colour, tooltip=["label:N"])
    )
    note = (
        alt.Chart(alt.NamedData(name="note"))
        .mark_text(align="center", baseline="top", fontSize=10, lineBreak="; ")
        .encode(x=alt.value(PLOT_WIDTH / 2), y=alt.value(0), text="text:N")
    )
    return alt.layer(arcs, heads, note).properties(width=PLOT_WIDTH, height=ARC_HEIGHT)


def _state() -> alt.LayerChart:
    gpus = alt.Chart(alt.NamedData(name="gpus"))
    bars = (
        gpus.transform_calculate(left=f"datum.gpu + {_CENTRED} - {BAR_HALF_WIDTH}",
                                 right=f"datum.gpu + {_CENTRED} + {BAR_HALF_WIDTH}")
        .mark_rect(color=STATE_COLOUR)
        .encode(x=alt.X("left:Q", scale=_X_SCALE, axis=None), x2="right:Q",
                y=alt.Y("bytes:Q", axis=alt.Axis(title="training state", labelExpr=_axis_labels.bytes_(), tickCount=4)),
                y2=alt.datum(0), tooltip=["label:N"])
    )
    # Each GPU named under its bar (a name, not a quantity: no axis of numbers to label).
    names = (
        gpus.transform_calculate(name="'GPU ' + (datum.gpu + 1)", at=f"datum.gpu + {_CENTRED}")
        .mark_text(baseline="top", dy=4, fontSize=10)
        .encode(x=alt.X("at:Q", scale=_X_SCALE, axis=None), y=alt.value(BAR_HEIGHT), text="name:N")
    )
    memory = alt.Chart(alt.NamedData(name="memory"))
    rule = memory.mark_rule(color=MEMORY_COLOUR, strokeWidth=2, strokeDash=[6, 3]).encode(y="bytes:Q", tooltip=["label:N"])
    # Said above the plot, not on the line: the line crosses the bars.
    label = memory.mark_text(align="left", baseline="bottom", dy=-4, fontSize=10).encode(
        x=alt.value(0), y=alt.value(0), text="label:N")
    return alt.layer(bars, names, rule, label, *_pinned.drawn(bars, "gpus")).properties(width=PLOT_WIDTH, height=BAR_HEIGHT)


def chart() -> alt.VConcatChart:
    return (
        alt.vconcat(_arcs(), _state(), spacing=22)
        .properties(title=alt.Title(["Who sends to whom, and", "what each GPU keeps"]))
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
