"""What interruptions cost a run: a timeline of the window with its failures,
a zoom on its first day where each failure's thrown-away work shows, and the
cost of every checkpoint interval (work lost plus time spent writing) with
the Young/Daly optimum and the reader's interval marked.

Named datasets, every row from estimators (checkpoint.interruption_timeline,
effective_training_time, optimal_checkpoint_interval) with its label
preformatted by units: "failures" {day, label}; "zoom" {start_h, end_h, label}
(the first day's failures, hours from its start); "curve" {interval_min,
overhead_h}; "marks" {interval_min, overhead_h, label, kind}.
"""

import altair as alt

DATASETS = ("failures", "zoom", "curve", "marks")
WIDTH = 640
FAILURE_COLOUR = "#e53935"
LOST_COLOUR = "#ffa726"
CURVE_COLOUR = "#5c6bc0"
MARK_COLOURS = {"yours": "#e53935", "optimal": "#26a69a"}


def chart() -> alt.VConcatChart:
    failures = (
        alt.Chart(alt.NamedData(name="failures"), title="The whole window: one tick per interruption")
        .mark_tick(color=FAILURE_COLOUR, thickness=1, size=24)
        .encode(x=alt.X("day:Q", title="days into the window"), tooltip=[alt.Tooltip("label:N", title="interruption")])
        .properties(width=WIDTH, height=30)
    )
    zoom = (
        alt.Chart(alt.NamedData(name="zoom"), title="Its first day: the work each interruption throws away")
        .mark_rect(color=LOST_COLOUR, height=20)
        .encode(x=alt.X("start_h:Q", title="hours into the first day", scale=alt.Scale(domain=[0, 24])),
                x2="end_h:Q", tooltip=[alt.Tooltip("label:N", title="thrown away")])
        .properties(width=WIDTH, height=30)
    )
    x = alt.X("interval_min:Q", title="checkpoint interval, minutes (log scale)", scale=alt.Scale(type="log"))
    y = alt.Y("overhead_h:Q", title="hours lost + hours writing")
    curve = alt.Chart(alt.NamedData(name="curve")).mark_line(color=CURVE_COLOUR).encode(x=x, y=y)
    marks = alt.Chart(alt.NamedData(name="marks"))
    points = marks.mark_point(filled=True, size=80).encode(
        x=x, y=y,
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(MARK_COLOURS), range=list(MARK_COLOURS.values())), legend=None),
        tooltip=[alt.Tooltip("label:N", title="interval")],
    )
    labels = marks.mark_text(align="left", dx=8, dy=-8).encode(x=x, y=y, text="label:N")
    cost = alt.layer(curve, points, labels, title="What each interval costs over the window").properties(width=WIDTH, height=200)
    return (
        alt.vconcat(failures, zoom, cost)
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
