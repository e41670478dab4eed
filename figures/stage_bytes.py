"""Each stage's bytes, what it reads (its dataset as token ids) and what it hands on (its artifact), as
ranges where its published runs name them, one row per stage in pipeline order under its name: a further
figure under the stages widget's ranges of GPUs and time (figures/stages.py), folded once live, on the
same rows. The picked stage's artifact is drawn again for a pinned state.

Rows of "stages" (the widget's update, from estimators.stage_span): {stage, order, picked, read_low,
read_high, handed_low, handed_high, read_label, handed_label}; labels preformatted by estimators.units.
"""

import altair as alt

from estimators import units

from . import _pinned
from .stages import BAR_HEIGHT, PANEL_WIDTH, ROW_HEIGHT, tick_labels

DATASETS = ("stages",)
# Bytes from a small adapter to a pretraining corpus, a tick at each factor of ten.
BYTES_TICKS = [10.0**k for k in range(8, 15)]
BYTES_LABELS = BYTES_TICKS[1::2]
READ_COLOUR, HANDED_COLOUR = "#009e73", "#cc79a7"  # what a stage reads, what it hands on


def _bytes_panel() -> alt.LayerChart:
    """Each stage's dataset (its token ids) and artifact as ranges of bytes, where its runs name them."""
    x = alt.X("read_low:Q", scale=alt.Scale(type="log", domain=[BYTES_TICKS[0], BYTES_TICKS[-1]]),
              axis=alt.Axis(title="bytes read (green) and handed on (pink)", values=BYTES_TICKS,
                            labelExpr=tick_labels(BYTES_LABELS, units.bytes_), grid=True))
    y = alt.Y("stage:N", sort=alt.EncodingSortField("order"), title=None, axis=None,
              scale=alt.Scale(paddingInner=0, paddingOuter=0, align=1))
    rows = alt.Chart(alt.NamedData(name="stages"))
    read = rows.transform_filter("datum.read_low != null").mark_bar(
        height=BAR_HEIGHT / 2 + 1, cornerRadius=2, color=READ_COLOUR, yOffset=-BAR_HEIGHT / 4 - 1).encode(
        x=x, x2="read_high:Q", y=y, tooltip=[alt.Tooltip("read_label:N", title="dataset")])
    handed = rows.transform_filter("datum.handed_low != null").mark_bar(
        height=BAR_HEIGHT / 2 + 1, cornerRadius=2, color=HANDED_COLOUR, yOffset=BAR_HEIGHT / 4 + 1).encode(
        x=alt.X("handed_low:Q"), x2="handed_high:Q", y=y, tooltip=[alt.Tooltip("handed_label:N", title="artifact")])
    # Each end of a range a dot: a stage whose runs agree is a dot alone, never a bar of no width.
    ends = [rows.transform_filter(f"datum.{kind}_low != null").transform_fold([f"{kind}_low", f"{kind}_high"], as_=["end", "bytes"])
            .mark_point(filled=True, opacity=1, size=40, color=colour, yOffset=offset)
            .encode(x=alt.X("bytes:Q"), y=y, tooltip=[alt.Tooltip(f"{kind}_label:N", title=title)])
            for kind, colour, offset, title in (("read", READ_COLOUR, -BAR_HEIGHT / 4 - 1, "dataset"),
                                                ("handed", HANDED_COLOUR, BAR_HEIGHT / 4 + 1, "artifact"))]
    names = rows.mark_text(align="left", baseline="top", fontSize=10, dy=-ROW_HEIGHT / 2 + 1).encode(
        x=alt.value(0), y=y, text="stage:N")
    # Every stage hands on an artifact (not every one names its dataset): the pinned stage's is drawn again.
    return alt.layer(read, handed, *ends, names, *_pinned.drawn(handed, "stages", keep="datum.picked")).properties(
        width=PANEL_WIDTH, height=alt.Step(ROW_HEIGHT))


def chart() -> alt.LayerChart:
    return _bytes_panel().configure(background="transparent").configure_view(stroke=None)
