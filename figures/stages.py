"""Every stage's range of GPUs and of wall-clock time on shared log scales, the picture the stages widget
opens on: a bar per stage from its smallest to its largest published run, a point per run, one row per
stage in pipeline order under its name, the picked stage in the strong colour. The two panels stack, so
that the chart keeps the column's width; each stage's bytes are a further figure under it
(figures/stage_bytes.py).

The rows are the named datasets "stages" (the ranges) and "runs" (the points),
which the widget's update returns from estimators.stage_span; labels are
preformatted by estimators.units.
"""

import altair as alt

from estimators import units

from . import _pinned

DATASETS = ("stages", "runs")
PICKED_COLOUR, OTHER_COLOUR = "#5c6bc0", "#90a4ae"  # mid-tones that read on both palettes
# Drawing size in CSS pixels: a panel and its labels fit a 360 px phone's column (about 286 px) at
# their own size, never scaled below legible text nor scrolled sideways; a wider column scales the
# picture up to the other charts' size (widgets.css). Each row: the stage's name, its bar under it.
PANEL_WIDTH, ROW_HEIGHT, BAR_HEIGHT = 250, 34, 9
# Log axes, a grid line at each tick and a label at every other one, so that labels never touch:
# GPUs from one, at each factor of ten; time from ten minutes to half a year.
GPU_TICKS = [10**k for k in range(0, 6)]
GPU_LABELS = GPU_TICKS[::2]
_DAY = 24 * units.SECONDS_PER_HOUR
TIME_TICKS = [600, units.SECONDS_PER_HOUR, _DAY, 7 * _DAY, 30 * _DAY, 180 * _DAY]
TIME_LABELS = [units.SECONDS_PER_HOUR, _DAY, 30 * _DAY]


def tick_labels(ticks: list, text) -> str:
    """A Vega label expression naming each tick by `text(tick)`."""
    return " : ".join(f"datum.value == {tick} ? '{text(tick)}'" for tick in ticks) + " : ''"


def _colour():
    return alt.condition("datum.picked", alt.value(PICKED_COLOUR), alt.value(OTHER_COLOUR))


def _panel(field: str, title: str, ticks: list, labels: str, tooltip: str) -> alt.LayerChart:
    """One panel: each stage's range as a bar (`{field}_low` to `{field}_high`), each run a point."""
    x = alt.X(f"{field}_low:Q", scale=alt.Scale(type="log", domain=[ticks[0], ticks[-1]]),
              axis=alt.Axis(title=title, values=ticks, labelExpr=labels, grid=True))
    y = alt.Y("stage:N", sort=alt.EncodingSortField("order"), title=None, axis=None,
              scale=alt.Scale(paddingInner=0, paddingOuter=0, align=1))
    ranges = alt.Chart(alt.NamedData(name="stages")).mark_bar(height=BAR_HEIGHT, cornerRadius=3, opacity=1).encode(
        x=x, x2=f"{field}_high:Q", y=y, color=_colour(),
        tooltip=[alt.Tooltip(f"{tooltip}:N", title="range")],
    )
    points = alt.Chart(alt.NamedData(name="runs")).mark_point(filled=True, size=70, opacity=1, stroke="white",
                                                               strokeWidth=1).encode(
        x=alt.X(f"{field}:Q"), y=y, color=_colour(),
        tooltip=[alt.Tooltip(f"{tooltip}:N", title="published run")],
    )
    # The stage's name over the top of its row, left-aligned, the bar and points below it.
    names = alt.Chart(alt.NamedData(name="stages")).mark_text(
        align="left", baseline="top", fontSize=10, dy=-ROW_HEIGHT / 2 + 1).encode(
        x=alt.value(0), y=y, text="stage:N")
    return alt.layer(ranges, points, names, *_pinned.drawn(ranges, "stages", keep="datum.picked")).properties(width=PANEL_WIDTH, height=alt.Step(ROW_HEIGHT))


def chart() -> alt.VConcatChart:
    """Rows of "stages" (`stage` is its name): {stage, order, picked, gpus_low, gpus_high, seconds_low, seconds_high, gpus_label,
    time_label}; of "runs": {stage, order, run, picked, gpus, seconds, gpus_label, time_label}."""
    gpus = _panel("gpus", "GPUs per run (log scale)", GPU_TICKS, tick_labels(GPU_LABELS, units.integer),
                  tooltip="gpus_label")
    time = _panel("seconds", "wall-clock time (log scale)", TIME_TICKS, tick_labels(TIME_LABELS, units.duration),
                  tooltip="time_label")
    return (
        alt.vconcat(gpus, time, spacing=14)
        .properties(title=alt.Title("Each stage's range", subtitle=["bar: smallest to largest published run;", "point: each run"],
                                    subtitleFontSize=10))
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
