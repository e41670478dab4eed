"""What interruptions cost a run: a timeline of the window, day by day, with
the work its failures throw away, a zoom on its first day where each
failure's thrown-away work shows, and the
cost of every checkpoint interval (work lost plus time spent writing) with
the Young/Daly optimum and the reader's interval marked.

Named datasets, every row from estimators (checkpoint.interruption_timeline,
interruptions_by_period, checkpoint_overhead, optimal_checkpoint_interval)
with its label preformatted by units: "days" {start_day, end_day, lost_h,
label}; "zoom" {start_h, end_h, label}
(the first day's failures, hours from its start); "curve" {interval_min,
overhead_h}; "marks" {interval_min, overhead_h, label, kind}.
"""

import altair as alt

DATASETS = ("days", "zoom", "curve", "marks")
# Drawn at a phone's width: with its axes it fits the 286 px column of a 360 px screen (widgets.css
# scales it up on a wider one), each title in lines of that width.
WIDTH = 210
FAILURE_COLOUR = "#e53935"
LOST_COLOUR = "#ffa726"
CURVE_COLOUR = "#5c6bc0"
MARK_COLOURS = {"yours": "#e53935", "optimal": "#26a69a"}


def chart() -> alt.VConcatChart:
    days = (
        alt.Chart(alt.NamedData(name="days"), title=["The whole window, day by day:", "work thrown away"])
        .mark_bar(color=FAILURE_COLOUR)
        .encode(x=alt.X("start_day:Q", title="days into the window"), x2="end_day:Q",
                y=alt.Y("lost_h:Q", title="hours"), tooltip=[alt.Tooltip("label:N", title="that day")])
        .properties(width=WIDTH, height=60)
    )
    zoom = (
        alt.Chart(alt.NamedData(name="zoom"), title=["Its first day: the work each", "interruption throws away"])
        .mark_rect(color=LOST_COLOUR, height=20)
        .encode(x=alt.X("start_h:Q", title="hours into the first day", scale=alt.Scale(domain=[0, 24])),
                x2="end_h:Q", tooltip=[alt.Tooltip("label:N", title="thrown away")])
        .properties(width=WIDTH, height=30)
    )
    x = alt.X("interval_min:Q", title=["checkpoint interval,", "minutes (log scale)"], scale=alt.Scale(type="log"))
    y = alt.Y("overhead_h:Q", title="hours lost + hours writing")
    curve = alt.Chart(alt.NamedData(name="curve")).mark_line(color=CURVE_COLOUR).encode(x=x, y=y)
    marks = alt.Chart(alt.NamedData(name="marks"))
    points = marks.mark_point(filled=True, size=80).encode(
        x=x, y=y,
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(MARK_COLOURS), range=list(MARK_COLOURS.values())), legend=None),
        tooltip=[alt.Tooltip("label:N", title="interval")],
    )
    # Centred above its point, so a mark near either end keeps its label inside the plot's width.
    labels = marks.mark_text(align="center", dy=-12, fontSize=10).encode(x=x, y=y, text="label:N")
    cost = alt.layer(curve, points, labels, title=["What each interval costs", "over the window"]).properties(
        width=WIDTH, height=200)
    return (
        alt.vconcat(days, zoom, cost)
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
