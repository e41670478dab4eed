"""The memory bill of the data-parallel GPUs.

Model state (weights, gradients, FP32 master weights, the optimizer's moments)
under ZeRO stage 0–3, plus the activations the backward pass keeps, against
the memory of the GPU; and, when the bill does not fit, what each remedy
would bring it to (estimators.memory_bill). With pipeline stages, the bill is
the first stage's. The picture draws it once per data-parallel GPU (the first
eight, then one column for the rest), so stepping the ZeRO stage (Play) shows
each sharded part sliced across the columns, beside what serving the same
model holds: its weights alone.
"""

from dataclasses import dataclass

import estimators
from estimators import memory, units, validate
from estimators.number_formats import NUMBER_FORMATS

from ..contract import Output, choice, model_choice, presets_from, read, whole

TITLE = "The memory bill of the data-parallel GPUs"
CHART = "memory_bill"

_PRESETS = estimators.load_presets()
# Dense decoders only: the activation estimate (Korthikanti et al. 2022) is for a dense block.
_MODELS = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.DecoderConfig)}
# Each part of the bill: its key in GpuMemory and the outputs, and its label, in stacking order.
COMPONENTS = {
    "weights": "Weights",  # and their number format, which the form sets: "Weights (BF16)"
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
    model_choice("model", "Model", _MODELS),
    choice("optimizer", "Optimizer", memory.OPTIMIZERS),
    choice("stage", "ZeRO stage", memory.ZERO_STAGE_LABELS, play=True),
    whole("gpus", "Data-parallel GPUs", unit="GPUs", max=1e7),  # 10 million: past any fleet built
    choice("gpu", "GPU", {key: f"{g.name} · {_capacity(g)}" for key, g in _PRESETS.gpus.items()}),
    whole("seq_len", "Sequence length", unit="tokens", max=1e7),  # past any context window
    whole("micro_batch", "Micro-batch", unit="sequences per GPU", max=1e5),
    choice("recompute", "Activation recomputation", memory.RECOMPUTE_LABELS),
    whole("tp", "Tensor-parallel size", unit="GPUs per layer", max=1024),
    whole("pp", "Pipeline stages", unit="stages", max=1024,
          note="the bill of the first stage, which holds the most activations while the pipe fills"),
    choice("weights_format", "Weight format", {key: row.label for key, row in NUMBER_FORMATS.items()},
           note="BF16 in mixed precision; see Numbers in fewer bits"),
)
# Beside the picture (the model, how far ZeRO shards it over how many GPUs, and the GPU's memory); the rest under "More inputs".
MAIN = ("model", "stage", "gpus", "gpu")

_STATE = ("model", "optimizer", "stage", "gpus", "tp", "pp")
_SAME_FOR_EVERY_OPTIMIZER = tuple(u for u in _STATE if u != "optimizer")
_ACTIVATIONS = ("model", "seq_len", "micro_batch", "recompute", "tp", "pp")
_EVERYTHING = tuple(f.name for f in FIELDS)

OUTPUTS = (
    # Every optimizer keeps working weights in the format picked; all but Adam on BF16 weights keep an FP32 master copy too.
    Output("weights", "Weights", of=estimators.zero_breakdown, uses=(*_SAME_FOR_EVERY_OPTIMIZER, "weights_format")),
    Output("gradients", "+ gradients", note="BF16, or FP32 as Megatron-LM keeps them", of=estimators.zero_breakdown,
           uses=_STATE),
    Output("master", "+ master weights (FP32)", of=estimators.zero_breakdown, uses=_STATE),
    Output("momentum", "+ momentum", of=estimators.zero_breakdown, uses=_STATE),
    Output("variance", "+ variance", of=estimators.zero_breakdown, uses=_STATE),
    Output("activations", "+ activations", note="not sharded by ZeRO", of=estimators.model_activation_bytes,
           uses=_ACTIVATIONS),
    Output("total", "= on each GPU", detail="ratio", of=estimators.memory_bill, uses=_EVERYTHING),
    Output("inference", "Serving it: weights alone", note="the picture's last column",
           of=estimators.inference_weight_bytes, uses=("model", "tp", "pp", "weights_format")),
    Output("per_param", sentence=True, of=estimators.bytes_per_param, uses=("optimizer", "weights_format")),
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


# The picture draws this many data-parallel GPUs one by one, and one column for the rest: past eight (one server)
# the columns would be too narrow to read, and every one holds the same bill.
DRAWN_GPUS = 8


@dataclass(frozen=True)
class GpuColumn:
    """One column of the picture of the data-parallel GPUs: the first GPU it stands for (from 1), and how many."""

    first: int
    gpus: int  # one, or every GPU past the drawn ones


def data_parallel_columns(gpus: int, drawn: int = DRAWN_GPUS) -> tuple:
    """One column per GPU while N_d ≤ `drawn`, else one for each of the first `drawn` and one standing for the other
    N_d − `drawn` (any one of them: every data-parallel GPU holds the same bill)."""
    n_d = validate.positive_int("gpus", gpus)
    columns = [GpuColumn(first=i, gpus=1) for i in range(1, min(n_d, drawn) + 1)]
    if n_d > drawn:
        columns.append(GpuColumn(first=drawn + 1, gpus=n_d - drawn))
    return tuple(columns)


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = read(FIELDS, state)
    model, gpu = _MODELS[s["model"]], _PRESETS.gpu(s["gpu"])
    try:
        bill = estimators.memory_bill(model.config, s["gpus"], int(s["stage"]), s["optimizer"], seq_len=s["seq_len"],
                                      micro_batch=s["micro_batch"], recompute=s["recompute"], tp=s["tp"],
                                      gpu_memory_bytes=gpu.memory_bytes, pp=s["pp"], weights_format=s["weights_format"])
    except estimators.EstimatorError as error:
        raise _in_form_terms(error, model, state) from None
    weights_label = NUMBER_FORMATS[s["weights_format"]].label
    labels = COMPONENTS | {"weights": f"{COMPONENTS['weights']} ({weights_label})"}
    parts = [(key, label, getattr(bill.memory, key)) for key, label in labels.items()]
    outputs = {key: units.bytes_(value) for key, _, value in parts}
    outputs["total"] = units.bytes_(bill.memory.total)
    outputs["ratio"] = f"{units.times(bill.fit.ratio)} the {_capacity(gpu)} of one {gpu.name}"
    outputs["per_param"] = (
        f"{units.number(bill.per_param.total)} bytes per parameter before sharding, the weights in {weights_label}: "
        + " + ".join(units.number(getattr(bill.per_param, key)) for key in list(COMPONENTS)[:-1])
    )
    outputs["verdict"] = _verdict(bill, gpu)
    outputs["summary"] = f"{outputs['total']} per GPU, {outputs['ratio']}. {outputs['verdict']}"
    outputs["inference"] = units.bytes_(bill.inference)
    columns = data_parallel_columns(s["gpus"])
    rows = [row for i, column in enumerate(columns) for row in _column_rows(i, column, parts, bill.shards)]
    serving = _column_name(None)
    rows.append({"column": serving, "column_order": len(columns), "part": labels["weights"], "order": 0,
                 "bytes": bill.inference, "label": f"Serving the same model: each GPU holds its weights alone, {outputs['inference']}"})
    # Each GPU's bill without ZeRO, outlined behind its column: what the stage slices away, on a scale that stays.
    whole = [{"column": _column_name(column), "column_order": i, "bytes": bill.unsharded.total,
              "label": f"{_column_name(column)} without ZeRO: {units.bytes_(bill.unsharded.total)}"}
             for i, column in enumerate(columns)]
    budget = [{"bytes": bill.fit.budget, "label": f"red line: one {gpu.name}'s {_capacity(gpu)}"}]
    return {"outputs": outputs, "data": {"bill": rows, "whole": whole, "budget": budget}}


def _in_form_terms(error: estimators.EstimatorError, model, state: dict) -> estimators.EstimatorError:
    """The estimator's limit on the tensor-parallel size or the stages, with the model's own figures and the
    field's unit; any other error as it is."""
    c = model.config
    if error.argument == "tp":
        sizes = [units.integer(d) for d in range(1, c.heads + 1) if c.heads % d == 0]
        listed = ", ".join(sizes[:-1]) + f" or {sizes[-1]}" if len(sizes) > 1 else sizes[0]
        return estimators.EstimatorError("tp", state["tp"], (
            f"a divisor of {model.name}'s {units.integer(c.heads)} attention heads: {listed} GPUs per layer"))
    if error.argument == "pp":
        return estimators.EstimatorError("pp", state["pp"], (
            f"at most {units.integer(c.layers)} stages, one layer each: {model.name} has {units.integer(c.layers)} layers"))
    return error


def _column_name(column) -> str:
    """A column's name under the picture: "GPU 3", "× 1,016 more", or the serving column's."""
    if column is None:
        return "serving"
    return f"GPU {units.integer(column.first)}" if column.gpus == 1 else f"× {units.integer(column.gpus)} more"


def _held(part: str, column, shards) -> str:
    """Which slice of a part the GPU(s) of a column hold, as ZeRO's stage shares it."""
    if part == "activations":  # ZeRO never shards them: each GPU keeps those of its own micro-batch
        return "its own micro-batch's"
    share = getattr(shards, part)
    if share == 1:
        return "a whole copy"
    if column.gpus == 1:
        return f"slice {units.integer(column.first)} of {units.integer(share)}"
    return f"one slice of {units.integer(share)} each"


def _column_rows(i: int, column, parts, shards) -> list:
    name = _column_name(column)
    return [
        {"column": name, "column_order": i, "part": label, "order": order, "bytes": value,
         "label": f"{name}: {label}, {_held(key, column, shards)}, {units.bytes_(value)}"}
        for order, (key, label, value) in enumerate(parts)
    ]
