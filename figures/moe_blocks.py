"""Dense against mixture-of-experts, the picture the widget opens on: a dense block (attention, then
one feed-forward network every token passes through, all lit) beside an MoE block (attention, the
router, then a grid of its experts placed by estimators.expert_cells, the current token's top-k lit),
under a line that says which token and where it goes. What each model stores against what one token
uses is a further figure under it (figures/moe_params.py). Rows: "experts" {expert, x0, x1, y0, y1,
lit, label}, "path" {label}, from the widget's update; every text preformatted by estimators.units.
"""

import altair as alt

from . import _pinned

DATASETS = ("experts", "path")
LIT, UNLIT, EDGE = "#ffa726", "#b0bec5", "#78909c"
# Drawn at a phone's width (about 286 px of column at 360 px); the page scales it up on a wider one.
DENSE_W, MOE_W, BOX_H, GAP = 66, 176, 22, 10
GRID_TOP = 2 * (BOX_H + GAP)  # under the attention and router boxes
PANEL_H = GRID_TOP + MOE_W  # the grid is square at most: EXPERTS_PER_ROW rows of EXPERTS_PER_ROW
PATH_LINES = 38  # three lines of 10 px text above the blocks


def _one() -> alt.Chart:
    """A chart of one empty row, for marks placed in pixels."""
    return alt.Chart(alt.Data(values=[{}]))


def _box(x: float, width: float, top: float, height: float, text: str, lit: bool = False) -> list:
    frame = _one().mark_rect(fill=LIT if lit else "transparent", stroke=LIT if lit else EDGE, strokeWidth=2 if lit else 1,
                             aria=False).encode(
        x=alt.value(x), x2=alt.value(x + width), y=alt.value(top), y2=alt.value(top + height))
    name = _one().mark_text(fontSize=10, baseline="middle", aria=False).encode(
        x=alt.value(x + width / 2), y=alt.value(top + height / 2), text=alt.value(text))
    return [frame, name]


def _dense() -> alt.LayerChart:
    layers = _box(0, DENSE_W, 0, BOX_H, text="attention", lit=True)
    layers += _box(0, DENSE_W, BOX_H + GAP, PANEL_H - BOX_H - GAP, text="one FFN", lit=True)
    return alt.layer(*layers).properties(width=DENSE_W, height=PANEL_H, title=alt.Title("Dense block", fontSize=11, anchor="start"))


def _moe() -> alt.LayerChart:
    cells = alt.Chart(alt.NamedData(name="experts")).mark_rect(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("x0:Q", scale=alt.Scale(domain=[0, 1], range=[0, MOE_W], nice=False), axis=None), x2="x1:Q",
        y=alt.Y("y0:Q", scale=alt.Scale(domain=[0, 1], range=[GRID_TOP, GRID_TOP + MOE_W], nice=False), axis=None),
        y2="y1:Q",
        color=alt.Color("lit:N", scale=alt.Scale(domain=[True, False], range=[LIT, UNLIT]), legend=None),
        tooltip=[alt.Tooltip("label:N", title="expert")],
    )
    layers = _box(0, MOE_W, 0, BOX_H, text="attention", lit=True) + _box(0, MOE_W, BOX_H + GAP, BOX_H, text="router",
                                                                         lit=True)
    # The pinned state's lit experts outlined and dashed over the grid: where its token went, against where this
    # one goes. Without the word "dashed: pinned" in the plot's corner, where it would stand over the attention
    # box's name: the outlines' text alternatives say "Pinned", and the widget's pinned lines say it in words.
    return alt.layer(*layers, cells, _pinned.beside(cells, "experts", keep="datum.lit")).properties(
        width=MOE_W, height=PANEL_H, title=alt.Title("MoE block: router, experts", fontSize=11, anchor="start"))


def _path() -> alt.Chart:
    """The line above the blocks: which token, and where it goes. A panel of its own, so that its
    length never pushes the blocks apart."""
    return alt.Chart(alt.NamedData(name="path")).mark_text(
        # limit: a top-8 of three-digit experts is cut with an ellipsis (the output above has it whole),
        # never widening the picture past its column.
        align="left", baseline="top", fontSize=10, fontWeight="bold", lineBreak="\n", limit=DENSE_W + MOE_W + 10).encode(
        x=alt.value(0), y=alt.value(0), text="label:N").properties(width=DENSE_W + MOE_W, height=PATH_LINES)


def chart() -> alt.VConcatChart:
    return (
        alt.vconcat(_path(), alt.hconcat(_dense(), _moe(), spacing=20), spacing=16)
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
