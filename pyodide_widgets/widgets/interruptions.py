"""What each interruption costs.

Each interruption sends the run back to its last checkpoint, on average half
an interval of work (estimators.lost_work_seconds); each checkpoint pauses the
GPUs while it is saved. The interval that balances the two is Young's and
Daly's (estimators.optimal_checkpoint_interval), from the pause and the mean
time between interruptions (estimators.mtbf_seconds).
"""

import estimators
from estimators import units

from ..contract import Output, from_estimate, from_preset, number, preset, read, typed, whole

TITLE = "What each interruption costs"
CHART = "interruptions"

_PRESETS = estimators.load_presets()
MINUTE, DAY = 60, 86400
HOURS_PER_DAY = 24
# The cost curve is drawn at these multiples of the optimum and of the reader's interval: products
# of exact constants, so CPython and Pyodide draw the same points (a fractional power may differ in its last bit).
CURVE_FACTORS = (1 / 8, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 2 / 3, 1, 3 / 2, 2, 3, 4, 6, 8)


# Round cadences a reader might try, beside the field (Llama 3's 30 minutes among them): choices, not facts.
CADENCE_MINUTES = (5, 15, 30, 60, 120)

FIELDS = (
    number("interval", "Checkpoint interval", unit="minutes", scale=MINUTE, max=1e6,
           picks=CADENCE_MINUTES, pick_output=("optimal_minutes", "Daly's optimum")),
    whole("interruptions", "Interruptions", unit="in the window", max=1e5),  # one a minute for months: past any run
    number("window", "Length of the window", unit="days", scale=DAY, max=1e4),  # decades: past any run
    number("pause", "Pause per checkpoint", unit="seconds", max=1e6,
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


def update(state: dict) -> dict:
    """Outputs (text) and the chart's rows for one state of the form."""
    s = read(FIELDS, state)
    window, n, interval, pause = s["window"], s["interruptions"], s["interval"], s["pause"]
    if interval > window:
        # Named on the field the reader set, in the units policy's words for the other one.
        if typed(FIELDS, presets(), state, ("interval", "window")) == "window":
            raise estimators.EstimatorError("window", state["window"], (
                f"at least the checkpoint interval, {units.duration(interval)}: {units.number(interval / DAY)} days"))
        raise estimators.EstimatorError("interval", state["interval"], (
            f"at most the window, {units.duration(window)}: {units.number(window / MINUTE)} minutes"))
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
    taus = sorted({base * f for base in (daly, interval) for f in CURVE_FACTORS if base * f <= window})
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
