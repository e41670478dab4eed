"""Training memory on one GPU: model state under ZeRO, and activations.

Model state (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models", §3.1): mixed-precision Adam keeps, per
parameter Ψ, 2 bytes of FP16/BF16 weights, 2 of gradients and K = 12 of
optimizer state (4 FP32 master weights + 4 momentum + 4 variance), 16Ψ in all.
8-bit Adam (Dettmers et al. 2022, "8-bit Optimizers via Block-wise
Quantization", bitsandbytes) stores each moment in 1 byte (its one FP32 scale
per 2,048-value block, 0.2% more, is left out); SGD keeps no variance, and
plain SGD no momentum either.

ZeRO over N_d data-parallel GPUs (§5, figure 1) partitions, per GPU:

    stage 0 (plain DP)       (2 + 2 + K)·Ψ
    stage 1 (P_os)           2Ψ + 2Ψ + K·Ψ/N_d
    stage 2 (P_os+g)         2Ψ + (2 + K)·Ψ/N_d
    stage 3 (P_os+g+p)       (2 + 2 + K)·Ψ/N_d

Activations (Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models", §4, table 2), bytes per transformer layer with
16-bit activations, sequence s, micro-batch b, hidden h, a heads, tensor-parallel
size t:

    no parallelism                 s·b·h·(34 + 5·a·s/h)
    tensor parallel                s·b·h·(10 + 24/t + 5·a·s/(h·t))
    tensor + sequence parallel     s·b·h·(34/t + 5·a·s/(h·t))
    + selective recomputation      the 5·a·s/h attention term is recomputed, not stored
    full recomputation             2·s·b·h (only each layer's input), /t with sequence parallel

With t = 1 the tensor-parallel rows reduce to the first one.
"""

from dataclasses import dataclass

from .validate import finite_result, flag, one_of, positive, positive_int

WEIGHT_BYTES = 2  # FP16/BF16 working copy of each parameter
GRADIENT_BYTES = 2  # FP16/BF16 gradient
# Optimizer state per parameter: (FP32 master weight, momentum, variance), bytes.
OPTIMIZER_STATE_BYTES = {
    "adam": (4, 4, 4),
    "adam8bit": (4, 1, 1),
    "sgd_momentum": (4, 4, 0),
    "sgd": (4, 0, 0),
}
ZERO_STAGES = (0, 1, 2, 3)
RECOMPUTE = ("none", "selective", "full")

# Korthikanti et al. 2022 §4.1, bytes per s·b·h of one layer: 10 are never split by
# tensor parallelism (layer norms, dropout masks, attention and MLP inputs), 24 are.
ACTIVATION_UNSPLIT = 10
ACTIVATION_SPLIT = 24
ACTIVATION_ATTENTION = 5  # × a·s/h: softmax, its dropout mask and the Q·Kᵀ scores
FULL_RECOMPUTE_STORED = 2  # the 16-bit input of each layer


@dataclass(frozen=True)
class ModelState:
    """Model-state bytes (per parameter, or per GPU), stacked in the order a chart draws them."""

    weights: float  # FP16/BF16 weights
    gradients: float  # FP16/BF16 gradients
    master: float  # FP32 master weights
    momentum: float  # first moment
    variance: float  # second moment
    total: float


def _state(weights: float, gradients: float, master: float, momentum: float, variance: float) -> ModelState:
    return ModelState(weights, gradients, master, momentum, variance, weights + gradients + master + momentum + variance)


def bytes_per_param(optimizer: str = "adam") -> ModelState:
    """Bytes per parameter of training state: adam 2+2+4+4+4 = 16, adam8bit 10, sgd_momentum 12, sgd 8."""
    master, momentum, variance = OPTIMIZER_STATE_BYTES[one_of("optimizer", optimizer, tuple(OPTIMIZER_STATE_BYTES))]
    return _state(WEIGHT_BYTES, GRADIENT_BYTES, master, momentum, variance)


def model_state_bytes(params: float, optimizer: str = "adam") -> float:
    """Training-state bytes of Ψ parameters: 16Ψ for mixed-precision Adam."""
    return finite_result("model_state_bytes", positive("params", params) * bytes_per_param(optimizer).total)


def zero_breakdown(params: float, gpus: int, stage: int, optimizer: str = "adam") -> ModelState:
    """Model-state bytes on one GPU under ZeRO stage 0–3 over `gpus` data-parallel GPUs.

    Stage 1 divides the optimizer state (master, momentum, variance) by N_d,
    stage 2 also the gradients, stage 3 also the weights.
    """
    psi = positive("params", params)
    n_d = positive_int("gpus", gpus)
    stage = one_of("stage", stage, ZERO_STAGES)
    per = bytes_per_param(optimizer)

    def share(bytes_per: float, sharded_from: int) -> float:
        return finite_result("zero_bytes_per_gpu", psi * bytes_per / (n_d if stage >= sharded_from else 1))

    return _state(
        weights=share(per.weights, 3),
        gradients=share(per.gradients, 2),
        master=share(per.master, 1),
        momentum=share(per.momentum, 1),
        variance=share(per.variance, 1),
    )


def zero_bytes_per_gpu(params: float, gpus: int, stage: int, optimizer: str = "adam") -> float:
    """Total model-state bytes on one GPU under ZeRO (no activations): 7.5B on 64 GPUs, stage 3 → 1.88 GB."""
    return zero_breakdown(params, gpus, stage, optimizer).total


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> float:
    """Activation bytes of one transformer layer on one GPU (Korthikanti et al. 2022, table 2)."""
    s = positive_int("seq_len", seq_len)
    b = positive_int("micro_batch", micro_batch)
    h = positive_int("hidden", hidden)
    a = positive_int("heads", heads)
    t = positive_int("tp", tp)
    sp = flag("sequence_parallel", sequence_parallel)
    recompute = one_of("recompute", recompute, RECOMPUTE)
    sbh = s * b * h
    if recompute == "full":
        return FULL_RECOMPUTE_STORED * sbh / (t if sp else 1)
    linear = (ACTIVATION_UNSPLIT + ACTIVATION_SPLIT) / t if sp else ACTIVATION_UNSPLIT + ACTIVATION_SPLIT / t
    attention = 0 if recompute == "selective" else ACTIVATION_ATTENTION * a * s / (h * t)
    return sbh * (linear + attention)


def activation_bytes(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    layers: int,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
) -> float:
    """Activation bytes on one GPU for `layers` layers: L × the per-layer figure.

    Leaves out the embedding, the final norm and output layer, and the
    pipeline-schedule factor (§4.2.3), as the paper's per-layer table does.
    """
    per_layer = activation_bytes_per_layer(seq_len, micro_batch, hidden, heads, tp, sequence_parallel, recompute)
    return finite_result("activation_bytes", positive_int("layers", layers) * per_layer)
