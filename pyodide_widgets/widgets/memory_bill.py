"""The memory bill of one data-parallel GPU.

Model state (weights, gradients, FP32 master weights, the optimizer's moments)
under ZeRO stage 0–3, plus the activations the backward pass keeps, against
the memory of the GPU; and, when the bill does not fit, what each remedy
would bring it to (estimators.memory_bill). With pipeline stages, the bill is
the first stage's.
"""

import estimators
from estimators import memory, units

from ..contract import Output, choice, presets_from, read, whole

TITLE = "The memory bill of one data-parallel GPU"
CHART = "memory_bill"

_PRESETS = estimators.load_presets()
# Dense decoders only: the activation estimate (Korthikanti et al. 2022) is for a dense block.
_MODELS = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.DecoderConfig)}
# Each part of the bill: its key in GpuMemory and the outputs, and its label, in stacking order.
COMPONENTS = {
    "weights": "Weights (BF16)",
    "gradients": "Gradients",
    "master": "Master weights (FP32)",
    "momentum": "Momentum",
    "variance": "Variance",
    "activations": "Activations",
}

def _capacity(gpu) -> str:
    """A GPU's memory as its vendor means it: "80 GiB" (presets store the binary capacity)."""
    return units.bytes_(gpu.memory_bytes, binary=True)


FIELDS = (
    choice("model", "Model", {key: f"{m.name} · {units.count(m.params)} counted from its configuration" for key, m in _MODELS.items()}),
    choice("optimizer", "Optimizer", memory.OPTIMIZERS),
    choice("stage", "ZeRO stage", memory.ZERO_STAGE_LABELS),
    whole("gpus", "Data-parallel GPUs", unit="GPUs", max=1e7),  # 10 million: past any fleet built
    choice("gpu", "GPU", {key: f"{g.name} · {_capacity(g)}" for key, g in _PRESETS.gpus.items()}),
    whole("seq_len", "Sequence length", unit="tokens", max=1e7),  # past any context window
    whole("micro_batch", "Micro-batch", unit="sequences per GPU", max=1e5),
    choice("recompute", "Activation recomputation", memory.RECOMPUTE_LABELS),
    whole("tp", "Tensor-parallel size", unit="GPUs per layer", max=1024),
    whole("pp", "Pipeline stages", unit="stages", max=1024,
          note="the bill of the first stage, which holds the most activations while the pipe fills"),
)

_STATE = ("model", "optimizer", "stage", "gpus", "tp", "pp")
_SAME_FOR_EVERY_OPTIMIZER = tuple(u for u in _STATE if u != "optimizer")
_ACTIVATIONS = ("model", "seq_len", "micro_batch", "recompute", "tp", "pp")
_EVERYTHING = tuple(f.name for f in FIELDS)

OUTPUTS = (
    # Every optimizer keeps BF16 weights; all but Adam on BF16 weights keep an FP32 master copy too.
    Output("weights", "Weights (BF16)", of=estimators.zero_breakdown, uses=_SAME_FOR_EVERY_OPTIMIZER),
    Output("gradients", "+ gradients", note="BF16, or FP32 as Megatron-LM keeps them", of=estimators.zero_breakdown,
           uses=_STATE),
    Output("master", "+ master weights (FP32)", of=estimators.zero_breakdown, uses=_STATE),
    Output("momentum", "+ momentum", of=estimators.zero_breakdown, uses=_STATE),
    Output("variance", "+ variance", of=estimators.zero_breakdown, uses=_STATE),
    Output("activations", "+ activations", note="not sharded by ZeRO", of=estimators.model_activation_bytes,
           uses=_ACTIVATIONS),
    Output("total", "= on each GPU", detail="ratio", of=estimators.memory_bill, uses=_EVERYTHING),
    Output("per_param", sentence=True, of=estimators.bytes_per_param, uses=("optimizer",)),
    Output("verdict", sentence=True, of=estimators.memory_bill, uses=_EVERYTHING),
)


def presets() -> dict:
    """Named starting states, one per training-setup preset (the first is the default)."""
    return presets_from(FIELDS, _PRESETS.setups, stage="zero_stage")


def _remedy(remedy: estimators.Remedy) -> str:
    if remedy.change == "gpus":
        if remedy.value is None:
            return f"at ZeRO-{remedy.zero_stage} no count of GPUs fits: the unsharded part and the activations are over alone"
        return f"ZeRO-{remedy.zero_stage} fits from {units.integer(remedy.value)} data-parallel GPUs"
    what = f"ZeRO-{remedy.value} brings it to" if remedy.change == "zero_stage" else "full recomputation to"
    return f"{what} {units.bytes_(remedy.total_bytes)} ({'fits' if remedy.fits else 'still over'})"


def _verdict(bill: estimators.MemoryBill, gpu) -> str:
    if bill.fit.fits:
        return f"Fits, with {units.bytes_(bill.fit.spare)} of the {_capacity(gpu)} to spare."
    return f"Does not fit, {units.bytes_(-bill.fit.spare)} over. " + "; ".join(map(_remedy, bill.remedies)) + "."


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = read(FIELDS, state)
    model, gpu = _MODELS[s["model"]], _PRESETS.gpu(s["gpu"])
    bill = estimators.memory_bill(model.config, s["gpus"], int(s["stage"]), s["optimizer"], s["seq_len"],
                                  s["micro_batch"], s["recompute"], s["tp"], gpu.memory_bytes, s["pp"])
    parts = [(key, label, getattr(bill.memory, key)) for key, label in COMPONENTS.items()]
    outputs = {key: units.bytes_(value) for key, _, value in parts}
    outputs["total"] = units.bytes_(bill.memory.total)
    outputs["ratio"] = f"{units.times(bill.fit.ratio)} the {_capacity(gpu)} of one {gpu.name}"
    outputs["per_param"] = (
        f"{units.number(bill.per_param.total)} bytes per parameter before sharding: "
        + " + ".join(units.number(getattr(bill.per_param, key)) for key in list(COMPONENTS)[:-1])
    )
    outputs["verdict"] = _verdict(bill, gpu)
    outputs["summary"] = f"{outputs['total']} per GPU, {outputs['ratio']}. {outputs['verdict']}"
    rows = [
        {"part": label, "order": i, "bytes": value, "label": f"{label}: {units.bytes_(value)}"}
        for i, (_, label, value) in enumerate(parts)
    ]
    budget = [{"bytes": bill.fit.budget, "label": f"{gpu.name}: {_capacity(gpu)}"}]
    return {"outputs": outputs, "data": {"bill": rows, "budget": budget}}
