"""Every stage's GPU count and wall-clock time, side by side on shared log
scales: one row per stage in pipeline order, the picked stage in the strong
colour.

The rows are the named dataset "stages", which the widget's update returns
from the `stages` presets; labels are preformatted by estimators.units.
"""

import altair as alt

from estimators import units

DATASETS = ("stages",)
PICKED_COLOUR, OTHER_COLOUR = "#5c6bc0", "#90a4ae"  # mid-tones that read on both palettes
# Drawing size of each panel in CSS pixels; the page scales the SVG to its column.
PANEL_WIDTH, ROW_HEIGHT = 280, 26
# Log axes from one GPU and one hour up, a tick at each factor of ten.
GPU_TICKS = [10**k for k in range(0, 6)]
TIME_TICKS = [units.SECONDS_PER_HOUR * 10**k for k in range(0, 5)]


def _labels(ticks: list, text) -> str:
    """A Vega label expression naming each tick by `text(tick)`."""
    return " : ".join(f"datum.value == {tick} ? '{text(tick)}'" for tick in ticks) + " : ''"


def _panel(field: str, title: str, ticks: list, labels: str, tooltip: str, names: bool) -> alt.LayerChart:
    """One panel; `names`: label the rows with the stages (the left panel only)."""
    base = alt.Chart(alt.NamedData(name="stages")).encode(
        x=alt.X(f"{field}:Q", scale=alt.Scale(type="log", domain=[ticks[0], ticks[-1]]),
                axis=alt.Axis(title=title, values=ticks, labelExpr=labels, grid=True)),
        # A log scale has no zero: each bar starts at the axis's first tick.
        x2=alt.datum(ticks[0]),
        y=alt.Y("stage:N", sort=alt.EncodingSortField("order"), title=None,
                axis=alt.Axis(labelLimit=260) if names else None),
        color=alt.condition("datum.picked", alt.value(PICKED_COLOUR), alt.value(OTHER_COLOUR)),
        tooltip=[alt.Tooltip(f"{tooltip}:N", title=title)],
    )
    # A dot at each bar's end, so that a stage on the first tick (one GPU) still shows.
    return alt.layer(base.mark_bar(height=ROW_HEIGHT - 8), base.mark_point(filled=True, size=60, opacity=1)).properties(
        width=PANEL_WIDTH, height=alt.Step(ROW_HEIGHT)
    )


def chart() -> alt.HConcatChart:
    """Rows of "stages": {stage, order, gpus, seconds, picked, gpus_label, time_label}."""
    gpus = _panel("gpus", "GPUs (log scale)", GPU_TICKS, _labels(GPU_TICKS, units.integer), "gpus_label", True)
    time = _panel("seconds", "wall-clock time (log scale)", TIME_TICKS,
                  _labels(TIME_TICKS, units.duration), "time_label", False)
    return (
        alt.hconcat(gpus, time, spacing=16)
        .properties(title="Each stage's GPUs and time, on the same log scales")
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
