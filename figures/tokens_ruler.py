"""A ruler of training tokens per parameter, on a log scale: one marker per model.

The markers are the named dataset "markers" (rows of {name, ratio, label,
picked, pick}): `picked` marks the reader's model, and `pick` ("model=<key>")
lets a click on a marker pick it (runtime.js). Markers take turns over
a row of its own in the order of their ratios, its name beside it on the side with room, so no two
labels meet at any width. The violet rule is the compute-optimal ratio, from estimators.compute.
Drawn at a phone's width; widgets.css scales it up to the column on a wider screen.
"""

import altair as alt

from estimators import units
from estimators.compute import CHINCHILLA_TOKENS_PER_PARAM

from . import _axis_labels, _pinned

DATASETS = ("markers",)
# From under GPT-3's ratio to past the most over-trained small models; a tick per decade.
RATIO_RANGE = (1, 2e4)
DECADES = (1, 10, 100, 1000, 10000)
MARKER_COLOUR, PICKED_COLOUR, RULE_COLOUR = "#5c6bc0", "#e65100", "#7c4dff"
WIDTH, ROW = 250, 22  # px: the ruler fits a 360 px phone's column (about 286 px) with its labels
# A marker right of this ratio has its name on its left, where the ruler has room for it.
NAME_LEFT_FROM = 100


def chart() -> alt.LayerChart:
    x = alt.X(
        "ratio:Q",
        scale=alt.Scale(type="log", domain=list(RATIO_RANGE)),
        axis=alt.Axis(title="training tokens per parameter (log scale)", values=list(DECADES), labelExpr=_axis_labels.number()),
    )
    y = alt.Y("index:O", axis=None)
    base = (
        alt.Chart(alt.NamedData(name="markers"))
        .transform_window(index="row_number()", sort=[alt.SortField("ratio")])
        .encode(x=x, y=y, tooltip=["label:N"])
    )
    picked = alt.datum.picked
    points = base.mark_point(filled=True, opacity=1, cursor="pointer").encode(
        size=alt.condition(picked, alt.value(200), alt.value(90)),
        color=alt.condition(picked, alt.value(PICKED_COLOUR), alt.value(MARKER_COLOUR)),
    )
    names = [
        base.transform_filter(f"datum.ratio {side} {NAME_LEFT_FROM}").mark_text(
            align=align, dx=dx, fontSize=11, cursor="pointer").encode(
            text="name:N", color=alt.condition(picked, alt.value(PICKED_COLOUR), alt.value(MARKER_COLOUR)))
        for side, align, dx in (("<", "left", 9), (">=", "right", -9))
    ]
    optimum = (
        alt.Chart(alt.Data(values=[{"ratio": CHINCHILLA_TOKENS_PER_PARAM}]))
        .mark_rule(color=RULE_COLOUR, strokeWidth=2, strokeDash=[4, 3])
        .encode(x=x)
    )
    return (
        alt.layer(optimum, points, *names, *_pinned.drawn(points, "markers", keep="datum.picked"))
        .properties(
            width=WIDTH,
            height=alt.Step(ROW),
            title=alt.TitleParams(
                ["Tokens per parameter,", "released models"],
                subtitle=[f"Dashed violet: compute-optimal, about {units.plain(CHINCHILLA_TOKENS_PER_PARAM)}.", "Pick a marker."],
            ),
        )
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
