"""W3: the memory bill of one data-parallel GPU.

Model state (weights, gradients, FP32 master weights, the optimizer's moments)
under ZeRO stage 0–3, plus the activations the backward pass keeps, against
the memory of the GPU; and, when the bill does not fit, what each remedy
(a higher ZeRO stage, full recomputation, more GPUs) would bring it to.
"""

import estimators
from estimators import units

from .fields import Field, choice, whole

TITLE = "The memory bill of one data-parallel GPU"
CHART = "memory_bill"

_PRESETS = estimators.load_presets()
# Dense decoders only: the activation estimate (Korthikanti et al. 2022) is for a dense block.
_MODELS = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.DecoderConfig)}
_OPTIMIZERS = (
    ("adam", "Adam (FP32 moments)"),
    ("adam8bit", "8-bit Adam"),
    ("sgd_momentum", "SGD with momentum"),
    ("sgd", "SGD"),
)
_STAGES = (
    ("0", "0 · nothing sharded"),
    ("1", "1 · optimizer state"),
    ("2", "2 · + gradients"),
    ("3", "3 · + weights"),
)
_RECOMPUTE = (
    ("none", "none"),
    ("selective", "selective (attention)"),
    ("full", "full (whole layers)"),
)
# Output key and chart label of each part of the bill, in stacking order.
COMPONENTS = (
    ("weights", "Weights (BF16)"),
    ("gradients", "Gradients (BF16)"),
    ("master", "Master weights (FP32)"),
    ("momentum", "Momentum"),
    ("variance", "Variance"),
    ("activations", "Activations"),
)
# The ZeRO stage the verdict proposes when a lower one does not fit.
TOP_STAGE = estimators.memory.ZERO_STAGES[-1]

FIELDS = (
    Field(
        "model",
        "Model",
        options=tuple((key, f"{m.name} · {units.count(m.params, 2)}") for key, m in _MODELS.items()),
    ),
    Field("optimizer", "Optimizer", options=_OPTIMIZERS),
    Field("stage", "ZeRO stage", options=_STAGES),
    Field("gpus", "Data-parallel GPUs", unit="GPUs", whole=True, max=1e7),  # 10 million: past any fleet built
    Field("gpu", "GPU", options=tuple((key, f"{g.name} · {units.bytes_(g.memory_bytes, 0)}") for key, g in _PRESETS.gpus.items())),
    Field("seq_len", "Sequence length", unit="tokens", whole=True, max=1e7),  # past any context window
    Field("micro_batch", "Micro-batch", unit="sequences per GPU", whole=True, max=1e5),
    Field("recompute", "Activation recomputation", options=_RECOMPUTE),
    Field("tp", "Tensor-parallel size", unit="GPUs per layer", whole=True, max=1024),
)
_FIELD = {field.name: field for field in FIELDS}

def presets() -> dict:
    """Named starting states, one per training-setup preset (the first is the default)."""
    return {
        key: {
            "label": setup.name,
            "state": {
                "model": setup.model,
                "optimizer": setup.optimizer,
                "stage": str(setup.zero_stage),
                "gpus": setup.gpus,
                "gpu": setup.gpu,
                "seq_len": setup.seq_len,
                "micro_batch": setup.micro_batch,
                "recompute": setup.recompute,
                "tp": setup.tp,
            },
        }
        for key, setup in _PRESETS.setups.items()
    }


def _read(state: dict) -> dict:
    missing = [name for name in _FIELD if name not in state]
    if missing:
        raise estimators.EstimatorError(missing[0], None, "a value (the field is missing)")
    model = _MODELS[choice(_FIELD["model"], state["model"])]
    tp = whole(_FIELD["tp"], state["tp"])
    if model.config.heads % tp:
        raise estimators.EstimatorError("tp", state["tp"], f"a divisor of the {model.name}'s {model.config.heads} attention heads")
    return {
        "model": model,
        "optimizer": choice(_FIELD["optimizer"], state["optimizer"]),
        "stage": int(choice(_FIELD["stage"], str(state["stage"]))),
        "gpus": whole(_FIELD["gpus"], state["gpus"]),
        "gpu": _PRESETS.gpu(choice(_FIELD["gpu"], state["gpu"])),
        "seq_len": whole(_FIELD["seq_len"], state["seq_len"]),
        "micro_batch": whole(_FIELD["micro_batch"], state["micro_batch"]),
        "recompute": choice(_FIELD["recompute"], state["recompute"]),
        "tp": tp,
    }


def _activations(s: dict, recompute: str) -> float:
    c = s["model"].config
    # Tensor parallelism runs with sequence parallelism, as Megatron-LM recommends (Korthikanti et al. §4.2.2).
    return estimators.activation_bytes(
        s["seq_len"], s["micro_batch"], c.d_model, c.heads, c.layers, s["tp"], sequence_parallel=True, recompute=recompute
    )


def _bill(s: dict, stage: int | None = None, recompute: str | None = None) -> estimators.GpuMemory:
    """The bill at the form's state, or with another ZeRO stage or recomputation."""
    activations = _activations(s, recompute or s["recompute"])
    stage = s["stage"] if stage is None else stage
    return estimators.training_memory_per_gpu(s["model"].params, s["gpus"], stage, s["optimizer"], activations, s["tp"])


def _fewest_gpus(s: dict, stage: int) -> int | None:
    return estimators.min_data_parallel_gpus(
        s["model"].params, stage, s["gpu"].memory_bytes, s["optimizer"], _activations(s, s["recompute"]), s["tp"]
    )


def _remedy(what: str, bill: estimators.GpuMemory, budget: float) -> str:
    fits = estimators.memory_fit(bill.total, budget).fits
    return f"{what} {units.bytes_(bill.total)} ({'fits' if fits else 'still over'})"


def _verdict(s: dict, bill: estimators.GpuMemory) -> str:
    budget = s["gpu"].memory_bytes
    fit = estimators.memory_fit(bill.total, budget)
    if fit.fits:
        return f"Fits, with {units.bytes_(fit.spare)} of the {units.bytes_(budget, 0)} to spare."
    helps = []
    zero_top = _bill(s, stage=TOP_STAGE)
    if s["stage"] < TOP_STAGE:
        helps.append(_remedy(f"ZeRO-{TOP_STAGE} brings it to", zero_top, budget))
    if s["recompute"] != "full":
        helps.append(_remedy("full recomputation to", _bill(s, recompute="full"), budget))
    # More GPUs shrink only what the stage shards: none of it at stage 0, so count them at the top stage.
    stage = s["stage"] or TOP_STAGE
    if s["stage"] or not estimators.memory_fit(zero_top.total, budget).fits:
        gpus = _fewest_gpus(s, stage)
        if gpus is None:
            helps.append(f"at ZeRO-{stage} no count of GPUs fits: the unsharded part and the activations are over alone")
        else:
            helps.append(f"ZeRO-{stage} fits from {units.integer(gpus)} data-parallel GPUs")
    return f"Does not fit, {units.bytes_(-fit.spare)} over. " + "; ".join(helps) + "."


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = _read(state)
    bill = _bill(s)
    fit = estimators.memory_fit(bill.total, s["gpu"].memory_bytes)
    per_param = estimators.bytes_per_param(s["optimizer"])
    parts = [(key, label, getattr(bill, key)) for key, label in COMPONENTS]
    outputs = {key: units.bytes_(value) for key, _, value in parts}
    outputs["total"] = units.bytes_(bill.total)
    outputs["ratio"] = f"{units.times(fit.ratio, 2)} the {units.bytes_(fit.budget, 0)} of one {s['gpu'].name}"
    outputs["per_param"] = (
        f"{units.fixed(per_param.total, 0)} bytes per parameter before sharding: "
        + " + ".join(units.fixed(getattr(per_param, key), 0) for key, _ in COMPONENTS[:-1])
    )
    outputs["verdict"] = _verdict(s, bill)
    outputs["summary"] = f"{outputs['total']} per GPU, {outputs['ratio']}. {outputs['verdict']}"
    rows = [
        {"part": label, "order": i, "bytes": value, "label": f"{label}: {units.bytes_(value)}"}
        for i, (_, label, value) in enumerate(parts)
    ]
    budget = [{"bytes": fit.budget, "label": f"{s['gpu'].name}: {units.bytes_(fit.budget, 0)}"}]
    return {"outputs": outputs, "data": {"bill": rows, "budget": budget}}

