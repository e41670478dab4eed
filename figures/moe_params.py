"""Dense against mixture-of-experts: the two blocks with the current token's path lit, above total
against active parameters on one scale.

Upper panels: a dense block (attention, then one feed-forward network every token passes through,
all lit) beside an MoE block (attention, the router, then a grid of its experts placed by
estimators.expert_cells, the current token's top-k lit). The line above them says which token and
where it goes. Lower panel: for each model a bar of what it stores and, over it, a bar of what one
token passes through; under each mixture-of-experts model, a dense model of its active size. Rows:
"experts" {expert, x0, x1, y0, y1, lit, label}, "path" {label}, "params" {model, order, part,
params, label}, from the widget's update; every text preformatted by estimators.units.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("params", "experts", "path")
# Stored in a light tone, used per token in a strong one: mid-tones that read on both palettes.
PART_COLOURS = {"stored (total)": "#90a4ae", "used per token (active)": "#5c6bc0"}
LIT, UNLIT, EDGE = "#ffa726", "#b0bec5", "#78909c"
# Drawn at a phone's width (about 286 px of column at 360 px); the page scales it up on a wider one.
DENSE_W, MOE_W, BOX_H, GAP = 66, 176, 22, 10
GRID_TOP = 2 * (BOX_H + GAP)  # under the attention and router boxes
PANEL_H = GRID_TOP + MOE_W  # the grid is square at most: EXPERTS_PER_ROW rows of EXPERTS_PER_ROW
PATH_LINES = 38  # three lines of 10 px text above the blocks
PLOT_WIDTH, ROW_HEIGHT = 150, 26


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
    return alt.layer(*layers, cells).properties(
        width=MOE_W, height=PANEL_H, title=alt.Title("MoE block: router, experts", fontSize=11, anchor="start"))


def _path() -> alt.Chart:
    """The line above the blocks: which token, and where it goes. A panel of its own, so that its
    length never pushes the blocks apart."""
    return alt.Chart(alt.NamedData(name="path")).mark_text(
        # limit: a top-8 of three-digit experts is cut with an ellipsis (the output above has it whole),
        # never widening the picture past its column.
        align="left", baseline="top", fontSize=10, fontWeight="bold", lineBreak="\n", limit=DENSE_W + MOE_W + 10).encode(
        x=alt.value(0), y=alt.value(0), text="label:N").properties(width=DENSE_W + MOE_W, height=PATH_LINES)


def _params() -> alt.LayerChart:
    bars = (
        alt.Chart(alt.NamedData(name="params"))
        .mark_bar(height=ROW_HEIGHT - 8)
        .encode(
            x=alt.X("params:Q", stack=None,
                    axis=alt.Axis(title="parameters", labelExpr=_axis_labels.count(), tickCount=4, grid=True)),
            # The names on the right: on the left they would hang past the panels above, which start at 0.
            y=alt.Y("model:N", sort=alt.EncodingSortField("order", op="min"), title=None,
                    axis=alt.Axis(labelLimit=110, orient="right")),
            color=alt.Color("part:N", sort=list(PART_COLOURS),
                            scale=alt.Scale(domain=list(PART_COLOURS), range=list(PART_COLOURS.values())),
                            legend=alt.Legend(title=None, orient="bottom", symbolType="square", columns=1)),
            # Stored first, so the active bar is drawn over it.
            order=alt.Order("part:N", sort="ascending"),
            tooltip=[alt.Tooltip("label:N", title="parameters")],
        )
    )
    return alt.layer(bars, *_pinned.drawn(bars, "params")).properties(
        width=PLOT_WIDTH, height=alt.Step(ROW_HEIGHT), title=alt.Title("Stored against used per token, one scale", fontSize=11, anchor="start"))


def chart() -> alt.VConcatChart:
    blocks = alt.hconcat(_dense(), _moe(), spacing=20)
    return (
        alt.vconcat(_path(), blocks, _params(), spacing=16)
        .resolve_scale(color="independent")
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
