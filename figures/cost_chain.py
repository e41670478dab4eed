"""What a run costs: the chain from its GPU-hours to its energy, emissions and cost, one log axis each,
with published runs beside it for scale.

Rows "footprint" {stage, run, order, value, label, yours}: each run's figure at each stage of CHAIN,
every label preformatted by estimators.units. The published runs' footprints come from their
reports' own inputs (estimators.published_footprint); no report gives a cost, so theirs is their
GPU-hours at the price the reader picked.
"""

import altair as alt

from . import _axis_labels, _pinned

DATASETS = ("footprint",)
# The stages, in order: each one's key in the rows, its axis title, and how its ticks read (as the
# widget's outputs print the same figures).
CHAIN = (
    ("gpu_hours", "GPU-hours", _axis_labels.count()),
    ("energy", "energy, facility included", _axis_labels.si("Wh")),
    ("emissions", "t CO₂e", _axis_labels.number()),
    ("cost", "US dollars", f"'$' + ({_axis_labels.count()})"),
)
# Drawn at a phone's width, as the N × D plane above it is: the runs' names take about 90 px of it.
WIDTH, NAMES_WIDTH = 220, 90
# One row per run at a phone's size of text.
ROW_STEP = 10
RUN_COLOUR, PUBLISHED_COLOUR = "#e65100", "#9e9e9e"  # the plane's dot, and its equal-compute lines
# Whether a log axis's tick is a power of ten: Vega ticks 2, 3 … 9 between them too, which crowd.
_EXPONENT = "log(datum.value) / LN10"
_DECADE = f"abs({_EXPONENT} - round({_EXPONENT})) < 1e-6"


def _decade_axis(title: str, labels: str) -> alt.Axis:
    """A log axis labelled, ticked and gridded at its powers of ten only."""
    only = {"condition": {"test": _DECADE, "value": 1}, "value": 0}
    return alt.Axis(title=title, labelExpr=f"{_DECADE} ? {labels} : ''", labelOverlap=True, grid=True, tickCount=3,
                    gridOpacity=only, tickOpacity=only, titlePadding=2)


def _stage(key: str, title: str, labels: str) -> alt.LayerChart:
    """One link of the chain: each run's figure as a dot on a log axis, this run's coloured; a pinned run's
    dot on this run's row too."""
    runs = (
        alt.Chart(alt.NamedData(name="footprint"))
        .transform_filter(alt.datum.stage == key)
        .mark_point(filled=True, size=40, opacity=1)
        .encode(
            x=alt.X("value:Q", scale=alt.Scale(type="log", padding=8), axis=_decade_axis(title, labels)),
            y=alt.Y("run:N", sort=alt.EncodingSortField("order", op="min"), axis=alt.Axis(title=None, labelLimit=NAMES_WIDTH, grid=True)),
            color=alt.Color("yours:N", scale=alt.Scale(domain=[False, True], range=[PUBLISHED_COLOUR, RUN_COLOUR]), legend=None),
            tooltip=["label:N"],
        )
    )
    return alt.layer(runs, *_pinned.drawn(runs, "footprint", keep="datum.yours")).properties(
        width=WIDTH - NAMES_WIDTH, height=alt.Step(ROW_STEP))


def chart() -> alt.VConcatChart:
    """The four stages, one under the other."""
    return (
        alt.vconcat(*(_stage(*stage) for stage in CHAIN), spacing=4)
        .properties(title=alt.TitleParams(
            "From GPU-hours to what they cost",
            subtitle=["Orange: this run. Grey: each report's largest run,", "from its own inputs; its cost at the price picked."],
        ))
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
