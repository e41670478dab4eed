"""How long does a training run take?

C = 6ND, divided by what the fleet delivers (GPUs × dense peak × MFU), gives
the ideal wall-clock time; the same inputs give GPU-hours, the bytes the run
moves, and its place on the N × D plane (estimators.run_estimate).
"""

import estimators
from estimators import units

from ..contract import Output, choice, from_entry, from_estimate, from_preset, number, preset, read, whole

TITLE = "How long does a training run take?"
CHART = "compute_plane"

_PRESETS = estimators.load_presets()
BILLION, TRILLION, PER_CENT = 1e9, 1e12, 1e-2
# Every precision some GPU has a dense peak for; a GPU without one is refused by name.
_PRECISIONS = {p: p.upper() for gpu in _PRESETS.gpus.values() for p in gpu.peak_flops}

FIELDS = (
    # From a million parameters, the smallest language models trained for study, to 10¹⁵, a typo.
    number("params", "Model size", unit="billion parameters", scale=BILLION, min=0.001, max=1e6),
    # A hundred million tokens at least: a short fine-tune's budget, far below any pretraining run.
    number("tokens", "Training tokens", unit="trillion tokens", scale=TRILLION, min=0.0001, max=1e6),
    choice("gpu", "GPU", {key: gpu.name for key, gpu in _PRESETS.gpus.items()}),
    choice("precision", "Precision", _PRECISIONS),
    whole("gpus", "GPUs", unit="GPUs", max=1e7),  # 10 million: past any fleet built
    # A thousandth of peak at least: below it the GPUs are idle, not training.
    number("mfu", "MFU", unit="% of peak", scale=PER_CENT, min=0.1, max=100),
    choice("token_bytes", "Token ids on disk", {w: f"{w} B per token" for w in estimators.storage.TOKEN_ID_WIDTHS}),
)
# Beside the picture (the compute a run needs and the GPUs that deliver it); the rest under "More inputs".
MAIN = ("params", "tokens", "gpu", "gpus")

_FLEET = ("gpu", "precision", "gpus", "mfu")
_E = estimators.RunEstimate

OUTPUTS = (
    Output("flops", "FLOPs of the run, 6 × N × D", of=(_E, "flops"), uses=("params", "tokens")),
    Output("delivered", "÷ what the fleet delivers (peak × MFU)", detail="fleet", of=(_E, "delivered_flops"), uses=_FLEET),
    Output("duration", "= ideal wall-clock time", of=(_E, "seconds"), uses=("params", "tokens", *_FLEET)),
    Output("gpu_hours", "GPU-hours", note="the same whatever the fleet size", of=(_E, "gpu_hours"),
           uses=("params", "tokens", *(u for u in _FLEET if u != "gpus"))),
    Output("tokens", "Dataset", detail="dataset", of=(_E, "dataset_bytes"), uses=("tokens", "token_bytes")),
    Output("state_bytes", "Training state (mixed-precision Adam)", note="weights, gradients, master copy, two moments",
           of=(_E, "state_bytes"), uses=("params",)),
    Output("checkpoint", "Checkpoint as Megatron-LM and DeepSpeed write it", detail="checkpoint_note", of=(_E, "checkpoint_bytes"), uses=("params",)),
)


def presets() -> dict:
    """Named starting states, one per training-run preset (the first is the default)."""
    return {
        key: preset(FIELDS, run.name, {
            "params": from_preset(run, "params", BILLION),
            "tokens": from_preset(run, "tokens", TRILLION),
            "gpu": from_entry(_PRESETS.gpu(run.gpu)),
            "precision": from_preset(run, "precision"),
            "gpus": from_preset(run, "gpus"),
            "mfu": from_preset(run, "mfu", PER_CENT),
            "token_bytes": from_estimate(estimators.run_preset_estimate, key, attribute="token_bytes",
                                         entries=(run, _PRESETS.model(run.model))),
        })
        for key, run in _PRESETS.runs.items()
    }


def _fleet(e: estimators.RunEstimate, gpu, precision: str) -> str:
    """"16,384 × H100 BF16 989 TFLOP/s = 16.2 EFLOP/s peak"; one GPU is its own peak, said once."""
    one = f"{gpu.name} {precision} {units.si(e.peak_flops_per_gpu, 'FLOP/s')}"
    if e.gpus == 1:
        return f"1 × {one} peak"
    return f"{units.integer(e.gpus)} × {one} = {units.si(e.fleet_peak_flops, 'FLOP/s')} peak"


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = read(FIELDS, state)
    gpu = _PRESETS.gpu(s["gpu"])
    if s["precision"] not in gpu.peak_flops:
        allowed = ", ".join(_PRECISIONS[p] for p in gpu.peak_flops)
        raise estimators.EstimatorError("precision", state["precision"], f"a precision the {gpu.name} has a dense peak for: {allowed}")
    peak = gpu.peak_flops[s["precision"]]
    e = estimators.run_estimate(s["params"], s["tokens"], s["gpus"], peak, mfu=s["mfu"],
                                token_bytes=int(s["token_bytes"]))
    flops = f"{units.sci(e.flops)} FLOPs"
    outputs = {
        "flops": flops,
        "delivered": units.si(e.delivered_flops, "FLOP/s"),
        "fleet": _fleet(e, gpu, _PRECISIONS[s["precision"]]),
        "duration": units.duration(e.seconds),
        "gpu_hours": units.count(e.gpu_hours),
        "tokens": f"{units.count(e.tokens)} tokens",
        "dataset": f"≈ {units.bytes_(e.dataset_bytes)} on disk",
        "state_bytes": units.bytes_(e.state_bytes),
        "checkpoint": units.bytes_(e.checkpoint_bytes),
        "checkpoint_note": (
            f"{units.bytes_(e.checkpoint_bytes_with_gradients)} with gradients · "
            f"{units.bytes_(e.weights_bytes)} weights only"
        ),
    }
    outputs["summary"] = f"{flops} at {outputs['delivered']}: {outputs['duration']}, {outputs['gpu_hours']} GPU-hours."
    run_row = {
        "params": e.params,
        "tokens": e.tokens,
        "label": f"{units.count(e.params)} parameters × {units.count(e.tokens)} tokens = {flops}",
    }
    return {"outputs": outputs, "data": {"run": [run_row]}}
