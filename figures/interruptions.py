"""What interruptions cost a run, the picture the widget opens on: a timeline of the whole window, each
interruption a tick where it strikes and the work thrown away adding up above them, from zero; and a
zoom on its first day where each failure's thrown-away work shows. What every checkpoint interval costs
is a further figure under it (figures/interval_cost.py).

Named datasets, every row from estimators (checkpoint.interruption_timeline) with its label preformatted
by units: "run" {day, lost_h} (each interruption); "window" {days, label} (the window's length); "zoom"
{start_h, end_h, label} (the first day's failures, hours from its start).
"""

import altair as alt

from . import _pinned

DATASETS = ("run", "window", "zoom")
# Drawn at a phone's width: with its axes it fits the 286 px column of a 360 px screen (widgets.css
# scales it up on a wider one), each title in lines of that width.
WIDTH = 210
TIMELINE_HEIGHT = 80
# An interruption's tick along the timeline's foot: a pixel wide, tall enough to see, short of the curve's start.
TICK_PX, TICK_HEIGHT = 1, 8
# The first day's strip: its bars in the lower part, the top right free for the word a pinned state brings.
ZOOM_HEIGHT, ZOOM_BAR = 40, 20
FAILURE_COLOUR = "#e53935"
LOST_COLOUR = "#ffa726"


def chart() -> alt.VConcatChart:
    days = alt.Scale(domain=alt.ExprRef("[0, data('window')[0].days]"), nice=False, zero=True)
    run = alt.Chart(alt.NamedData(name="run"))
    thrown = (
        run.transform_window(so_far="sum(lost_h)", sort=[alt.SortField("day")])
        .mark_line(color=LOST_COLOUR, interpolate="step-after", strokeWidth=2)
        .encode(x=alt.X("day:Q", title="days into the window", scale=days),
                y=alt.Y("so_far:Q", title="hours thrown away", scale=alt.Scale(zero=True)))
    )
    # Each interruption a tick a pixel wide along the foot of the plot, where it strikes; ticks that touch
    # or overlap drawn as the one stretch of red they paint together, from the first one's left edge to the
    # last one's right edge. A run of hundreds strikes several times a pixel: a tick each was over a quarter of the
    # chart's bytes in the page, for the same picture (the page's SVG drew them as one shape already, and
    # its pixels differ by a shade at most at the stretch's ends). The rows stay one an interruption.
    pixels_per_day = f"{WIDTH} / data('window')[0].days"
    strikes = (
        run.transform_window(before="lag(day)", sort=[alt.SortField("day")])
        .transform_calculate(apart=f"isValid(datum.before) && (datum.day - datum.before) * {pixels_per_day} > {TICK_PX} ? 1 : 0")
        .transform_window(stretch="sum(apart)", sort=[alt.SortField("day")])
        .transform_aggregate(first="min(day)", last="max(day)", groupby=["stretch"])
        .mark_rect(color=FAILURE_COLOUR, opacity=1, xOffset=-TICK_PX / 2, x2Offset=TICK_PX / 2)
        .encode(x=alt.X("first:Q", scale=days), x2="last:Q",
                y=alt.value(TIMELINE_HEIGHT - TICK_HEIGHT), y2=alt.value(TIMELINE_HEIGHT))
    )
    # In the top left corner, which the work thrown away, rising from zero, leaves empty.
    said = alt.Chart(alt.NamedData(name="window")).mark_text(
        align="left", baseline="top", fontSize=10, lineBreak=": ", dx=4, dy=2).encode(x=alt.value(0), y=alt.value(0), text="label:N")
    whole = alt.layer(thrown, strikes, said, title=["The whole window: each interruption", "(red) and the work thrown away"]).properties(
        width=WIDTH, height=TIMELINE_HEIGHT)
    lost = (
        alt.Chart(alt.NamedData(name="zoom"))
        .mark_rect(color=LOST_COLOUR, height=ZOOM_BAR)
        .encode(x=alt.X("start_h:Q", title="hours into the first day", scale=alt.Scale(domain=[0, 24])),
                x2="end_h:Q", y=alt.value(ZOOM_HEIGHT - ZOOM_BAR / 2 - 2), tooltip=[alt.Tooltip("label:N", title="thrown away")])
    )
    # The pinned state's first day over this one's: its work thrown away at its own cadence, outlined.
    zoom = alt.layer(lost, *_pinned.drawn(lost, "zoom"), title=["Its first day: the work each", "interruption throws away"]).properties(
        width=WIDTH, height=ZOOM_HEIGHT)
    return (
        alt.vconcat(whole, zoom)
        .configure(background="transparent")
        .configure_view(stroke=None)
    )
