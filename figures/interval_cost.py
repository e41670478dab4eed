"""What each checkpoint interval costs a run over its window (work lost plus time spent writing), with the
Young/Daly optimum and the reader's interval marked: a further figure under the interruptions widget's
timeline (figures/interruptions.py), folded once live.

Named datasets, every row from estimators (checkpoint_overhead, optimal_checkpoint_interval) with its
label preformatted by units: "curve" {interval_min, overhead_h}; "marks" {interval_min, overhead_h,
label, kind}.
"""

import altair as alt

from . import _pinned
from .interruptions import WIDTH

DATASETS = ("curve", "marks")
CURVE_COLOUR = "#5c6bc0"
MARK_COLOURS = {"yours": "#e53935", "optimal": "#26a69a"}
HEIGHT = 200


def chart() -> alt.LayerChart:
    x = alt.X("interval_min:Q", title=["checkpoint interval,", "minutes (log scale)"], scale=alt.Scale(type="log"))
    y = alt.Y("overhead_h:Q", title="hours lost + hours writing")
    curve = alt.Chart(alt.NamedData(name="curve")).mark_line(color=CURVE_COLOUR).encode(x=x, y=y)
    marks = alt.Chart(alt.NamedData(name="marks"))
    points = marks.mark_point(filled=True, size=80, opacity=1).encode(
        x=x, y=y,
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(MARK_COLOURS), range=list(MARK_COLOURS.values())), legend=None),
        tooltip=[alt.Tooltip("label:N", title="interval")],
    )
    # Centred above its point, so a mark near either end keeps its label inside the plot's width.
    labels = marks.mark_text(align="center", dy=-12, fontSize=10).encode(x=x, y=y, text="label:N")
    cost = alt.layer(curve, points, labels, *_pinned.drawn(points, "marks"), title=["What each interval costs", "over the window"]).properties(
        width=WIDTH, height=HEIGHT)
    return cost.configure(background="transparent").configure_view(stroke=None)
