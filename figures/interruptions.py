"""What interruptions cost a run: a timeline of the whole window, a tick
where interruptions strike (each couple of pixels of it) and the work thrown
away adding up above them, from zero; a zoom on its first day where each failure's
thrown-away work shows; and the
cost of every checkpoint interval (work lost plus time spent writing) with
the Young/Daly optimum and the reader's interval marked.

Named datasets, every row from estimators (checkpoint.interruption_timeline,
checkpoint_overhead, optimal_checkpoint_interval)
with its label preformatted by units: "run" {day, lost_h} (each interruption);
"window" {days, label} (the window's length); "zoom" {start_h, end_h, label}
(the first day's failures, hours from its start); "curve" {interval_min,
overhead_h}; "marks" {interval_min, overhead_h, label, kind}.
"""

import altair as alt

from . import _pinned

DATASETS = ("run", "window", "zoom", "curve", "marks")
# Drawn at a phone's width: with its axes it fits the 286 px column of a 360 px screen (widgets.css
# scales it up on a wider one), each title in lines of that width.
WIDTH = 210
TIMELINE_HEIGHT = 80
# The timeline draws the interruptions of each stretch of the window this wide as one.
PIXELS_PER_STRETCH = 2
FAILURE_COLOUR = "#e53935"
LOST_COLOUR = "#ffa726"
CURVE_COLOUR = "#5c6bc0"
MARK_COLOURS = {"yours": "#e53935", "optimal": "#26a69a"}


def chart() -> alt.VConcatChart:
    days = alt.Scale(domain=alt.ExprRef("[0, data('window')[0].days]"), nice=False, zero=True)
    # The interruptions gathered by the stretch of the window, a couple of pixels wide, they strike in:
    # a run of hundreds strikes several times a pixel, which no eye tells apart, and a tick and a step
    # drawn for each were most of the chart's bytes in the page.
    run = (alt.Chart(alt.NamedData(name="run"))
           .transform_bin("at", "day", bin=alt.Bin(maxbins=WIDTH // PIXELS_PER_STRETCH))
           .transform_aggregate(lost_h="sum(lost_h)", groupby=["at"]))
    thrown = (
        run.transform_window(so_far="sum(lost_h)", sort=[alt.SortField("at")])
        .mark_line(color=LOST_COLOUR, interpolate="step-after", strokeWidth=2)
        .encode(x=alt.X("at:Q", title="days into the window", scale=days),
                y=alt.Y("so_far:Q", title="hours thrown away", scale=alt.Scale(zero=True)))
    )
    # Each stretch with an interruption a tick along the foot of the plot, where they strike.
    strikes = run.mark_tick(color=FAILURE_COLOUR, thickness=1, size=8, opacity=1).encode(
        x=alt.X("at:Q", scale=days), y=alt.value(TIMELINE_HEIGHT - 4))
    # In the top left corner, which the work thrown away, rising from zero, leaves empty.
    said = alt.Chart(alt.NamedData(name="window")).mark_text(
        align="left", baseline="top", fontSize=10, lineBreak=": ", dx=4, dy=2).encode(x=alt.value(0), y=alt.value(0), text="label:N")
    whole = alt.layer(thrown, strikes, said, title=["The whole window: each interruption", "(red) and the work thrown away"]).properties(
        width=WIDTH, height=TIMELINE_HEIGHT)
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
    points = marks.mark_point(filled=True, size=80, opacity=1).encode(
        x=x, y=y,
        color=alt.Color("kind:N", scale=alt.Scale(domain=list(MARK_COLOURS), range=list(MARK_COLOURS.values())), legend=None),
        tooltip=[alt.Tooltip("label:N", title="interval")],
    )
    # Centred above its point, so a mark near either end keeps its label inside the plot's width.
    labels = marks.mark_text(align="center", dy=-12, fontSize=10).encode(x=x, y=y, text="label:N")
    cost = alt.layer(curve, points, labels, *_pinned.drawn(points, "marks"), title=["What each interval costs", "over the window"]).properties(
        width=WIDTH, height=200)
    return (
        alt.vconcat(whole, zoom, cost)
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
