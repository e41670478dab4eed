"""Training memory on one GPU: model state under ZeRO, and activations.

Model state (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models", §3.1): mixed-precision Adam keeps, per
parameter Ψ, 2 bytes of FP16/BF16 weights, 2 of gradients and K = 12 of
optimizer state (4 FP32 master weights + 4 momentum + 4 variance), 16Ψ in all.
That is the paper's count, and the default here. Megatron-LM and DeepSpeed
keep the gradients in FP32 for accumulation and the update (Megatron's
main_grad buffer; DeepSpeed's ZeRO estimator counts "18 = 2 grads16 + 4
grads32 + 4 params32 + 8 optimizer32"): 2 + 4 + 4 + 4 + 4 = 18Ψ, the
optimizer key "adam_fp32_grads" (its 4 gradient bytes stand for DeepSpeed's
2 + 2 extra, or Megatron's one FP32 buffer).
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

Those coefficients assume GPT-3's block: a GeLU MLP of width 4h, multi-head
attention and dropout. Tensor by tensor, in bytes per layer with 16-bit
activations (2 bytes an element, 1 for a dropout mask), what autograd keeps
for the backward pass of a block with G key/value heads (h_kv = G·h/a), an
MLP of width F, and dropout or not:

    attention
      norm input (the residual stream)           2sbh     unsplit
      Q, K, V projections' input (norm output)   2sbh     unsplit
      Q (after rotary, if any), for Q·Kᵀ         2sbh     split
      K, for Q·Kᵀ                                2sb·h_kv split
      softmax output, for its own backward       2as²b    split
      dropout mask on the softmax                as²b     split, with dropout
      dropout output, for ·V                     2as²b    split, with dropout
                                                 (without dropout ·V keeps the softmax output above)
      V, for ·V                                  2sb·h_kv split
      output projection's input                  2sbh     split
      dropout mask after the projection          sbh      unsplit, with dropout
    MLP
      norm input                                 2sbh     unsplit
      first matrices' input (norm output)        2sbh     unsplit
      GeLU:   GeLU input 2sbF, second matrix's input 2sbF          4sbF  split
      SwiGLU: gate output (SiLU's input) 2sbF, SiLU output 2sbF,
              up output 2sbF (the product's two operands),
              down matrix's input 2sbF                              8sbF  split
      dropout mask after the MLP                 sbh      unsplit, with dropout

so, per s·b·h, unsplit = 8 (+ 2 with dropout), split = 4 + 4·G/a + 4F/h
(GeLU) or 8F/h (SwiGLU), and the attention term (5 with dropout, 2 without)
× a·s/h. GPT-3's block (G = a, F = 4h, GeLU, dropout) gives Korthikanti's
10, 24 and 5 exactly. RMSNorm's per-token FP32 statistic (4sb) is left out.

The output layer (activation_output_bytes) keeps the final norm's input and
the head's input, 4sbh, and the FP32 logits the cross-entropy needs for its
backward, 4sbV (Megatron-LM and Hugging Face both compute the loss in FP32);
tensor parallelism splits V, sequence parallelism the sbh part. With V/h of
30-65 (Llama 3 8B: 128,256/4,096 ≈ 31) the 4sbV term alone outweighs several
layers.

The bill of one GPU adds the two: tensor parallelism over t GPUs splits every
weight matrix (Shoeybi et al. 2019, "Megatron-LM", §3), so each GPU keeps the
model state of Ψ/t parameters (the few norm vectors Megatron replicates are
counted as split), sharded by ZeRO over the N_d data-parallel GPUs:

    bytes per GPU = zero_breakdown(Ψ/t, N_d, stage) + activations

The fewest N_d that fit a budget M solve  R + S/N_d + A ≤ M, where S is the
part the stage shards, R the part it replicates and A the activations:
N_d = ⌈S / (M − R − A)⌉, and no N_d fits when M ≤ R + A.
"""

import math
from dataclasses import dataclass

from .errors import EstimatorError
from .provenance import quantity
# The step model's view of a model and its attention kernels (FlashAttention with Megatron-Core's fused kernels, or
# unfused): what the one activation model reads.
from .step_time import ATTENTION_KERNELS, Shape, shape_of
from .validate import finite_result, flag, non_negative, one_of, positive, positive_int

WEIGHT_BYTES = 2  # FP16/BF16 working copy of each parameter
GRADIENT_BYTES = 2  # FP16/BF16 gradient
FP32_GRADIENT_BYTES = 4  # an FP32 gradient, as Megatron-LM and DeepSpeed accumulate it
# Optimizer state per parameter: (FP32 master weight, momentum, variance), bytes.
OPTIMIZER_STATE_BYTES = {
    "adam": (4, 4, 4),
    "adam_fp32_grads": (4, 4, 4),
    "adam_bf16": (0, 4, 4),  # BF16 weights updated in place: no FP32 master copy
    "adam8bit": (4, 1, 1),
    "sgd_momentum": (4, 4, 0),
    "sgd": (4, 0, 0),
}
# Gradient bytes per parameter where an optimizer setting departs from GRADIENT_BYTES.
OPTIMIZER_GRADIENT_BYTES = {"adam_fp32_grads": FP32_GRADIENT_BYTES}
# Reader-facing label of each optimizer setting, in the order a form lists them (the first is the default).
OPTIMIZERS = {
    "adam": "Adam, BF16 gradients (the ZeRO paper's count)",
    "adam_fp32_grads": "Adam, FP32 gradients (as Megatron-LM and DeepSpeed keep them)",
    "adam_bf16": "Adam on BF16 weights, no FP32 master copy (the QLoRA paper's full fine-tune)",
    "adam8bit": "8-bit Adam",
    "sgd_momentum": "SGD with momentum",
    "sgd": "SGD",
}
ZERO_STAGES = (0, 1, 2, 3)
# The first ZeRO stage that partitions each part of the model state (§5): P_os, P_g, P_p.
SHARDED_FROM_STAGE = {"weights": 3, "gradients": 2, "master": 1, "momentum": 1, "variance": 1}
RECOMPUTE = ("none", "selective", "full")
# What a reader sees for each ZeRO stage and recomputation mode, in forms and tables.
ZERO_STAGE_LABELS = {0: "0 · nothing sharded", 1: "1 · optimizer state", 2: "2 · + gradients", 3: "3 · + weights"}
RECOMPUTE_LABELS = {"none": "none", "selective": "selective (attention)", "full": "full (whole layers)"}

# Korthikanti et al. 2022 §4.1, bytes per s·b·h of one layer: 10 are never split by
# tensor parallelism (layer norms, dropout masks, attention and MLP inputs), 24 are.
ACTIVATION_UNSPLIT = 10
ACTIVATION_SPLIT = 24
# The attention term, × a·s/h: the softmax output, the dropout mask on it and the dropout output (the
# input of ·V); the Q·Kᵀ scores are not kept, the softmax's backward reads its output.
SOFTMAX_OUTPUT_BYTES = 2
DROPOUT_MASK_BYTES = 1
DROPOUT_OUTPUT_BYTES = 2
ACTIVATION_ATTENTION = SOFTMAX_OUTPUT_BYTES + DROPOUT_MASK_BYTES + DROPOUT_OUTPUT_BYTES  # Korthikanti's 5
FULL_RECOMPUTE_STORED = 2  # the 16-bit input of each layer
# A bill within this share of the budget counts as fitting: sums of sharded parts
# land a rounding error away from a budget they meet exactly (7.5B on 45 GPUs, 32 GB).
FIT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class ActivationCoefficients:
    """Korthikanti et al. 2022's coefficients, bytes per s·b·h of one layer."""

    unsplit: int = quantity("never split by tensor parallelism (the 10 of 10 + 24/t)")
    split: int = quantity("split by tensor parallelism (the 24 of 10 + 24/t)")
    attention: int = quantity("× a·s/h: the softmax output, its dropout mask and the dropout output")
    full_recompute: int = quantity("what full recomputation keeps: each layer's 16-bit input")


def activation_coefficients() -> ActivationCoefficients:
    """The coefficients of the activation bytes of one layer: 10, 24, 5 and 2 bytes per s·b·h."""
    return ActivationCoefficients(ACTIVATION_UNSPLIT, ACTIVATION_SPLIT, ACTIVATION_ATTENTION, FULL_RECOMPUTE_STORED)


@dataclass(frozen=True)
class ModelState:
    """Model-state bytes (per parameter, or per GPU), stacked in the order a chart draws them."""

    weights: float = quantity("FP16/BF16 weights")
    gradients: float = quantity("FP16/BF16 gradients")
    master: float = quantity("FP32 master weights")
    momentum: float = quantity("first moment")
    variance: float = quantity("second moment")
    total: float = quantity("all of the above")


def _state(weights: float, gradients: float, master: float, momentum: float, variance: float) -> ModelState:
    return ModelState(weights, gradients, master, momentum, variance=variance,
                      total=weights + gradients + master + momentum + variance)


def bytes_per_param(optimizer: str = "adam", weight_bytes: float = WEIGHT_BYTES) -> ModelState:
    """Bytes per parameter of training state.

    adam 2+2+4+4+4 = 16 (ZeRO §3.1), adam_fp32_grads 2+4+4+4+4 = 18 (Megatron-LM,
    DeepSpeed), adam_bf16 2+2+0+4+4 = 12, adam8bit 10, sgd_momentum 12, sgd 8; the
    first term is the working weights' bytes, 2 in BF16 (`weight_bytes`, 1 in FP8).
    """
    master, momentum, variance = OPTIMIZER_STATE_BYTES[one_of("optimizer", optimizer, tuple(OPTIMIZER_STATE_BYTES))]
    return _state(positive("weight_bytes", weight_bytes), OPTIMIZER_GRADIENT_BYTES.get(optimizer, GRADIENT_BYTES),
                  master, momentum, variance=variance)


def model_state_bytes(params: float, optimizer: str = "adam") -> float:
    """Training-state bytes of Ψ parameters: 16Ψ for mixed-precision Adam."""
    return finite_result("model_state_bytes", positive("params", params) * bytes_per_param(optimizer).total)


def zero_breakdown(params: float, gpus: int, stage: int, optimizer: str = "adam",
                   weight_bytes: float = WEIGHT_BYTES) -> ModelState:
    """Model-state bytes on one GPU under ZeRO stage 0–3 over the data-parallel GPUs.

    Stage 1 divides the optimizer state (master, momentum, variance) by N_d,
    stage 2 also the gradients, stage 3 also the weights.
    """
    psi = positive("params", params)
    n_d = positive_int("gpus", gpus)
    stage = one_of("stage", stage, ZERO_STAGES)
    per = bytes_per_param(optimizer, weight_bytes)

    def share(bytes_per: float, sharded_from: int) -> float:
        return finite_result("zero_bytes_per_gpu", psi * bytes_per / (n_d if stage >= sharded_from else 1))

    return _state(**{part: share(getattr(per, part), first) for part, first in SHARDED_FROM_STAGE.items()})


def zero_bytes_per_gpu(params: float, gpus: int, stage: int, optimizer: str = "adam") -> float:
    """Model-state bytes on one GPU under ZeRO stage 0–3 over the data-parallel GPUs: the sharded state's total, no activations.

    For example 7.5B parameters on 64 GPUs at stage 3 come to 1.88 GB.
    """
    return zero_breakdown(params, gpus, stage, optimizer).total


MLP_KINDS = ("gelu", "swiglu")
# Per s·b·h of one layer, tensor by tensor (see the module docstring).
NORM_INPUTS = 4  # the two norms' inputs, 2sbh each
PROJECTION_INPUTS = 4  # the Q/K/V matrices' input and the MLP's first matrices' input, 2sbh each
DROPOUT_MASKS = 2  # after attention and after the MLP, 1 byte an element each
Q_AND_OUTPUT = 4  # Q, and the output projection's input, 2sbh each
KV_PER_SHARE = 4  # K and V, 2sb·h_kv each: 4 × G/a per s·b·h
MLP_WIDTH_TENSORS = {"gelu": 4, "swiglu": 8}  # bytes per s·b·F: 2 × (2, GeLU) or 4 × (2, SwiGLU) tensors of width F
ATTENTION_NO_DROPOUT = SOFTMAX_OUTPUT_BYTES  # × a·s/h: the softmax output alone
OUTPUT_SBH = 4  # the final norm's input and the output layer's input, 2sbh each
LOSS_LOGIT_BYTES = 4  # FP32 logits kept by the cross-entropy, per s·b·V


# Bytes a token keeps per element of its block's tensors (BF16) that differ with the kernels that run the block.
FUSED_SWIGLU_BYTES_PER_F = 6  # Megatron-Core's fused SwiGLU: gate and up outputs (2 × 2), the down matrix's input (2)
FLASH_STATS_BYTES_PER_HEAD = 4  # FlashAttention's FP32 log-sum-exp, one per head and token (Dao 2022)


def block_activation_bytes(shape, tokens: float, seq_len: int, *, tp: int = 1, sequence_parallel: bool = False,
                           attention: str = "flash", recompute: str = "none", moe: bool = False) -> float:
    """Bytes one block keeps for its backward pass on one GPU: the one activation model of the memory bill, the planner
    and the step model, for the micro-batch's tokens on this GPU (b·s/cp), each attending over s keys.

    Per token, BF16 (2 bytes an element): the two norms' inputs and the two projections' inputs, 4 × 2d, and with
    dropout its two 1-byte masks, 2d, split by t under sequence parallelism; Q, K, V and the attention output,
    2·(H·d_qk + G·(d_qk + d_v) + H·d_v)/t, and an MLA block's two bottleneck outputs 2·(r_q + r_kv)/t; the MLP's
    tensors of width F over t: GeLU's input and the down matrix's input (4 bytes per F), SwiGLU's gate, up and down
    inputs (6, fused) and, unfused, the SiLU output too (8); an MoE block's for each of its k routed and S shared
    experts, with the expert's 2d input. The attention kernel: FlashAttention keeps only its FP32 log-sum-exp (4 bytes
    per head), so selective recomputation has nothing to drop (Dao 2022); unfused attention keeps the softmax output
    (2 bytes per score), and with dropout its mask (1) and output (2), H·tokens·seq_len scores over t, which selective
    recomputation drops. Full recomputation keeps the block's input alone, 2d (/t under sequence parallelism).
    With G = H, F = 4d, GeLU, dropout and unfused attention this is Korthikanti et al. 2022's table 2,
    s·b·h·(10 + 24/t + 5·a·s/(h·t)), exactly."""
    s = shape
    tokens = positive("tokens", tokens)
    keys = positive_int("seq_len", seq_len)
    t = positive_int("tp", tp)
    sp = t if flag("sequence_parallel", sequence_parallel) else 1
    attention = one_of("attention", attention, ATTENTION_KERNELS)
    recompute = one_of("recompute", recompute, RECOMPUTE)
    if recompute == "full":
        return finite_result("block_activation_bytes", tokens * FULL_RECOMPUTE_STORED * s.d / sp)
    flash = attention == "flash"
    kv_heads = s.heads if s.kv_rank else s.kv_heads
    per_token = 2 * (s.heads * s.qk_head + kv_heads * (s.qk_head + s.v_head) + s.heads * s.v_head) / t
    per_token += 2 * (s.q_rank + s.kv_rank) / t
    per_f = (FUSED_SWIGLU_BYTES_PER_F if flash else MLP_WIDTH_TENSORS["swiglu"]) if s.gated else MLP_WIDTH_TENSORS["gelu"]
    if moe:
        per_token += (s.top_k + s.shared_experts) * (2 * s.d + per_f * s.expert_ffn) / t
    else:
        per_token += per_f * s.ffn / t
    per_token += (NORM_INPUTS + PROJECTION_INPUTS + (DROPOUT_MASKS if s.dropout else 0)) * s.d / sp
    if flash:
        per_token += FLASH_STATS_BYTES_PER_HEAD * s.heads / t
    elif recompute == "none":
        per_score = ACTIVATION_ATTENTION if s.dropout else ATTENTION_NO_DROPOUT
        per_token += per_score * s.heads * keys / t
    return finite_result("block_activation_bytes", tokens * per_token)


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    *,
    kv_heads: "int | None" = None,
    ffn_dim: "int | None" = None,
    mlp: str = "gelu",
    dropout: bool = True,
    attention: str = "unfused",
) -> float:
    """Activation bytes of one transformer layer on one GPU (Korthikanti et al. 2022, table 2): the one block
    activation model, for a block described by its width, heads, key/value heads, MLP kind and width and dropout.

    The defaults are the paper's block (multi-head attention, GeLU MLP of 4h, dropout, unfused attention).
    """
    h = positive_int("hidden", hidden)
    a = positive_int("heads", heads)
    g = a if kv_heads is None else positive_int("kv_heads", kv_heads)
    if a % g:
        raise EstimatorError("kv_heads", kv_heads, f"a divisor of heads ({a})")
    f = 4 * h if ffn_dim is None else positive_int("ffn_dim", ffn_dim)  # GPT's MLP is four times the width
    block = Shape(layers=1, d=h, heads=a, kv_heads=g, qk_head=h / a, v_head=h / a, ffn=f,
                  gated=one_of("mlp", mlp, MLP_KINDS) == "swiglu", vocab=1, params=0.0,
                  dropout=flag("dropout", dropout))
    s = positive_int("seq_len", seq_len)
    return block_activation_bytes(block, s * positive_int("micro_batch", micro_batch), s, tp=tp,
                                  sequence_parallel=sequence_parallel, attention=attention, recompute=recompute)


def activation_output_bytes(
    seq_len: int, micro_batch: int, hidden: int, vocab: int, tp: int = 1, sequence_parallel: bool = False
) -> float:
    """Bytes the output layer and loss keep: 4sbh (final norm and head inputs) + 4sbV (FP32 logits).

    Tensor parallelism splits the vocabulary (Megatron-LM's vocab-parallel
    cross-entropy); sequence parallelism also splits the sbh part.
    """
    s = positive_int("seq_len", seq_len)
    b = positive_int("micro_batch", micro_batch)
    h = positive_int("hidden", hidden)
    v = positive_int("vocab", vocab)
    t = positive_int("tp", tp)
    sp = flag("sequence_parallel", sequence_parallel)
    return finite_result("activation_output_bytes", OUTPUT_SBH * s * b * h / (t if sp else 1) + LOSS_LOGIT_BYTES * s * b * v / t)


def model_activation_bytes(
    config,
    seq_len: int,
    micro_batch: int,
    tp: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    include_output: bool = True,
    attention: str = "unfused",
) -> float:
    """Activation bytes of a real decoder (dense or mixture-of-experts), from its configuration, on one GPU.

    L blocks of its own, counted by the one block activation model (its MLP kind and width, key/value heads and
    dropout, under the attention kernel asked for), plus, if asked, the output layer's logits and loss term.
    """
    shape = shape_of(config)
    s = positive_int("seq_len", seq_len)
    tokens = s * positive_int("micro_batch", micro_batch)
    kinds = ((shape.layers - shape.moe_layers, False), (shape.moe_layers, True))
    total = sum(count * block_activation_bytes(shape, tokens, s, tp=tp, sequence_parallel=sequence_parallel,
                                               attention=attention, recompute=recompute, moe=moe)
                for count, moe in kinds if count)
    if flag("include_output", include_output):
        total += activation_output_bytes(seq_len, micro_batch, shape.d, shape.vocab, tp=tp,
                                         sequence_parallel=sequence_parallel)
    return finite_result("model_activation_bytes", total)


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
    per_layer = activation_bytes_per_layer(seq_len, micro_batch, hidden, heads, tp=tp,
                                           sequence_parallel=sequence_parallel, recompute=recompute)
    return finite_result("activation_bytes", positive_int("layers", layers) * per_layer)


@dataclass(frozen=True)
class GpuMemory:
    """Bytes on one GPU during a training step, stacked in the order a chart draws them."""

    weights: float = quantity("FP16/BF16 weights", "bytes")
    gradients: float = quantity("FP16/BF16 gradients", "bytes")
    master: float = quantity("FP32 master weights", "bytes")
    momentum: float = quantity("first moment", "bytes")
    variance: float = quantity("second moment", "bytes")
    activations: float = quantity("tensors kept for the backward pass", "bytes")
    total: float = quantity("all of the above", "bytes")


def training_memory_per_gpu(
    params: float,
    gpus: int,
    stage: int,
    optimizer: str = "adam",
    activations: float = 0.0,
    tp: int = 1,
    weight_bytes: float = WEIGHT_BYTES,
) -> GpuMemory:
    """The memory bill of one GPU: model state of Ψ/t parameters under ZeRO over the data-parallel GPUs, plus activations.

    `activations` is the per-GPU figure of activation_bytes (which already
    divides by t where tensor parallelism splits them); ZeRO does not shard it.
    """
    state = zero_breakdown(positive("params", params) / positive_int("tp", tp), gpus, stage, optimizer, weight_bytes)
    act = non_negative("activations", activations)
    return GpuMemory(
        state.weights,
        state.gradients,
        state.master,
        state.momentum,
        variance=state.variance,
        activations=act,
        total=finite_result("training_memory_per_gpu", state.total + act),
    )


def min_data_parallel_gpus(
    params: float,
    stage: int,
    budget_bytes: float,
    optimizer: str = "adam",
    activations: float = 0.0,
    tp: int = 1,
    weight_bytes: float = WEIGHT_BYTES,
) -> int | None:
    """Fewest data-parallel GPUs whose per-GPU bill fits in a GPU's memory, or none if none does.

    N_d = ⌈S / (M − R − A)⌉ (see the module's docstring); at stage 0 nothing
    is sharded, so the answer is 1 or None. ZeRO paper's 7.5B on 32 GB GPUs:
    stage 1 needs 45, stage 2 7, stage 3 4.
    """
    budget = positive("budget_bytes", budget_bytes)
    stage = one_of("stage", stage, ZERO_STAGES)
    one = training_memory_per_gpu(params, 1, stage, optimizer, activations=activations, tp=tp, weight_bytes=weight_bytes)
    sharded = sum(getattr(one, part) for part, first in SHARDED_FROM_STAGE.items() if stage >= first)
    room = budget - (one.total - sharded)
    if sharded == 0 or room <= 0:
        return 1 if memory_fit(one.total, budget).fits else None
    n = max(1, math.ceil(sharded / room))
    # The division can land a hair either side of a whole number: settle on the composed figure.
    def fits(gpus: int) -> bool:
        return memory_fit(training_memory_per_gpu(params, gpus, stage, optimizer, activations=activations,
                                                  tp=tp, weight_bytes=weight_bytes).total, budget).fits

    while not fits(n):
        n += 1
    while n > 1 and fits(n - 1):
        n -= 1
    return n


@dataclass(frozen=True)
class MemoryFit:
    """How a memory bill compares with the memory of the GPU that has to hold it."""

    used: float = quantity("bytes the bill asks for", "bytes")
    budget: float = quantity("bytes the GPU has", "bytes")
    ratio: float = quantity("used / budget", "times")
    spare: float = quantity("budget − used; negative when the bill does not fit", "bytes")
    fits: bool  # used ≤ budget, to within FIT_TOLERANCE


def memory_fit(used_bytes: float, budget_bytes: float) -> MemoryFit:
    """used / budget, and budget − used left over (negative when it does not fit).

    For example 146.8 GB on an 80 GB GPU is 1.8× its memory, 66.8 GB over.
    """
    used = non_negative("used_bytes", used_bytes)
    budget = positive("budget_bytes", budget_bytes)
    return MemoryFit(used, budget, used / budget, budget - used, fits=used <= budget * (1 + FIT_TOLERANCE))
