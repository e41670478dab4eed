"""Full fine-tune, LoRA and QLoRA side by side on one GPU.

The adapters are counted on the real shapes of the chosen linear layers
(estimators.lora_adapted_matrices: grouped-query k and v are narrower than q, the
MLP's are wider, GPT-2's q, k and v are one matrix), and each method's memory is built part by part as the
papers build it (estimators.finetune_bill), activations included. The picture
draws the three methods' bills, part by part, against the GPU's memory; under
the outputs, folded, the first adapted layer at its true shapes (W frozen,
B d × r, A r × k, placed by the figure, r drawn wider than life and labelled so).
"""

import estimators
from estimators import finetune, memory, units

from ..contract import Output, choice, model_choice, multi, presets_from, read, whole

TITLE = "Full fine-tune, LoRA or QLoRA: what fits on one GPU"
CHART = "finetune_fit"
# Under the outputs, folded: the first adapted layer at its true shapes.
FOLDED_CHARTS = {"lora_adapter": "The adapted layer: W frozen, B and A trained, to their shapes"}

_PRESETS = estimators.load_presets()
# Dense decoders only: LoRA's shapes and the activation count are for a dense block.
_MODELS = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.DecoderConfig)}
METHODS = {"full": "Full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}
# The number formats each method keeps its weights in (Numbers in fewer bits explains them).
PRECISIONS = {"full": "BF16; FP32 master, moments", "lora": "BF16 throughout", "qlora": "NF4 base; BF16 rest"}


def _capacity(gpu) -> str:
    """A GPU's memory as its vendor means it, binary: "24 GiB"."""
    return units.bytes_(gpu.memory_bytes, binary=True)


FIELDS = (
    model_choice("model", "Base model", _MODELS),
    whole("rank", "LoRA rank r", max=1e5),  # the estimator refuses a rank wider than the layer
    multi("modules", "Adapted linear layers, in every block", finetune.LLAMA_MODULE_LABELS),
    choice("quantization", "QLoRA's frozen base, bits a weight", {
        key: f"{finetune.QUANTIZATION_LABELS[key]} · {units.number(layout.bits_per_weight)}"
        for key, layout in finetune.QUANTIZATION_LAYOUTS.items()
    }),
    whole("seq_len", "Sequence length", unit="tokens", max=1e7),
    whole("micro_batch", "Micro-batch", unit="sequences per GPU", max=1e5),
    choice("recompute", "Activation recomputation", memory.RECOMPUTE_LABELS),
    choice("gpu", "GPU", {key: f"{g.name} · {_capacity(g)}" for key, g in _PRESETS.gpus.items()}),
)
# Beside the picture (the base, how it is held, the adapter's size, the GPU it must fit); the rest under "More inputs".
MAIN = ("model", "quantization", "rank", "gpu")

# The fields each method's bill depends on, in the form's order: a full fine-tune has no adapters, and
# only QLoRA quantizes its base.
_BILL = {
    "full": ("model", "seq_len", "micro_batch", "recompute"),
    "lora": ("model", "rank", "modules", "seq_len", "micro_batch", "recompute"),
    "qlora": ("model", "rank", "modules", "quantization", "seq_len", "micro_batch", "recompute"),
}

OUTPUTS = (
    Output("trainable", "Trained by LoRA and QLoRA", detail="per_module", of=estimators.lora_decoder_params,
           uses=("model", "rank", "modules")),
    *(Output(method, label, note=PRECISIONS[method], detail=f"{method}_parts", of=estimators.finetune_bill,
             uses=_BILL[method])
      for method, label in METHODS.items()),
    *(Output(f"{method}_fit", sentence=True, of=(estimators.MemoryFit, "spare"), uses=(*_BILL[method], "gpu"))
      for method in METHODS),
)


def presets() -> dict:
    """One starting state per fine-tuning preset (the first is the default)."""
    return presets_from(FIELDS, _PRESETS.finetunes)


def _parts(bill: estimators.FinetuneBill) -> str:
    """"base 3.5 GB + adapters 34 MB + gradients 34 MB + optimizer 134 MB + activations 2.1 GB"."""
    s = bill.state
    base = s.base_quantized_bytes + s.base_16bit_bytes
    weights = ("weights", s.trainable_weights_bytes) if s.method == "full" else ("frozen base", base)
    parts = [weights] + ([] if s.method == "full" else [("adapters", s.trainable_weights_bytes)])
    parts += [("gradients", s.gradients_bytes), ("optimizer", s.optimizer_bytes), ("activations", bill.activations)]
    return " + ".join(f"{name} {units.bytes_(value)}" for name, value in parts)


def _fit(label: str, bill: estimators.FinetuneBill, gpu) -> str:
    # One unit a sentence: the card's memory is binary, so its room to spare is said in GiB too.
    if bill.fit.fits:
        return f"{label} fits the {_capacity(gpu)} of one {gpu.name}, {units.bytes_(bill.fit.spare, binary=True)} to spare."
    return (f"{label} does not fit one {gpu.name}: {units.times(bill.fit.ratio)} its {_capacity(gpu)}, "
            f"{units.bytes_(-bill.fit.spare, binary=True)} over.")


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    config, gpu = _MODELS[s["model"]].config, _PRESETS.gpu(s["gpu"])
    # The matrices the adapters sit on: GPT-2's fused q, k and v take one adapter, as PEFT fits it.
    matrices = estimators.lora_adapted_matrices(config, s["modules"])
    bills = {
        method: estimators.finetune_bill(method, config, s["rank"], s["modules"], quantization=s["quantization"],
                                         seq_len=s["seq_len"], micro_batch=s["micro_batch"], recompute=s["recompute"],
                                         budget_bytes=gpu.memory_bytes)
        for method in METHODS
    }
    adapted = bills["lora"].state
    outputs = {
        "trainable": f"{units.count(adapted.trainable_params)} parameters ({units.percent(adapted.trainable_share)})",
        "per_module": "per block: " + ", ".join(
            f"{m} {units.integer(d_in)}→{units.integer(d_out)}: "
            f"{units.integer(estimators.lora_matrix_params(d_in, d_out, s['rank']))}"
            for m, (d_in, d_out) in matrices.items()
        ),
    }
    for method, label in METHODS.items():
        outputs[method] = units.bytes_(bills[method].total)
        outputs[f"{method}_parts"] = _parts(bills[method])
        outputs[f"{method}_fit"] = _fit(label, bills[method], gpu)
    outputs["summary"] = " ".join(outputs[f"{method}_fit"] for method in METHODS)
    first, shape = next(iter(matrices.items()))  # the picture draws the first adapted matrix
    return {"outputs": outputs, "data": {**_adapter_rows(first, shape, s["rank"]), **_fit_rows(bills, gpu)}}


def _adapter_rows(module: str, shape: tuple, rank: int) -> dict:
    """The adapted layer's three matrices by their sizes (the figure places them), and the line that names them."""
    d_in, d_out = shape
    layer = {"d": d_out, "k": d_in, "r": rank}  # W is d × k: d = d_out rows, k = d_in columns
    what = {"W": "frozen", "B": "trained", "A": "trained"}
    sizes = {"W": (d_out, d_in), "B": (d_out, rank), "A": (rank, d_in)}
    boxes = [
        {"name": name, **layer, "trained": what[name] == "trained",
         "tag": f"{name}, {what[name]}\n{units.integer(rows)} × {units.integer(columns)}",
         "label": f"{name}, {what[name]}: {units.integer(rows)} × {units.integer(columns)}"}
        for name, (rows, columns) in sizes.items()
    ]
    # The figure adds a second line, how r is drawn against life.
    note = [{"label": f"{finetune.MATRIX_LABELS[module]} at rank {units.integer(rank)}", **layer}]
    return {"adapter": boxes, "adapter_note": note}


def _bill_parts(bill: estimators.FinetuneBill) -> list:
    """(part, bytes) of one method's bill, in stacking order; a part the method has not is left out."""
    s = bill.state
    parts = [("weights (trained)" if s.method == "full" else "adapters", s.trainable_weights_bytes),
             ("frozen base, 4-bit", s.base_quantized_bytes), ("frozen base, BF16", s.base_16bit_bytes),
             ("gradients", s.gradients_bytes), ("optimizer", s.optimizer_bytes), ("activations", bill.activations)]
    return [(name, value) for name, value in parts if value > 0]


FIT_PARTS = ("weights (trained)", "adapters", "frozen base, 4-bit", "frozen base, BF16", "gradients", "optimizer",
             "activations")


def _fit_rows(bills: dict, gpu) -> dict:
    rows = [
        {"method": METHODS[method], "method_order": i, "part": part, "order": FIT_PARTS.index(part), "bytes": value,
         "label": f"{METHODS[method]}: {part}, {units.bytes_(value)}"}
        for i, (method, bill) in enumerate(bills.items()) for part, value in _bill_parts(bill)
    ]
    budget = [{"bytes": bills["full"].fit.budget, "label": f"red line: the {_capacity(gpu)} of one\n{gpu.name}"}]
    return {"fit": rows, "budget": budget}
