"""Synchronous against asynchronous checkpoints.

A synchronous save pauses every GPU until the checkpoint is on storage; an
asynchronous one pauses them only while each copies its shard to host memory,
and the write to storage goes on behind training (estimators.checkpoint_stall,
from the checkpoint's bytes, the GPUs, the host-copy bandwidth and the
storage's aggregate write rate). The picture draws both modes on one clock of
seconds (estimators.checkpoint_clock), each pause as long as it lasts, the
training between saves left out; Play runs the clock save by save and each
mode's pauses add up in its own lane.
"""

import estimators
from estimators import units
from estimators.checkpoint import CHECKPOINT_MODES, CLOCK_SAVES

from ..contract import Output, choice, from_entry, from_preset, number, preset, read

TITLE = "Synchronous against asynchronous checkpoints"
CHART = "checkpoint_modes"

_PRESETS = estimators.load_presets()
MINUTE, DAY = 60, 86400

FIELDS = (
    choice("mode", "How the GPUs save", CHECKPOINT_MODES),
    choice("run", "Training run", {key: f"{run.name} · {units.noun(run.gpus, 'GPUs')}"
                                   for key, run in _PRESETS.runs.items()}),
    choice("storage", "Storage", {key: s.name for key, s in _PRESETS.storage_systems.items()}),
    choice("host", "GPU to host memory",
           {key: f"{i.name} · {units.si(i.bandwidth_bytes_per_s, 'B/s')}" for key, i in _PRESETS.interconnects.items()
            if i.scope == "host"}),
    # A hundredth of a minute (0.6 s) at least: a checkpoint comes at most once a training step, and
    # no step of a large run is that short.
    number("interval", "Checkpoint interval", unit="minutes", scale=MINUTE, min=0.01, max=1e6),
    # A hundredth of a day (14.4 min) at least: a shorter run has nothing worth checkpointing.
    number("window", "Length of the run", unit="days", scale=DAY, min=0.01, max=1e5),
    choice("clock", "The picture's clock", {k: f"after {units.noun(k, 'saves')}" for k in CLOCK_SAVES},
           play=True),
)
# Beside the picture (the two ways to save, for a run, at a cadence, and the clock that plays the
# saves); the rest under "More inputs".
MAIN = ("mode", "run", "interval", "clock")

_STALL = estimators.CheckpointStall

OUTPUTS = (
    Output("shard", "Each GPU saves", detail="checkpoint", of=(_STALL, "shard_bytes"), uses=("run",)),
    # A save due before the last one is written waits for it: the interval matters at its extreme.
    Output("pause", "The GPUs pause, per save", detail="other", of=estimators.checkpoint_stall,
           uses=("mode", "run", "storage", "host", "interval")),
    Output("run_pause", "Paused over the run", detail="run_share", of=estimators.checkpoint_stall,
           uses=("mode", "run", "storage", "host", "interval", "window")),
    Output("background", "The write to storage", detail="background_note", of=(_STALL, "sync_s"),
           uses=("run", "storage", "interval")),
)


def presets() -> dict:
    """The Llama 3 405B run on its cluster's storage, saved each way."""
    f = _PRESETS.failure("llama3-405b")
    base = {"run": from_entry(_PRESETS.run("llama3-405b")), "storage": from_entry(_PRESETS.storage_system("llama3-tectonic")),
            "host": from_entry(_PRESETS.interconnect("pcie5-h100")),
            "interval": from_preset(f, "checkpoint_interval_seconds", MINUTE), "window": from_preset(f, "window_seconds", DAY)}
    # The clock at its last stop: the whole picture, as a reader without JavaScript sees it. Each is
    # named by its mode's name alone: the mode's field beside it already reads its whole label.
    return {mode: preset(FIELDS, MODE_NAMES[mode], {**base, "mode": mode, "clock": CLOCK_SAVES[-1]})
            for mode in CHECKPOINT_MODES}


def _short(seconds: float) -> str:
    """A pause to the millisecond: "0.005 s", "2.841 s"."""
    return units.duration(seconds)


def update(state: dict) -> dict:
    """Outputs (text) and the picture's rows for one state of the form."""
    s = read(FIELDS, state)
    run = _PRESETS.run(s["run"])
    total = estimators.checkpoint_bytes(_PRESETS.model(run.model).params)
    st = estimators.checkpoint_stall(total, run.gpus, _PRESETS.interconnect(s["host"]).bandwidth_bytes_per_s,
                                     _PRESETS.storage_system(s["storage"]).write_bytes_per_s, window_s=s["window"],
                                     checkpoint_interval_s=s["interval"])
    pause = {"sync": (st.sync_s, st.sync_run_s, st.sync_run_share), "async": (st.async_s, st.async_run_s, st.async_run_share)}
    mine, theirs = pause[s["mode"]], pause["async" if s["mode"] == "sync" else "sync"]
    other_label = "asynchronously" if s["mode"] == "sync" else "synchronously"
    outputs = {
        "shard": units.bytes_(st.shard_bytes),
        "checkpoint": f"of a {units.bytes_(total)} checkpoint over {units.integer(run.gpus)} GPUs",
        "pause": _short(mine[0]),
        "other": f"{_short(theirs[0])} {other_label}",
        "run_pause": units.duration(mine[1]),
        "run_share": f"{units.percent(mine[2])} of the run, over {units.noun(st.checkpoints, 'saves')}",
        "background": _short(st.sync_s),
        "background_note": ("done well before the next save is due" if st.background_fits
                            else "longer than the interval: the next save waits for it"),
    }
    outputs["summary"] = (
        f"{CHECKPOINT_MODES[s['mode']]}: {outputs['pause']} per save, {outputs['run_pause']} over the run "
        f"({outputs['other']})."
    )
    clock = estimators.checkpoint_clock(st, s["interval"], int(s["clock"]))
    return {"outputs": outputs, "data": _clock_rows(clock, {"sync": st.sync_s, "async": st.async_s}, st.sync_s)}


# The picture's lanes, top to bottom: each mode's GPUs above its storage, named by the mode's key
# ("sync: GPUs"), short enough to leave the clock its width on a phone.
LANES = {(mode, lane): f"{mode}: {lane_name}" for mode in CHECKPOINT_MODES
         for lane, lane_name in (("gpus", "GPUs"), ("storage", "storage"))}
# The tallies' names: the mode's label up to its colon ("Synchronous").
MODE_NAMES = {mode: label.split(":")[0] for mode, label in CHECKPOINT_MODES.items()}
KINDS = {"training": "training", "paused": "GPUs paused", "writing": "writing to storage"}


def _clock_rows(clock, pauses: dict, write_s: float) -> dict:
    """The chart's rows: one per stretch of a lane, the clock's hand, each mode's pauses so far, and
    a break between two saves' stretches where the rest of the interval's training is left out."""
    saves = units.noun(clock.saves, "saves")
    segments = [
        {"lane": LANES[seg.mode, seg.lane], "lane_order": list(LANES).index((seg.mode, seg.lane)),
         "kind": KINDS[seg.kind], "start": seg.start, "end": seg.end,
         "label": f"{LANES[seg.mode, seg.lane]}, save {units.integer(seg.save)}: {KINDS[seg.kind]}"
                  + {"training": "", "paused": f", {_short(pauses[seg.mode])}", "writing": f", {_short(write_s)}"}[seg.kind]}
        for seg in clock.segments if seg.end > seg.start
    ]
    tally = [
        {"line": i, "label": f"{MODE_NAMES[mode]}: paused {units.duration(paused)} in {saves}"}
        for i, (mode, paused) in enumerate((("sync", clock.sync_paused_s), ("async", clock.async_paused_s)))
    ]
    left_out = (f"{units.duration(clock.left_out_s)} of training cut between saves" if clock.left_out_s
                else "no training between saves")
    tally.append({"line": len(tally), "label": left_out})
    breaks = [{"at": k * clock.save_span_s, "label": left_out} for k in range(1, clock.saves)]
    # The clock's face is its last stop, whichever save it is at: Play grows the lanes across it.
    hand = [{"at": clock.saves * clock.save_span_s, "face": CLOCK_SAVES[-1] * clock.save_span_s,
             "label": f"the clock, after {saves}"}]
    return {"segments": segments, "hand": hand, "tally": tally, "breaks": breaks}
