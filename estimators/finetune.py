"""Fine-tuning: LoRA trainable parameters and the memory of full, LoRA and QLoRA.

LoRA (Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models",
§4.1) freezes a weight W₀ ∈ ℝ^{d×k} and trains its update as a product of two
thin matrices, ΔW = B·A with B ∈ ℝ^{d×r} and A ∈ ℝ^{r×k}, r ≪ min(d, k), so
that h = W₀x + B·A·x. Here k is the layer's input width (d_in) and d its
output width (d_out); each adapted matrix costs r·(d + k) = r·(d_in + d_out)
parameters, 2·d·r for a square d × d projection.

Model-state memory (activations come on top):
- full fine-tune: the whole training state, 16 B/param with mixed-precision Adam;
- LoRA: the frozen base in BF16 (2 B/param) plus the adapters' training state;
- QLoRA (Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized
  LLMs", §3): the frozen base in 4-bit NormalFloat (NF4), one FP32 absmax
  constant per block of 64 weights (32/64 = 0.5 bit per weight), or with
  double quantization 8-bit constants plus one FP32 per 256 of them
  (8/64 + 32/(64·256) ≈ 0.127 bit), plus the adapters' training state.
"""

from dataclasses import dataclass

from . import units
from .errors import EstimatorError
from .memory import WEIGHT_BYTES, MemoryFit, bytes_per_param, memory_fit, model_activation_bytes
from .model_size import DecoderConfig, decoder_params, head_dim
from .provenance import quantity
from .validate import finite_result, one_of, positive, positive_int

BITS_PER_BYTE = 8
NF4_BITS = 4  # one 4-bit NormalFloat code per weight
NF4_BLOCK = 64  # weights per quantization block (QLoRA §3)
FP32_BITS = 32
FP8_BITS = 8
DOUBLE_QUANT_BLOCK = 256  # first-level constants per second-level block (QLoRA §3)


@dataclass(frozen=True)
class QuantizationLayout:
    """How a 4-bit storage spends its bits: codes, block constants, constants of those constants."""

    code_bits: int = quantity("bits of each weight's code")
    block: int = quantity("weights sharing one block constant; 0 when there are none", "integer")
    constant_bits: int = quantity("bits of one block constant")
    second_block: int = quantity("block constants sharing one second-level constant; 0 when there are none", "integer")
    second_constant_bits: int = quantity("bits of one second-level constant")
    bits_per_weight: float = quantity("bits of a code + bits of a block constant ÷ block size + bits of a second-level constant ÷ (block size × blocks sharing it)")


def _layout(code_bits: int, block: int = 0, constant_bits: int = 0, second_block: int = 0, second_bits: int = 0):
    bits = code_bits + (constant_bits / block if block else 0) + (second_bits / (block * second_block) if second_block else 0)
    return QuantizationLayout(code_bits, block, constant_bits, second_block, second_constant_bits=second_bits,
                              bits_per_weight=bits)


QUANTIZATION_LAYOUTS = {
    # NF4 codes with no block constants: the simplification of one seed article's table.
    "nf4-codes-only": _layout(NF4_BITS),
    "nf4": _layout(NF4_BITS, NF4_BLOCK, FP32_BITS),
    "nf4-double-quant": _layout(NF4_BITS, NF4_BLOCK, FP8_BITS, DOUBLE_QUANT_BLOCK, second_bits=FP32_BITS),
}
# Each storage in words, for a reader choosing one.
QUANTIZATION_LABELS = {
    "nf4-codes-only": "NF4 codes only",
    "nf4": "NF4 + block constants",
    "nf4-double-quant": "NF4, double-quantized",
}
# Bits per frozen base weight under each 4-bit storage.
QUANTIZATION_BITS = {name: layout.bits_per_weight for name, layout in QUANTIZATION_LAYOUTS.items()}
METHODS = ("full", "lora", "qlora")
# Adapters as QLoRA trains them (Dettmers et al. 2023, §3, eq. 5 and 6, and §2 "Paged
# Optimizers"): BF16 weights L₁, L₂ and their BF16 gradients, with 32-bit Adam's two moments;
# no FP32 master copy, since the adapters themselves are the trained weights.
ADAPTER_WEIGHT_BYTES = 2  # BF16 adapter weight
ADAPTER_GRADIENT_BYTES = 2  # BF16 gradient of it
ADAPTER_OPTIMIZER_BYTES = 8  # 32-bit Adam: 4 momentum + 4 variance (paged to CPU memory under pressure)
# What stays in BF16 when the base is quantized: bitsandbytes quantizes the blocks' linear
# layers only; the token embedding, the output layer and the norm vectors keep 16 bits.
UNQUANTIZED_BYTES = 2
# Linear layers of a Llama-style block that LoRA can adapt, and what each one is.
LLAMA_MODULES = ("q", "k", "v", "o", "gate", "up", "down")
LLAMA_MODULE_LABELS = {
    "q": "q (queries)",
    "k": "k (keys)",
    "v": "v (values)",
    "o": "o (attention output)",
    "gate": "gate (MLP)",
    "up": "up (MLP)",
    "down": "down (MLP)",
}


def quantization_layout(quantization: str = "nf4-double-quant") -> QuantizationLayout:
    """The bits of one frozen weight under `quantization`: 4, 4.5 (NF4) or about 4.127 (double quantization)."""
    return QUANTIZATION_LAYOUTS[one_of("quantization", quantization, tuple(QUANTIZATION_LAYOUTS))]


def share_of_full_score(adapter_score: float, full_score: float) -> float:
    """Share = adapter score / full fine-tune score: an adapter fine-tune's benchmark score as a share of a full fine-tune's on the same task."""
    return finite_result("share_of_full_score", positive("adapter_score", adapter_score) / positive("full_score", full_score))


def lora_matrix_params(d_in: int, d_out: int, rank: int) -> int:
    """r·(d + k): B is d × r and A is r × k, so B·A has W₀'s shape d × k (LoRA §4.1): d the layer's output width, k its input width."""
    return positive_int("rank", rank) * (positive_int("d_in", d_in) + positive_int("d_out", d_out))


def lora_trainable_params(d_model: int, rank: int, modules: int, layers: int) -> int:
    """LoRA on `modules` square d × d matrices in each of `layers` layers: 2·d·r × modules × layers.

    d = 4096, r = 16, 4 modules, 32 layers: 131,072 per module, 16,777,216 in all.
    """
    d = positive_int("d_model", d_model)
    return lora_matrix_params(d, d, rank) * positive_int("modules", modules) * positive_int("layers", layers)


def lora_module_shapes(config: DecoderConfig) -> dict:
    """{module: (input width, output width)} of each linear layer of a dense decoder's block.

    q is d → H·h, o H·h → d, k and v d → G·h (G key/value heads: grouped-query
    attention makes them narrower than q), gate and up d → F, down F → d.
    """
    c = config
    h = head_dim(c.d_model, c.heads)
    return {
        "q": (c.d_model, c.heads * h),
        "k": (c.d_model, c.kv_heads * h),
        "v": (c.d_model, c.kv_heads * h),
        "o": (c.heads * h, c.d_model),
        "gate": (c.d_model, c.ffn_dim),
        "up": (c.d_model, c.ffn_dim),
        "down": (c.ffn_dim, c.d_model),
    }


_FUSED = ("q", "k", "v")
# The one matrix a fused q, k and v projection is adapted as, and how a form names each adapted matrix.
FUSED_QKV = "q+k+v"
MATRIX_LABELS = {**LLAMA_MODULE_LABELS, FUSED_QKV: "Fused q, k and v (GPT-2's c_attn)"}


def lora_adapted_matrices(config: DecoderConfig, modules: tuple = LLAMA_MODULES) -> dict:
    """{matrix: (input width, output width)} of the weight matrices LoRA adapts in each block when
    `modules` are asked for: each module's own, except on a model that stores q, k and v as one
    fused matrix (GPT-2's c_attn, d → (H + 2G)·h), where one adapter covers the three, as PEFT
    fits it; there q, k and v are adapted together or not at all."""
    shapes = lora_module_shapes(config)
    picked = tuple(dict.fromkeys(one_of("modules", m, LLAMA_MODULES) for m in modules))
    if not picked:
        raise EstimatorError("modules", modules, "at least one of " + ", ".join(LLAMA_MODULES))
    fused = [m for m in picked if m in _FUSED] if config.fused_qkv else []
    if fused and len(fused) != len(_FUSED):
        raise EstimatorError("modules", list(modules), "q, k and v together or none: this model stores them as one matrix")
    matrices = {m: shapes[m] for m in picked if m not in fused}
    if fused:
        matrices = {FUSED_QKV: (config.d_model, sum(shapes[m][1] for m in _FUSED)), **matrices}
    return matrices


def lora_decoder_params(config: DecoderConfig, rank: int, modules: tuple = LLAMA_MODULES) -> int:
    """LoRA on the named linear layers of every block of a dense decoder, with their true shapes
    layers × Σ r·(d + k).

    QLoRA adapts all seven (its §4 "all linear layers"). A rank above the
    narrowest adapted width is refused: B·A could then be any matrix, and a
    full fine-tune of that layer would be cheaper.
    """
    picked = lora_adapted_matrices(config, modules).values()
    narrowest = min(min(shape) for shape in picked)
    if positive_int("rank", rank) > narrowest:
        raise EstimatorError("rank", rank, f"at most {units.integer(narrowest)}, the narrowest adapted width")
    return config.layers * sum(lora_matrix_params(d_in, d_out, rank) for d_in, d_out in picked)


@dataclass(frozen=True)
class FinetuneBreakdown:
    """Model-state bytes of a fine-tune, component by component (activations not included)."""

    method: str  # "full", "lora" or "qlora"
    trainable_params: float = quantity("parameters the optimizer updates", "count")
    trainable_share: float = quantity("trainable / base parameters", "percent")
    base_quantized_bytes: float = quantity("the blocks' linear weights in 4-bit storage (qlora only)", "bytes")
    base_16bit_bytes: float = quantity("base weights kept in BF16: all of them (lora), embedding, head and norms (qlora)", "bytes")
    trainable_weights_bytes: float = quantity("BF16 weights of what is trained", "bytes")
    gradients_bytes: float = quantity("its gradients", "bytes")
    optimizer_bytes: float = quantity("Adam's moments, plus the FP32 master copy of a full fine-tune", "bytes")
    total: float = quantity("all of the above", "bytes")


def finetune_breakdown(
    method: str,
    config: DecoderConfig,
    rank: int = 64,
    modules: tuple = LLAMA_MODULES,
    quantization: str = "nf4-double-quant",
    optimizer: str = "adam",
) -> FinetuneBreakdown:
    """Model-state bytes of fine-tuning a dense decoder, built as the papers build it.

    full: every parameter carries the whole training state, bytes_per_param(optimizer)
      (16 B with the ZeRO paper's Adam, 18 B with FP32 gradients);
    lora (Hu et al. 2021): the frozen base in BF16, 2·N, plus adapters of
      lora_decoder_params(config, rank, modules) parameters at
      2 + 2 + 8 = 12 B each (BF16 weight and gradient, two FP32 Adam moments);
    qlora (Dettmers et al. 2023, §3 eq. 5): the blocks' linear weights N_lin in
      4-bit storage, N_lin·bits/8; the token embedding, output layer and norms,
      N − N_lin, stay BF16 (2 B), as bitsandbytes leaves every layer that is not
      a block's linear layer; the same 12 B adapters.

    QLoRA 65B (LLaMA 65B, r = 64 on all seven linear layers, NF4 with double
    quantization): 33.4 GB of 4-bit blocks + 1.05 GB of BF16 embedding and head
    + 0.8B adapters × 12 B = 9.6 GB, about 44 GB: inside one 48 GB (48 GiB) card.
    """
    method = one_of("method", method, METHODS)
    if not isinstance(config, DecoderConfig):
        raise EstimatorError("config", config, "a dense decoder's configuration (DecoderConfig)")
    p = decoder_params(config)
    n = p.total
    if method == "full":
        per = bytes_per_param(optimizer)
        return FinetuneBreakdown(
            method, n, 1.0, 0.0, base_16bit_bytes=0.0, trainable_weights_bytes=n * per.weights,
            gradients_bytes=n * per.gradients,
            optimizer_bytes=n * (per.master + per.momentum + per.variance),
            total=finite_result("finetune_bytes", n * per.total),
        )
    trainable = lora_decoder_params(config, rank, modules)
    if method == "lora":
        quantized, sixteen_bit = 0.0, n * WEIGHT_BYTES
    else:
        linear = p.attention + p.mlp  # every block's q, k, v, o, gate, up, down (and their biases, if any)
        quantized = linear * quantization_layout(quantization).bits_per_weight / BITS_PER_BYTE
        sixteen_bit = (n - linear) * UNQUANTIZED_BYTES
    weights = trainable * ADAPTER_WEIGHT_BYTES
    gradients = trainable * ADAPTER_GRADIENT_BYTES
    optimizer_state = trainable * ADAPTER_OPTIMIZER_BYTES
    total = quantized + sixteen_bit + weights + gradients + optimizer_state
    return FinetuneBreakdown(
        method, trainable, trainable / n, quantized, base_16bit_bytes=sixteen_bit, trainable_weights_bytes=weights,
        gradients_bytes=gradients, optimizer_bytes=optimizer_state,
        total=finite_result("finetune_bytes", total),
    )


@dataclass(frozen=True)
class FinetuneBill:
    """One method's memory on one GPU: model state by part, activations, and the fit."""

    state: FinetuneBreakdown
    activations: float = quantity("bytes the backward pass keeps, the base model's activations", "bytes")
    total: float = quantity("training state + activations", "bytes")
    fit: MemoryFit  # against the GPU's memory


def finetune_bill(
    method: str,
    config: DecoderConfig,
    rank: int,
    modules: tuple,
    quantization: str,
    seq_len: int,
    micro_batch: int,
    recompute: str,
    budget_bytes: float,
) -> FinetuneBill:
    """The fine-tune's training state plus activations, against one GPU's memory.

    The activations are the base model's own (memory.model_activation_bytes,
    after Korthikanti et al. 2022) for every method: the backward pass has to
    run through the frozen layers to reach the adapters below them, so it keeps
    the same tensors a full fine-tune keeps. The adapters' own inputs and their
    r-wide middles are left out (r ≪ d makes them small).
    """
    state = finetune_breakdown(method, config, rank, modules, quantization=quantization)
    activations = model_activation_bytes(config, seq_len, micro_batch, recompute=recompute)
    total = finite_result("finetune_bytes", state.total + activations)
    return FinetuneBill(state, activations, total, memory_fit(total, budget_bytes))
