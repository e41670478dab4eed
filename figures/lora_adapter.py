"""The adapted layer at its true shapes, a further figure under the fine-tuning widget's fit (folded once
live): the frozen W (d × k) beside the trained update B·A (B d × r, A r × k), every length in units of the
larger of d and k, so a narrow k or v projection looks narrow; r is drawn wider than life where it would
not show (the line above says how much). The widget gives the layer's sizes; where each matrix stands is
this figure's (PLACED, Vega expressions over them). Rows: "adapter" {name, d, k, r, trained, tag, label},
"adapter_note" {label, d, k, r}; every text preformatted by estimators.units, or, for how r is drawn, by
the expression _axis_labels.times that re-enacts it.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("adapter", "adapter_note")
# The adapter as the picture draws it: the rank r is a sliver of d and k (16 of 4,096 is under half a
# pixel at a phone's width), so it is drawn at least this share of the larger of d and k, and said so.
DRAWN_RANK_SHARE = 0.06
# ...and at most this share, so that a rank near d keeps the picture in its frame (drawn narrower, and said so).
DRAWN_RANK_MAX = 0.2
ADAPTER_GAP = 0.12  # between the frozen W and the product B·A, as a share of the larger of d and k
# The frame every layout fits in, in units of max(d, k): two matrices of at most one unit, the gap and r.
ADAPTER_FRAME = (2 + ADAPTER_GAP + DRAWN_RANK_MAX, 1 + DRAWN_RANK_MAX)

# Where each matrix of a row {name, d, k, r} stands, over max(d, k): W (d rows, k columns) on the left under
# A's strip, B's column of width r after the gap, A's row of height r on top of B·A, so B·A spans W's shape.
_UNIT = "max(datum.d, datum.k)"
_TRUE_RANK = f"(datum.r / {_UNIT})"
DRAWN_RANK = f"clamp({_TRUE_RANK}, {DRAWN_RANK_SHARE}, {DRAWN_RANK_MAX})"
_W_WIDTH, _W_HEIGHT, _B_LEFT = f"(datum.k / {_UNIT})", f"(datum.d / {_UNIT})", f"(datum.k / {_UNIT} + {ADAPTER_GAP})"
PLACED = {
    "x0": f"datum.name == 'W' ? 0 : datum.name == 'B' ? {_B_LEFT} : {_B_LEFT} + {DRAWN_RANK}",
    "x1": f"datum.name == 'W' ? {_W_WIDTH} : datum.name == 'B' ? {_B_LEFT} + {DRAWN_RANK} : "
          f"{_B_LEFT} + {DRAWN_RANK} + {_W_WIDTH}",
    "y0": f"datum.name == 'A' ? 0 : {DRAWN_RANK}",
    "y1": f"datum.name == 'A' ? {DRAWN_RANK} : {DRAWN_RANK} + {_W_HEIGHT}",
}
# How many times wider than life r is drawn (1: to scale), and the note's line that says so.
WIDENED = f"{DRAWN_RANK} / {_TRUE_RANK}"
HOW_R_IS_DRAWN = (f"datum.widened == 1 ? 'r drawn to scale' : 'r drawn ' + {_axis_labels.times('datum.widened')} + "
                  "(datum.widened > 1 ? ' wider' : ' narrower') + ' than life'")
# Drawn at a phone's width (about 286 px of column at 360 px); the page scales it up on a wider one.
WIDTH = 250
# One scale for both directions of the adapter, so that its matrices keep their aspect.
PX_PER_UNIT = WIDTH / ADAPTER_FRAME[0]
FROZEN_COLOUR, TRAINED_COLOUR = "#9e9e9e", "#26a69a"
# Two lines of 10 px text above the matrices (the layer drawn, how r is drawn), and a gap under them.
NOTE_HEIGHT = 30


def _adapter() -> alt.LayerChart:
    x = alt.Scale(domain=[0, ADAPTER_FRAME[0]], nice=False, zero=True)
    # Reversed: a layout's y runs down the page, as a matrix's rows do.
    y = alt.Scale(domain=[0, ADAPTER_FRAME[1]], nice=False, zero=True, reverse=True)
    boxes = alt.Chart(alt.NamedData(name="adapter")).transform_calculate(**PLACED)
    rects = boxes.mark_rect(stroke="#616161", strokeWidth=1).encode(
        x=alt.X("x0:Q", scale=x, axis=None), x2="x1:Q",
        y=alt.Y("y0:Q", scale=y, axis=None), y2="y1:Q",
        color=alt.Color("trained:N", scale=alt.Scale(domain=[False, True], range=[FROZEN_COLOUR, TRAINED_COLOUR]),
                        legend=None),
        tooltip=[alt.Tooltip("label:N", title="matrix")],
    )
    # Each matrix named where no other is: W inside its top-left corner, A under its own strip (the
    # empty corner of B·A), B under its column. Its shape is in its text alternative.
    def tag(name: str, y_field: str):
        return boxes.transform_filter(f"datum.name == '{name}'").mark_text(
            align="left", baseline="top", dx=3, dy=3, fontSize=10, fontWeight="bold", lineBreak="\n").encode(
            x=alt.X("x0:Q", scale=x, axis=None), y=alt.Y(f"{y_field}:Q", scale=y, axis=None), text="tag:N")

    # Two lines (broken at "\n"): the layer the widget names, then how r is drawn.
    note = alt.Chart(alt.NamedData(name="adapter_note")).transform_calculate(widened=WIDENED).transform_calculate(
        text=f"datum.label + '\\n' + ({HOW_R_IS_DRAWN})").mark_text(
        align="left", baseline="top", fontSize=10, lineBreak="\n").encode(
        x=alt.value(0), y=alt.value(-NOTE_HEIGHT), text="text:N")
    return alt.layer(rects, tag("W", "y0"), tag("A", "y1"), tag("B", "y1"), note,
                     # The word in the corner B·A leaves empty: A's strip runs along the top.
                     *_pinned.drawn(rects, "adapter", bottom=True)).properties(
        width=WIDTH, height=PX_PER_UNIT * ADAPTER_FRAME[1],
        title=alt.Title("The adapted layer, to its shapes", offset=NOTE_HEIGHT + 6))


def chart() -> alt.LayerChart:
    return _adapter().configure(background="transparent").configure_view(stroke=None)
