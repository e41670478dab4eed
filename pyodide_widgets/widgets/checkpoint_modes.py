"""Synchronous against asynchronous checkpoints.

A synchronous save pauses every GPU until the checkpoint is on storage; an
asynchronous one pauses them only while each copies its shard to host memory,
and the write to storage goes on behind training (estimators.checkpoint_stall,
from the checkpoint's bytes, the GPUs, the host-copy bandwidth and the
storage's aggregate write rate).
"""

import estimators
from estimators import units
from estimators.checkpoint import CHECKPOINT_MODES

from ..contract import Output, choice, from_entry, from_preset, number, preset, read

TITLE = "Synchronous against asynchronous checkpoints"
CHART = "checkpoint_modes"

_PRESETS = estimators.load_presets()
MINUTE, DAY = 60, 86400

FIELDS = (
    choice("mode", "How the GPUs save", CHECKPOINT_MODES, play=True),
    choice("run", "Training run", {key: f"{run.name} · {units.integer(run.gpus)} GPU{'s' if run.gpus > 1 else ''}"
                                   for key, run in _PRESETS.runs.items()}),
    choice("storage", "Storage", {key: s.name for key, s in _PRESETS.storage_systems.items()}),
    choice("host", "GPU to host memory",
           {key: f"{i.name} · {units.si(i.bandwidth_bytes_per_s, 'B/s')}" for key, i in _PRESETS.interconnects.items()
            if i.scope == "host"}),
    number("interval", "Checkpoint interval", unit="minutes", scale=MINUTE, max=1e6),
    number("window", "Length of the run", unit="days", scale=DAY, max=1e5),
)

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
    return {mode: preset(FIELDS, label, {**base, "mode": mode}) for mode, label in CHECKPOINT_MODES.items()}


def _short(seconds: float) -> str:
    """A pause to the millisecond: "0.005 s", "2.841 s"."""
    return units.duration(seconds)


def update(state: dict) -> dict:
    """Outputs (text) and the diagram's rows for one state of the form."""
    s = read(FIELDS, state)
    run = _PRESETS.run(s["run"])
    total = estimators.checkpoint_bytes(_PRESETS.model(run.model).params)
    st = estimators.checkpoint_stall(total, run.gpus, _PRESETS.interconnect(s["host"]).bandwidth_bytes_per_s,
                                     _PRESETS.storage_system(s["storage"]).write_bytes_per_s, s["window"], s["interval"])
    pause = {"sync": (st.sync_s, st.sync_run_s, st.sync_run_share), "async": (st.async_s, st.async_run_s, st.async_run_share)}
    mine, theirs = pause[s["mode"]], pause["async" if s["mode"] == "sync" else "sync"]
    other_label = "asynchronously" if s["mode"] == "sync" else "synchronously"
    outputs = {
        "shard": units.bytes_(st.shard_bytes),
        "checkpoint": f"of a {units.bytes_(total)} checkpoint over {units.integer(run.gpus)} GPUs",
        "pause": _short(mine[0]),
        "other": f"{_short(theirs[0])} {other_label}",
        "run_pause": units.duration(mine[1]),
        "run_share": f"{units.percent(mine[2])} of the run, over {units.integer(st.checkpoints)} saves",
        "background": _short(st.sync_s),
        "background_note": ("done well before the next save is due" if st.background_fits
                            else "longer than the interval: the next save waits for it"),
    }
    outputs["summary"] = (
        f"{CHECKPOINT_MODES[s['mode']]}: {outputs['pause']} per save, {outputs['run_pause']} over the run "
        f"({outputs['other']})."
    )
    rows = [
        {"mode": mode, "title": label, "pause_s": pause[mode][0], "interval_s": s["interval"], "write_s": st.sync_s,
         "alt": f"{label}: the GPUs pause {_short(pause[mode][0])} per save; "
                f"the write to storage takes {_short(st.sync_s)}."}
        for mode, label in CHECKPOINT_MODES.items()
    ]
    return {"outputs": outputs, "data": {"modes": rows}}
