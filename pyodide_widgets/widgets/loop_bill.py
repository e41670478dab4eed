"""What the training loop consumes, for one run: data, compute, memory and time.

Every tile is a field of the run's estimate (estimators.run_preset_estimate).
"""

import estimators
from estimators import units

from ..contract import Output, choice, from_entry, preset, read

TITLE = "What the loop consumes"

_PRESETS = estimators.load_presets()

FIELDS = (choice("run", "Training run", {key: run.name for key, run in _PRESETS.runs.items()}),)

RUN = ("run",)
_E = estimators.RunEstimate

OUTPUTS = (
    Output("data", "Data", detail="data_bytes", of=(_E, "dataset_bytes"), uses=RUN),
    Output("compute", "FLOPs of the run, 6 × N × D", detail="compute_rate", of=(_E, "flops"), uses=RUN),
    Output("memory", "Memory: the training state", detail="memory_per_param", of=(_E, "state_bytes"), uses=RUN),
    Output("time", "Time, at the run's MFU", detail="gpu_hours", of=(_E, "seconds"), uses=RUN),
)


def presets() -> dict:
    """One starting state per run preset (the first is the default)."""
    return {key: preset(FIELDS, run.name, {"run": from_entry(run)}) for key, run in _PRESETS.runs.items()}


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    e = estimators.run_preset_estimate(s["run"])
    per_param = estimators.bytes_per_param()
    outputs = {
        "data": f"{units.count(e.tokens)} tokens",
        "data_bytes": f"{units.bytes_(e.dataset_bytes)} on disk at {e.token_bytes} B per token id",
        "compute": f"{units.sci(e.flops)} FLOPs",
        "compute_rate": f"{units.count(estimators.training_flops(e.params, 1))} FLOPs per token, for {units.count(e.params)} parameters",
        "memory": units.bytes_(e.state_bytes),
        "memory_per_param": f"{units.number(per_param.total)} bytes per parameter with mixed-precision Adam",
        "time": units.duration(e.seconds),
        "gpu_hours": f"{units.count(e.gpu_hours)} GPU-hours on {units.integer(e.gpus)} GPUs",
    }
    outputs["summary"] = (
        f"{outputs['data']}, {outputs['compute']}, {outputs['memory']} of training state, {outputs['time']}."
    )
    return {"outputs": outputs, "data": {}}
