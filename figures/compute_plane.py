"""The N × D plane: parameters against training tokens, both on log scales.

Dashed diagonals are equal-compute lines (every point on one costs the same
6ND FLOPs), the violet line is the Chinchilla-optimal split, and the dot is a
run. All coordinates come from estimators; numpy only lays out the grids.
"""

import altair as alt
import numpy as np

from estimators.compute import CHINCHILLA_TOKENS_PER_PARAM, compute_optimal, training_flops
from estimators import units

from . import _axis_labels, _pinned

DATASETS = ("run",)
# The plotted window, in parameters and tokens: from GPT-2 small to beyond the
# largest dense models, and from a billion tokens to beyond FineWeb's 15T.
PARAMS_RANGE = (1e8, 1e13)
TOKENS_RANGE = (1e9, 1e14)
# One equal-compute line per decade of FLOPs across the window.
FLOPS_DECADES = range(19, 29)
GRID_POINTS = 50
# Drawn at a phone's width: with the tokens axis's labels it fits the 286 px column of a 360 px
# screen, square as the two axes span five decades each (widgets.css scales it up on a wider one).
WIDTH, HEIGHT = 220, 220


def _equal_compute_rows() -> list[dict]:
    params = np.geomspace(*PARAMS_RANGE, GRID_POINTS)
    rows = []
    for decade in FLOPS_DECADES:
        flops = 10.0**decade
        for n in params:
            tokens = flops / training_flops(float(n), 1)
            if TOKENS_RANGE[0] <= tokens <= TOKENS_RANGE[1]:
                rows.append({"params": float(n), "tokens": tokens, "line": units.sci(flops) + " FLOPs"})
    return rows


def _chinchilla_rows() -> list[dict]:
    rows = []
    for flops in np.geomspace(10.0 ** FLOPS_DECADES[0], 10.0 ** FLOPS_DECADES[-1], GRID_POINTS):
        n, d = compute_optimal(float(flops))
        if PARAMS_RANGE[0] <= n <= PARAMS_RANGE[1] and TOKENS_RANGE[0] <= d <= TOKENS_RANGE[1]:
            rows.append({"params": n, "tokens": d})
    return rows


def _log_axis(title: str, extent: tuple) -> alt.Axis:
    """Ticks at each decade, labelled as model cards write counts (1B, not 1G)."""
    decades = [10.0**k for k in range(round(np.log10(extent[0])), round(np.log10(extent[1])) + 1)]
    return alt.Axis(title=title, values=decades, labelExpr=_axis_labels.count())


def chart() -> alt.LayerChart:
    """The plane; the run is the named dataset "run": rows of {params, tokens, label}."""
    x = alt.X("params:Q", axis=_log_axis("parameters N", PARAMS_RANGE), scale=alt.Scale(type="log", domain=list(PARAMS_RANGE)))
    y = alt.Y("tokens:Q", axis=_log_axis("training tokens D", TOKENS_RANGE), scale=alt.Scale(type="log", domain=list(TOKENS_RANGE)))
    equal = (
        # Named, so the chart's data as CSV (runtime.js) holds the lines, as the picture does.
        alt.Chart(alt.Data(values=_equal_compute_rows(), name="equal_compute_lines"))
        .mark_line(strokeDash=[4, 4], strokeWidth=1, color="#9e9e9e", clip=True)
        .encode(x=x, y=y, detail="line:N", tooltip=["line:N"])
    )
    chinchilla = (
        alt.Chart(alt.Data(values=_chinchilla_rows(), name="chinchilla_optimal_line"))
        .mark_line(color="#7c4dff", strokeWidth=2, clip=True)
        .encode(x=x, y=y)
    )
    run = (
        alt.Chart(alt.NamedData(name="run"))
        .mark_point(filled=True, size=90, opacity=1, color="#e65100")
        .encode(x=x, y=y, tooltip=["label:N"])
    )
    return (
        alt.layer(equal, chinchilla, run, *_pinned.drawn(run, "run"))
        .properties(
            width=WIDTH,
            height=HEIGHT,
            title=alt.TitleParams(
                ["Where the run sits", "on the N × D plane"],
                subtitle=[
                    "Dashed: equal compute, one line per",
                    "factor of ten in FLOPs. Violet: Chinchilla-",
                    f"optimal, D = {units.plain(CHINCHILLA_TOKENS_PER_PARAM)} N. Dot: this run.",
                ],
            ),
        )
        # configure() replaces the whole config, so it comes before configure_view().
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
