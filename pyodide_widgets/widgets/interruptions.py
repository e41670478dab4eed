"""What each interruption costs.

Each interruption sends the run back to its last checkpoint, on average half
an interval of work (estimators.lost_work_seconds); each checkpoint pauses the
GPUs while it is saved. The interval that balances the two is Young's and
Daly's (estimators.optimal_checkpoint_interval), from the pause and the mean
time between interruptions (estimators.mtbf_seconds). Half an interval per
interruption holds for intervals up to that mean time, and while the saves and
the lost work fit in the window (estimators.checkpoint_interval_range); a state
outside it is refused, named on the field the reader set, with its limit.
"""

import math

import estimators
from estimators import units

from ..contract import Output, from_estimate, from_preset, number, preset, read, typed, whole

TITLE = "What each interruption costs"
CHART = "interruptions"
# Under the outputs, folded: what every interval costs, the reader's and Daly's marked.
FOLDED_CHARTS = {"interval_cost": "What each checkpoint interval costs over the window"}

_PRESETS = estimators.load_presets()
MINUTE, DAY = 60, 86400
HOURS_PER_DAY = 24
# The cost curve is drawn at these multiples of the optimum and of the reader's interval: products
# of exact constants, so CPython and Pyodide draw the same points (a fractional power may differ in its last bit).
CURVE_FACTORS = (1 / 8, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 2 / 3, 1, 3 / 2, 2, 3, 4, 6, 8)


# Round cadences a reader might try, beside the field (Llama 3's 30 minutes among them): choices, not facts.
CADENCE_MINUTES = (5, 15, 30, 60, 120)

FIELDS = (
    # A hundredth of a minute (0.6 s) at least: a checkpoint comes at most once a training step, and
    # no step of a large run is that short.
    number("interval", "Checkpoint interval", unit="minutes", scale=MINUTE, min=0.01, max=1e6,
           picks=CADENCE_MINUTES, pick_output=("optimal_minutes", "Daly's optimum")),
    whole("interruptions", "Interruptions", unit="in the window", max=1e5),  # one a minute for months: past any run
    # From a hundredth of a day (14.4 min), shorter than any window failures are counted over, to decades.
    number("window", "Length of the window", unit="days", scale=DAY, min=0.01, max=1e4),
    # A millisecond at least: no save, however small its shard, pauses the GPUs for less.
    number("pause", "Pause per checkpoint", unit="seconds", min=0.001, max=1e6,
           note="the GPUs wait this long at each save; by default a synchronous write to Llama 3's storage"),
)

_EVERYTHING = ("interval", "interruptions", "window", "pause")
_OVERHEAD = estimators.CheckpointOverhead

OUTPUTS = (
    Output("lost", "Work thrown away", detail="lost_share", of=(_OVERHEAD, "lost_s"), uses=("interruptions", "interval", "window")),
    Output("writing", "Time spent saving", detail="writing_detail", of=(_OVERHEAD, "saving_s"),
           uses=("window", "interval", "pause")),
    Output("optimal", "Optimal interval (Daly)", detail="young", of=estimators.optimal_checkpoint_interval,
           uses=("pause", "interruptions", "window")),
    # The same optimum in the interval field's units and form, for the pick that sets it.
    Output("optimal_minutes", "Daly's optimum, in minutes", of=estimators.optimal_checkpoint_interval,
           uses=("pause", "interruptions", "window")),
    Output("at_optimal", "Lost + saving, at the optimum", detail="now", of=(_OVERHEAD, "total_s"), uses=_EVERYTHING),
)


def presets() -> dict:
    """The unexpected interruptions first, the ones the prose's mean time between failures counts
    (a planned stop saves before it halts), then all of them, the seed's count; the pause is the
    run's checkpoint written synchronously to its cluster's storage."""
    f, run = _PRESETS.failure("llama3-405b"), _PRESETS.run("llama3-405b")
    storage, host = _PRESETS.storage_system("llama3-tectonic"), _PRESETS.interconnect("pcie5-h100")
    model = _PRESETS.model(run.model)
    pause = from_estimate(
        estimators.checkpoint_stall, estimators.checkpoint_bytes(model.params), run.gpus, host.bandwidth_bytes_per_s,
        storage.write_bytes_per_s, f.window_seconds, f.checkpoint_interval_seconds,
        attribute="sync_s", entries=(model, run, host, storage, f),
    )
    base = {"interval": from_preset(f, "checkpoint_interval_seconds", MINUTE), "window": from_preset(f, "window_seconds", DAY),
            "pause": pause}
    return {
        "unexpected": preset(FIELDS, f"Only the {units.integer(f.unexpected)} unexpected ones",
                             {**base, "interruptions": from_preset(f, "unexpected")}),
        "all": preset(FIELDS, f"All {units.integer(f.interruptions)} interruptions, planned stops too",
                      {**base, "interruptions": from_preset(f, "interruptions")}),
    }


# A limit prints at the units policy's digits, rounded towards the side it allows, so that the figure a
# reader types back from the message is accepted: "at most 185 minutes" for 185.6.
LIMIT_DIGITS = 3


def _toward(value: float, rounding) -> str:
    step = 10 ** (math.floor(math.log10(value)) - LIMIT_DIGITS + 1)
    return units.number(rounding(value / step) * step)


def _at_most(value: float) -> str:
    return _toward(value, math.floor)


def _at_least(value: float) -> str:
    return _toward(value, math.ceil)


def _interval_range(state: dict, window: float, n: int, interval: float, pause: float):
    """The intervals the lost-work count holds for (estimators.checkpoint_interval_range); a state outside
    them is refused on the field the reader set, with its limit in that field's units."""
    mtbf = estimators.mtbf_seconds(n, window)
    longest = estimators.longest_checkpoint_stall_s(window, n)
    if pause > longest:
        field = typed(FIELDS, presets(), state, ("pause", "interruptions", "window"))
        why = "even the best interval would lose nearly all of the window"
        share = estimators.checkpoint.DALY_IN_RANGE_SHARE
        limits = {
            "pause": (f"at most {_at_most(longest)} seconds, {units.percent(share)} of the mean time between "
                      f"interruptions: with longer saves {why}"),
            "interruptions": f"at most {units.integer(share * window // pause)} in the window with this pause: more, and {why}",
            "window": f"at least {_at_least(pause / share * n / DAY)} days with this pause: shorter, and {why}",
        }
        raise estimators.EstimatorError(field, state[field], limits[field])
    valid = estimators.checkpoint_interval_range(window, n, pause)
    if interval > valid.longest_s:
        # More than one interruption an interval, on average: named on whichever of the three the reader set.
        field = typed(FIELDS, presets(), state, ("interval", "interruptions", "window"))
        why = "more, and they come more often than the checkpoints"
        limits = {
            "interval": f"at most the mean time between interruptions, {units.duration(mtbf)}: {_at_most(mtbf / MINUTE)} minutes",
            "interruptions": f"at most {units.integer(window // interval)} in the window at this interval: {why}",
            "window": (f"at least {_at_least(n * interval / DAY)} days, the interruptions times the interval: "
                       "shorter, and they come more often than the checkpoints"),
        }
        raise estimators.EstimatorError(field, state[field], limits[field])
    if interval < valid.shortest_s:
        why = "the saves and the lost work fill more than the window"
        if typed(FIELDS, presets(), state, ("interval", "pause")) == "pause":
            most = interval * (1 - n * interval / (2 * window))
            raise estimators.EstimatorError("pause", state["pause"], f"at most {_at_most(most)} seconds at this interval: longer, {why}")
        raise estimators.EstimatorError("interval", state["interval"], (
            f"at least {_at_least(valid.shortest_s / MINUTE)} minutes: more often, {why}"))
    return valid


def update(state: dict) -> dict:
    """Outputs (text) and the chart's rows for one state of the form."""
    s = read(FIELDS, state)
    window, n, interval, pause = s["window"], s["interruptions"], s["interval"], s["pause"]
    valid = _interval_range(state, window, n, interval, pause=pause)
    now = estimators.checkpoint_overhead(window, n, interval, pause)
    outputs = {
        "lost": units.duration(now.lost_s, "h"),  # work lost over a run reads in hours, as its sources give it
        "lost_share": f"{units.percent(now.lost_share)} of the window, redone by every GPU of the job",
        "writing": units.duration(now.saving_s),
        "writing_detail": f"{units.percent(now.saving_share)} of the window, at {units.duration(pause)} a save",
    }
    mtbf = estimators.mtbf_seconds(n, window)
    daly = estimators.optimal_checkpoint_interval(pause, mtbf)
    young = estimators.optimal_checkpoint_interval(pause, mtbf, "young")
    best = estimators.checkpoint_overhead(window, n, daly, pause)
    outputs |= {
        "optimal": units.duration(daly),
        "optimal_minutes": units.number(daly / MINUTE),  # to the digits the duration above shows
        # The mean time between the interruptions the form counts: the MTBF only when those are the failures.
        "young": (f"Young's first-order √(2 × pause × mean time between them): {units.duration(young)}; "
                  f"one interruption every {units.duration(mtbf)}"),
        "at_optimal": units.duration(best.total_s, "h"),
        "now": f"against {units.duration(now.total_s, 'h')} at your interval",
    }

    def hours(seconds: float) -> float:
        return seconds / units.SECONDS_PER_HOUR

    rows = {"marks": [
        {"interval_min": interval / MINUTE, "overhead_h": hours(now.total_s), "label": f"yours: {units.duration(interval)}",
         "kind": "yours"},
        {"interval_min": daly / MINUTE, "overhead_h": hours(best.total_s), "label": f"optimal: {units.duration(daly)}",
         "kind": "optimal"},
    ]}
    taus = sorted({base * f for base in (daly, interval) for f in CURVE_FACTORS
                   if valid.shortest_s <= base * f <= valid.longest_s})
    rows["curve"] = [
        {"interval_min": tau / MINUTE, "overhead_h": hours(estimators.checkpoint_overhead(window, n, tau, pause).total_s)}
        for tau in taus
    ]
    # The run's timeline: each interruption where it strikes, and the work it throws away (the chart
    # adds them up across the run).
    rows["run"] = [{"day": e.at_s / DAY, "lost_h": hours(e.lost_s)}
                   for e in estimators.interruption_timeline(window, n, interval)]
    rows["window"] = [{"days": window / DAY, "label": f"{units.noun(n, 'interruptions')} in "
                       f"{units.duration(window)}: {outputs['lost']} of work thrown away"}]
    rows["zoom"] = [
        {"start_h": hours(max(e.at_s - e.lost_s, 0)), "end_h": hours(e.at_s), "label": f"{units.duration(e.lost_s)} of work redone"}
        for e in estimators.interruption_timeline(window, n, interval, until_s=DAY)
    ]
    outputs["summary"] = (
        f"{units.noun(n, 'interruptions')} with a checkpoint every {units.duration(interval)} throw away "
        f"{outputs['lost']}, {units.percent(now.lost_share)} of the window; optimal interval {outputs['optimal']}."
    )
    return {"outputs": outputs, "data": rows}
