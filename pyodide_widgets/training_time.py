"""W8: how long does a training run take?

C = 6ND, divided by what the fleet delivers (GPUs × dense peak × MFU), gives
the ideal wall-clock time; the same inputs give GPU-hours and the run's place
on the N × D plane.
"""

import estimators
from estimators import units

from .fields import Field, choice, number, whole

TITLE = "How long does a training run take?"
CHART = "compute_plane"

_PRESETS = estimators.load_presets()
# Inputs are typed in the units a reader thinks in; these turn them into SI.
BILLION = 1e9
TRILLION = 1e12
PER_CENT = 1e-2

FIELDS = (
    Field("params_billions", "Model size", unit="billion parameters", max=1e6),  # 10¹⁵ params: a typo
    Field("tokens_trillions", "Training tokens", unit="trillion tokens", max=1e6),
    Field("gpu", "GPU", options=tuple((key, gpu.name) for key, gpu in _PRESETS.gpus.items())),
    Field("precision", "Precision", options=(("bf16", "BF16"), ("fp8", "FP8"))),
    Field("gpus", "GPUs", unit="GPUs", whole=True, max=1e7),  # 10 million: past any fleet built
    Field("mfu_percent", "MFU", unit="% of peak", max=100),
    Field(
        "token_bytes",
        "Token ids on disk",
        options=tuple((str(width), f"{width} B per token") for width in estimators.storage.TOKEN_ID_WIDTHS),
    ),
)
_FIELD = {field.name: field for field in FIELDS}


def presets() -> dict:
    """Named starting states, one per training-run preset (the first is the default)."""
    return {
        key: {
            "label": run.name,
            "state": {
                "params_billions": run.params / BILLION,
                "tokens_trillions": run.tokens / TRILLION,
                "gpu": run.gpu,
                "precision": run.precision,
                "gpus": run.gpus,
                "mfu_percent": run.mfu / PER_CENT,
                # The narrowest id that holds the run's vocabulary: uint16 for GPT-2, uint32 for Llama 3.
                "token_bytes": str(estimators.token_id_bytes(_PRESETS.model(run.model).config.vocab)),
            },
        }
        for key, run in _PRESETS.runs.items()
    }


def _read(state: dict) -> dict:
    missing = [name for name in _FIELD if name not in state]
    if missing:
        raise estimators.EstimatorError(missing[0], None, "a value (the field is missing)")
    gpu_key = choice(_FIELD["gpu"], state["gpu"])
    gpu = _PRESETS.gpu(gpu_key)
    precision = choice(_FIELD["precision"], state["precision"])
    if precision not in gpu.peak_flops:
        allowed = ", ".join(p.upper() for p in gpu.peak_flops)
        raise estimators.EstimatorError("precision", precision, f"one the {gpu.name} has a peak for: {allowed}")
    return {
        "params": number(_FIELD["params_billions"], state["params_billions"]) * BILLION,
        "tokens": number(_FIELD["tokens_trillions"], state["tokens_trillions"]) * TRILLION,
        "gpu": gpu,
        "precision": precision,
        "peak": gpu.peak_flops[precision],
        "gpus": whole(_FIELD["gpus"], state["gpus"]),
        "mfu": number(_FIELD["mfu_percent"], state["mfu_percent"]) * PER_CENT,
        "token_bytes": int(choice(_FIELD["token_bytes"], state["token_bytes"])),
    }


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = _read(state)
    flops = estimators.training_flops(s["params"], s["tokens"])
    fleet_peak = estimators.fleet_peak_flops(s["gpus"], s["peak"])
    delivered = estimators.delivered_flops(s["gpus"], s["peak"], s["mfu"])
    seconds = estimators.training_seconds(flops, s["gpus"], s["peak"], s["mfu"])
    gpu_hours = estimators.gpu_hours(seconds, s["gpus"])
    outputs = {
        "flops": f"{units.sci(flops)} FLOPs",
        "delivered": units.si(delivered, "FLOP/s", 1),
        "fleet": (
            f"{units.integer(s['gpus'])} × {s['gpu'].name} {s['precision'].upper()} "
            f"{units.si(s['peak'], 'FLOP/s', 0)} = {units.si(fleet_peak, 'FLOP/s', 1)} peak"
        ),
        "duration": units.duration(seconds),
        "gpu_hours": units.count(gpu_hours, 2),
    }
    outputs.update(
        tokens=f"{units.count(s['tokens'], 2)} tokens",
        dataset=f"≈ {units.bytes_(estimators.dataset_bytes(s['tokens'], s['token_bytes']), 2)} on disk",
        state_bytes=units.bytes_(estimators.model_state_bytes(s["params"]), 2),
        checkpoint=units.bytes_(estimators.checkpoint_bytes(s["params"]), 2),
        checkpoint_note=(
            f"{units.bytes_(estimators.checkpoint_bytes(s['params'], include_gradients=True), 2)} with gradients · "
            f"{units.bytes_(estimators.weights_bytes(s['params']), 1)} weights only"
        ),
    )
    outputs["summary"] = f"{outputs['flops']} at {outputs['delivered']}: {outputs['duration']}, {outputs['gpu_hours']} GPU-hours."
    run_row = {
        "params": s["params"],
        "tokens": s["tokens"],
        "label": f"{units.count(s['params'], 0)} parameters × {units.count(s['tokens'], 1)} tokens = {outputs['flops']}",
    }
    return {"outputs": outputs, "data": {"run": [run_row]}}
