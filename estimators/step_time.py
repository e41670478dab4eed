"""One training step's time, term by term, on the slowest GPU of a layout: what a measured run's throughput comes from.

A step of a layout (TP × CP × PP × DP, EP drawn from DP) is the busiest
pipeline stage's time for its micro-batches, stretched by the pipeline's
bubble, plus what no computation hides. Each term is a small function below,
its formula and source in its docstring:

- matrix multiplies timed from their shapes after the cuts (gemm_seconds):
  the best measured rate of the GPU, lowered by wave quantisation of output
  tiles over the GPU's streaming multiprocessors and by a pipeline-fill term
  in the inner dimension, never faster than the bytes over memory bandwidth;
- attention as FlashAttention computes it (flash_attention_seconds), or, for
  runs that predate it, as batched matrix multiplies plus a softmax that reads
  and writes the s × s scores (unfused_attention_seconds);
- memory-bound kernels (norms, activation functions, residual adds, rotary,
  the loss over the vocabulary) as bytes over the GPU's memory bandwidth
  (memory_bound_seconds);
- the optimizer step, which reads and writes the training state once;
- collectives with an α–β model per algorithm (collective_seconds), across servers on as many of a server's
  network cards as the group has GPUs there, NVLink joining them (group_link);
- overlap as frameworks do it (the data-parallel cut, FSDP included; expert
  all-to-alls as DualPipe or Megatron-Core's combined 1F1B pair a forward with
  another micro-batch's backward, dualpipe_exposed_seconds and
  combined_1f1b_exposed_seconds), recomputation (ops_recomputed_share for
  torchtitan's per-operator policy) and pipeline schedules
  (pipeline_bubble_share).

Fitted constants (FITTED) were fitted on the runs the validation table marks
`fit = true`; the tests report the error on the others.
"""

import math
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import NamedTuple

from .errors import EstimatorError
from .model_size import DecoderConfig
from .moe import MoeConfig
from .provenance import quantity
from .validate import finite_result, fraction, non_negative, non_negative_int, one_of, positive, positive_int

BYTES_BF16 = 2  # activations, weights and most gradients in mixed precision
MATMUL_FLOPS_PER_MAC = 2  # a multiply and an add
BACKWARD_GEMMS = 2  # each forward GEMM has a data-gradient and a weight-gradient GEMM of the same FLOPs
# A block's forward runs two of its four tensor-parallel collectives (or all-gather and reduce-scatter pairs), the
# backward the other two (tensor_parallel_seconds): what recomputing the forward sends again.
TP_FORWARD_SHARE = 1 / 2
FLASH_BACKWARD_RATIO = 2.5  # FlashAttention-2's backward runs 5 of the forward's 2 matmuls again (Dao 2023, §3.2)
CAUSAL_SHARE = 1 / 2  # a causal mask leaves half the s × s scores to compute
# Output tiles a GEMM library picks among (cuBLAS and CUTLASS kernels on Ampere and Hopper), both orientations.
TILES = ((256, 128), (128, 256), (128, 128), (128, 64), (64, 128), (64, 64))
ADAM_BYTES_PER_PARAM = 30  # read FP32 weight, m, v and gradient (16), write weight, m, v (12), write the BF16 copy (2)
BACKWARD_BYTES_RATIO = 2  # a memory-bound kernel's backward reads its input and the gradient and writes a gradient
# Elements a token's forward pass reads and writes in one block's memory-bound kernels (bf16), Megatron-LM's fused kernels:
# two norms (read d, write d), two residual adds fused with dropout (read 2d, write d, mask d/2).
SEQUENCE_KERNEL_ELEMENTS = 2 * 2 + 2 * 3.5
LOSS_PASSES = 4  # cross-entropy reads the logits, writes probabilities, reads them back and writes their gradient
# Bytes per element PyTorch's eager operators move, where Megatron-LM's fused kernels move 2 (read) + 2 (write) in BF16:
# RMSNorm as x·rsqrt(mean(x²) + ε)·w in FP32 (torchtitan's and Hugging Face's): cast up (2 + 4), square (4 + 4), mean
# (read 4), scale (4 + 4), cast down (4 + 2), weight (2 + 2) = 36 B; rotary as a complex product in FP32 (torchtitan's
# apply_rotary_emb): cast up (2 + 4), multiply (4 + 4), cast down (4 + 2) = 20 B.
EAGER_RMSNORM_BYTES = 36
EAGER_ROTARY_BYTES = 20
# SwiGLU eager: silu(x·W₁) reads F writes F, then × x·W₃ reads 2F writes F: 5F elements, where fused reads 2F writes F.
EAGER_SWIGLU_ELEMENTS_PER_F = 5
# Eager attention rearranges q, k, v into FlashAttention's layout and the output back (LLM Foundry's rearrange, torchtitan's
# transposes before scaled_dot_product_attention): each read and written once, 2 × (q, k, v, output) elements.
EAGER_LAYOUT_COPIES = 2
# Eager kernels a block's forward launches beyond the fused ones (eager_kernel_seconds): two RMSNorms of 8 each (ATen's
# composite rms_norm) or of 1 (a fused norm kernel), rotary's 3 on each of q and k, SwiGLU's SiLU and multiply; and the 4
# layout copies of q, k, v, output.
EAGER_RMSNORM_KERNELS = 8
EAGER_LLAMA_KERNELS = 2 * 3 + 2
EAGER_LAYOUT_KERNELS = 4
# Cross-entropy eager over FP32 logits (torchtitan, LLM Foundry: logits.float()): cast up (2 + 4), log-softmax (4 + 4),
# its gradient (4 + 4), cast down (4 + 2) = 28 B per logit, where the fused loss moves LOSS_PASSES × 2 = 8.
EAGER_LOSS_BYTES = 28
# FSDP's copies per parameter and micro-batch, each over memory bandwidth: the all-gathered weights copied out of the flat
# buffer into each parameter, forward and again backward (read 2 + write 2, twice), and the gradients copied into the
# reduce-scatter's flat buffer and cast to FP32 for the reduction (read 2 + write 4): PyTorch FSDP2's foreach_all_gather
# copy-in/copy-out and reduce-scatter copy-in (pytorch/pytorch, torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py).
FSDP_COPY_BYTES_PER_PARAM = 2 * (2 + 2) + (2 + 4)
UNFUSED_SOFTMAX_BYTES_PER_SCORE = 16  # scale-mask-softmax and dropout, forward (7 B) and backward (9 B) per score
SCHEDULES = ("1f1b", "interleaved", "dualpipe")
# The framework that runs the step: Megatron-LM with its fused kernels; PyTorch FSDP (torchtitan, LLM Foundry) eager, each
# elementwise operator its own kernel; or compiled (torch.compile), whose generated kernels fuse a block's elementwise chains.
FRAMEWORKS = ("megatron", "fsdp_eager", "fsdp_compiled")
ATTENTION_KERNELS = ("flash", "unfused")
# none; selective: the attention core (Korthikanti et al. 2022 §5); ops: every second matmul and every elementwise op
# (torchtitan's per-operator policy, ops_recomputed_share); full: the whole forward.
RECOMPUTE_MODES = ("none", "selective", "ops", "full")

# A GEMM costs at least a kernel launch and its tail however little it does: a few µs on CUDA (assumed, not fitted).
KERNEL_FLOOR_SECONDS = 6e-6
# Constants fitted to measured runs: a grid search (FIT_STEPS apart) minimising Σ log²(predicted / measured) over the seven
# Megatron-LM runs step_runs.toml marks fit = true (Narayanan 1.7B, 39.1B, 529.6B; Korthikanti 22B, 175B, 1T selective;
# Llama 3 8K on 16,384 GPUs). Their mean error is 1.4%; on the 16 other Megatron-LM runs 6.1% (validation_summary),
# reasons beside each. Refitted (K_fill 96 → 256, bus 0.60 → 0.61, memory 0.60 → 0.55, tile reuse 32 → 2; Σ log² 0.0072 →
# 0.0018) when full recomputation sent the forward's half of the tensor-parallel traffic again, not a quarter, and the
# model had moved since the first fit. The surface is flat: K_fill and the tile reuse trade against each other (each
# K_fill from 160 to 256 has a best Σ log² within 0.0005 of the least), so neither stands alone as a measured length.
# The tile reuse's grid reaches down to 1, below where the least lies, since its best lay at the first grid's edge (8).
FITTED = {
    # The inner-dimension length at which a GEMM reaches half its large-K rate: the main loop's fill and drain.
    "gemm_fill_k": 256.0,
    # Share of a link's bandwidth a collective's bus reaches (NCCL's busbw over the link's rate).
    "bus_efficiency": 0.61,
    # Share of HBM bandwidth a memory-bound kernel reaches.
    "memory_efficiency": 0.55,
    # Operand reuse at which a tile reaches half its rate: a tile of m × n reuses each loaded value m·n/(m + n) times.
    "tile_reuse_half": 2.0,
    # The share of that compute rate a PyTorch FSDP trainer reaches (framework_compute_share): fitted apart, the constants
    # above held fixed, by the same grid search over three FSDP runs marked fit = true (torchtitan's Llama 3.1 8B on 8
    # H100s, compiled; LLM Foundry's MPT-7B on 8 and MPT-30B on 32 H100s, eager); error on the 10 other FSDP runs reported
    # by validation_summary(fsdp=True, fit=False). Refitted (0.81 → 0.80) when eager's own kernels were timed at the
    # memory's bandwidth with their launches (eager_kernel_seconds), rather than at memory_efficiency; again (0.80 →
    # 0.79) when torchtitan's per-operator checkpointing recomputed its every second matmul (ops_recomputed_share), not
    # half the matmul time, and its gradients were reduced in FP32; again (0.79 → 0.81) when torchtitan's H100 hosts were
    # timed at their 500 W power limit (power_limited_share), which the share had carried over to full-power GPUs; again
    # (0.81 → 0.83) when the constants above were refitted.
    "fsdp_compute_share": 0.83,
}
# The fit's grid: each constant's step. One step either way on any constant raises its runs' Σ log² (tests check it).
FIT_STEPS = {"gemm_fill_k": 16.0, "bus_efficiency": 0.01, "memory_efficiency": 0.01, "tile_reuse_half": 1.0,
             "fsdp_compute_share": 0.01}


@dataclass(frozen=True)
class Gpu:
    """What the step model needs of a GPU and its links."""

    peak_flops: float = quantity("dense peak at the GEMMs' precision", "si", unit="FLOP/s")
    attention_peak_flops: float = quantity("dense BF16 peak, the precision attention runs in", "si", unit="FLOP/s")
    matmul_share: float = quantity("best measured matrix-multiply rate / peak, at the GEMMs' precision", "percent")
    bf16_matmul_share: float = quantity("best measured BF16 matrix-multiply rate / BF16 peak: the output layer's, which "
                                        "FP8 training keeps in BF16", "percent")
    attention_share: float = quantity("FlashAttention's forward and backward rate / BF16 peak", "percent")
    hbm_bytes_per_s: float = quantity("memory bandwidth", "si", unit="B/s")
    sms: int = quantity("streaming multiprocessors", "integer")
    memory_bytes: float = quantity("memory per GPU", "bytes", binary=True)
    scale_up_gpus: int = quantity("GPUs per scale-up domain", "integer")
    scale_up_bytes_per_s: float = quantity("scale-up bandwidth per GPU, one direction", "si", unit="B/s")
    scale_out_bytes_per_s: float = quantity("scale-out bandwidth per GPU, one direction", "si", unit="B/s")
    scale_up_latency_seconds: float = quantity("one message's latency inside a scale-up domain", "duration")
    scale_out_latency_seconds: float = quantity("one message's latency across the network", "duration")

    def __post_init__(self):
        for name in ("peak_flops", "attention_peak_flops", "hbm_bytes_per_s", "memory_bytes", "scale_up_bytes_per_s",
                     "scale_out_bytes_per_s", "scale_up_latency_seconds", "scale_out_latency_seconds"):
            positive(name, getattr(self, name))
        fraction("matmul_share", self.matmul_share)
        fraction("bf16_matmul_share", self.bf16_matmul_share)
        fraction("attention_share", self.attention_share)
        positive_int("sms", self.sms)
        positive_int("scale_up_gpus", self.scale_up_gpus)


@dataclass(frozen=True)
class Shape:
    """A decoder's shape as the step model reads it (dense or mixture-of-experts)."""

    layers: int
    d: int
    heads: int
    kv_heads: int
    qk_head: int  # width of one head's query and key
    v_head: int  # width of one head's value
    ffn: int  # dense blocks' MLP width
    gated: bool  # SwiGLU (three matrices) rather than GeLU (two)
    vocab: int
    params: float  # every parameter stored
    moe_layers: int = 0
    experts: int = 0
    top_k: int = 0
    expert_ffn: int = 0
    shared_experts: int = 0
    q_rank: int = 0  # MLA's query bottleneck (0: none, the queries projected from d directly)
    kv_rank: int = 0  # MLA's key/value bottleneck (0: plain attention)
    rope_head: int = 0  # MLA's rotary part of a query/key head
    expert_params: float = 0.0  # the routed experts' parameters, held over ep GPUs
    dropout: bool = False  # trains with dropout (GPT-2, Megatron's GPT): masks kept for the backward pass


def shape_of(config) -> Shape:
    """The step model's view of a DecoderConfig or MoeConfig."""
    if isinstance(config, DecoderConfig):
        from .model_size import decoder_params
        h = config.d_model // config.heads
        return Shape(layers=config.layers, d=config.d_model, heads=config.heads, kv_heads=config.kv_heads, qk_head=h,
                     v_head=h, ffn=config.ffn_dim, gated=config.mlp == "swiglu", vocab=config.vocab,
                     params=decoder_params(config).total, dropout=config.dropout)
    if isinstance(config, MoeConfig):
        from .model_size import mlp_params
        from .moe import moe_params
        c = config
        moe_layers = c.layers - c.dense_layers
        routed = moe_layers * c.routed_experts * mlp_params(c.d_model, c.expert_ffn_dim)
        if c.mla:
            qk, v, rope = c.mla.qk_nope_head_dim + c.mla.qk_rope_head_dim, c.mla.v_head_dim, c.mla.qk_rope_head_dim
            q_rank, kv_rank = c.mla.q_lora_rank, c.mla.kv_lora_rank
        else:
            qk = v = c.head_dim or c.d_model // c.heads
            q_rank = kv_rank = rope = 0
        return Shape(layers=c.layers, d=c.d_model, heads=c.heads, kv_heads=c.kv_heads, qk_head=qk, v_head=v,
                     ffn=c.dense_ffn_dim, gated=True, vocab=c.vocab, params=moe_params(c).total, moe_layers=moe_layers,
                     experts=c.routed_experts, top_k=c.top_k, expert_ffn=c.expert_ffn_dim,
                     shared_experts=c.shared_experts, q_rank=q_rank, kv_rank=kv_rank, rope_head=rope,
                     expert_params=routed)
    raise EstimatorError("config", config, "a decoder configuration (DecoderConfig or MoeConfig)")


@dataclass(frozen=True)
class Setup:
    """How a run is laid out and what its framework overlaps: the choices a step's time depends on."""

    tp: int = 1
    cp: int = 1
    pp: int = 1
    dp: int = 1
    ep: int = 1
    zero_stage: int = 1  # 0 all-reduce; 1–2 reduce-scatter + all-gather; 3 weights gathered for every micro-batch (FSDP)
    micro_batch: int = 1  # sequences per micro-batch
    chunks: int = 1  # v, model chunks per pipeline stage (interleaved schedule)
    schedule: str = "1f1b"
    recompute: str = "none"
    sequence_parallel: bool = True  # norms and dropouts split over the TP GPUs (Korthikanti et al. 2022)
    attention: str = "flash"
    dp_overlap: bool = True  # gradient reduction bucketed behind the backward pass
    tp_overlap: float = 0.0  # share of tensor-parallel traffic hidden behind GEMMs (async TP, MegaScale)
    ep_overlap: bool = False  # expert all-to-alls hidden behind another micro-batch's compute (DualPipe)
    nodes_per_token: int = 0  # node-limited routing: a token reaches at most this many nodes (0: no limit)
    dispatch_bytes: float = BYTES_BF16  # bytes per value of the expert dispatch (1 in FP8)
    grad_bytes: float = BYTES_BF16  # bytes per gradient value reduced over data-parallel GPUs
    gather_bytes: float = BYTES_BF16  # bytes per weight value gathered over data-parallel GPUs (1: FSDP's float8 gather)
    comm_sms: int = 0  # streaming multiprocessors kept for communication kernels, lost to compute
    framework: str = "megatron"  # one of FRAMEWORKS: which elementwise kernels run fused, and FSDP's own copies
    fused_norm: bool = False  # an eager framework's norms run as one fused kernel each (torchtitan's fused_rmsnorm)
    unfused_activation: bool = False  # the MLP's activation runs as two PyTorch operators (squared ReLU, unfused)

    def __post_init__(self):
        degrees = (self.tp, self.cp, self.pp, self.dp, self.ep, self.micro_batch, self.chunks)
        if type(self.tp) is type(self.cp) is type(self.pp) is type(self.dp) is type(self.ep) is \
                type(self.micro_batch) is type(self.chunks) is int and min(degrees) >= 1 and self.schedule in SCHEDULES and \
                self.recompute in RECOMPUTE_MODES and self.attention in ATTENTION_KERNELS and \
                type(self.zero_stage) is int and 0 <= self.zero_stage <= 3 and 0 <= self.tp_overlap <= 1 and \
                type(self.nodes_per_token) is int and self.nodes_per_token >= 0 and type(self.comm_sms) is int and \
                self.comm_sms >= 0 and self.dispatch_bytes > 0 and self.grad_bytes > 0 and self.gather_bytes > 0 and not self.dp % self.ep and \
                (self.chunks == 1 or self.schedule == "interleaved") and self.framework in FRAMEWORKS:
            return  # the common case, checked at once: a planner builds one for every layout it times
        for name in ("tp", "cp", "pp", "dp", "ep", "micro_batch", "chunks"):
            positive_int(name, getattr(self, name))
        if self.chunks > 1 and self.schedule != "interleaved":
            raise EstimatorError("chunks", self.chunks, "1, or the interleaved schedule")
        one_of("schedule", self.schedule, SCHEDULES)
        one_of("recompute", self.recompute, RECOMPUTE_MODES)
        one_of("attention", self.attention, ATTENTION_KERNELS)
        one_of("framework", self.framework, FRAMEWORKS)
        one_of("zero_stage", self.zero_stage, (0, 1, 2, 3))
        if not 0 <= non_negative("tp_overlap", self.tp_overlap) <= 1:
            raise EstimatorError("tp_overlap", self.tp_overlap, "a share from 0 to 1")
        non_negative_int("nodes_per_token", self.nodes_per_token)
        non_negative_int("comm_sms", self.comm_sms)
        positive("dispatch_bytes", self.dispatch_bytes)
        positive("grad_bytes", self.grad_bytes)
        positive("gather_bytes", self.gather_bytes)
        if self.dp % self.ep:
            raise EstimatorError("ep", self.ep, f"a divisor of the data-parallel degree ({self.dp})")

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp


# ---------------------------------------------------------------- arithmetic


@dataclass(frozen=True)
class GemmTime:
    """One matrix multiply of M × K by K × N on one GPU."""

    flops: float = quantity("2·M·N·K", "sci")
    efficiency: float = quantity("achieved rate / peak", "percent")
    seconds: float = quantity("max(FLOPs / (peak × efficiency), bytes / bandwidth, the kernel floor)", "duration")


@cache  # every GEMM the step model times reads them: computed once from the fitted tile reuse
def tile_rates() -> tuple:
    """(m, n, r) of each output tile, r = ρ(I)/ρ(I_max) its rate relative to the largest, ρ(I) = I/(I + I_half),
    I = m·n/(m + n) the times the tile reuses each value it loads; the highest rate first, so that a GEMM stops at
    the first tile its best so far already reaches."""
    def rate(m, n):
        reuse = m * n / (m + n)
        return reuse / (reuse + FITTED["tile_reuse_half"])
    return tuple(sorted(((m, n, rate(m, n) / rate(*TILES[0])) for m, n in TILES), key=lambda tile: -tile[2]))


def gemm_seconds(m: float, n: float, k: float, gpu: Gpu, sms: int = 0, batch: int = 1) -> GemmTime:
    """t = max(2MNK / (peak × e), 2(MK + KN + MN) / bandwidth, t_floor), e = e_max × max over tiles (r × wave) × K/(K + K_fill).

    e_max is the GPU's best measured matmul rate / peak (mamf-finder); for each
    output tile a library offers (256 × 128 down to 64 × 64), wave = M·N·batch /
    (⌈tiles / SMs⌉ · SMs · tile area), the share of the waves of tiles that does
    work (NVIDIA's "Matrix Multiplication Background" guide: tile and wave
    quantisation), r the tile's rate from its operand reuse; K/(K + K_fill) the
    main loop's fill and drain (gemm_fill_elements). Memory: the roofline's bytes over bandwidth.
    `batch` GEMMs of one shape run as one batched or grouped kernel.
    """
    if min(m, n, k) <= 0:
        return GemmTime(0.0, 0.0, 0.0)
    return GemmTime(*_gemm(m, n, k, sms or gpu.sms, batch, gpu.sms, gpu.matmul_share, gpu.peak_flops, gpu.hbm_bytes_per_s,
                           gemm_fill_elements(gpu)))


def gemm_fill_elements(gpu: Gpu) -> float:
    """K_fill, the inner-dimension length at which a GEMM reaches half its large-K rate, in elements: the fitted length
    for 2-byte operands, twice it for FP8's 1-byte ones. The main loop fills and drains a pipeline of stages of the same
    bytes, each holding twice the elements of K in FP8 (CUTLASS's Hopper kernels step K by 128 bytes: 64 BF16 or 128 FP8
    elements a stage), so the fill spans twice the elements."""
    fp8 = gpu.peak_flops > gpu.attention_peak_flops  # the GEMMs run above the BF16 peak: at FP8's
    return FITTED["gemm_fill_k"] * (BYTES_BF16 if fp8 else 1)


@lru_cache(maxsize=4096)  # a plan times the same few shapes for every layout that shares a tensor-parallel degree
def _gemm(m, n, k, units, batch, sms, matmul_share, peak_flops, hbm_bytes_per_s, fill_k) -> tuple:
    best = 0.0
    for tm, tn, rate in tile_rates():
        if rate <= best:  # no tile reaches more than its rate, and the rest have no higher one (tile_rates)
            break
        tiles = -(-m // tm) * -(-n // tn) * batch
        wave = (m * n * batch) / (-(-tiles // units) * units * tm * tn)
        reached = rate * (wave if wave < 1 else 1.0)
        if reached > best:  # max(), without a call per tile: a plan times hundreds of new shapes
            best = reached
    efficiency = matmul_share * best * k / (k + fill_k) * units / sms
    flops = MATMUL_FLOPS_PER_MAC * m * n * k * batch
    memory = BYTES_BF16 * (m * k + k * n + m * n) * batch / hbm_bytes_per_s
    seconds = max(flops / (peak_flops * efficiency), memory, KERNEL_FLOOR_SECONDS)
    return flops, flops / (seconds * peak_flops), seconds


@lru_cache(maxsize=4096)  # the attention's, the router's and the output layer's GEMMs are the same for every EP degree
def _training_gemm(m: float, n: float, k: float, gpu: Gpu, sms: int, batch: int = 1) -> tuple:
    """(forward seconds, backward seconds, FLOPs of all three) of a GEMM with its two gradient GEMMs:
    dX = dY·Wᵀ (M × K, inner N) and dW = Xᵀ·dY (K × N, inner M), each timed as gemm_seconds times it."""
    flops = MATMUL_FLOPS_PER_MAC * m * n * k * batch
    if min(m, n, k) <= 0:
        return 0.0, 0.0, 0.0
    rates = (sms, batch, gpu.sms, gpu.matmul_share, gpu.peak_flops, gpu.hbm_bytes_per_s, gemm_fill_elements(gpu))
    backward = _gemm(m, k, n, *rates)[2] + _gemm(k, n, m, *rates)[2]
    quantise = fp8_quantise_seconds(m, n, k, gpu, batch)
    return _gemm(m, n, k, *rates)[2] + quantise / 2, backward + quantise / 2, (1 + BACKWARD_GEMMS) * flops


def fp8_quantise_seconds(m: float, n: float, k: float, gpu: Gpu, batch: int = 1) -> float:
    """GEMMs run in FP8 quantise their activation inputs online (DeepSeek-V3 §3.3.2): X for the forward, Xᵀ for the weight
    gradient, dY and dYᵀ for the two gradients, each read in BF16 and written in FP8, 3 bytes an element:
    3 × 2(MK + MN) bytes over memory bandwidth; 0 when the GEMMs run in BF16."""
    if gpu.peak_flops == gpu.attention_peak_flops:
        return 0.0
    elements = 2 * (m * k + m * n) * batch
    return (BYTES_BF16 + 1) * elements / (gpu.hbm_bytes_per_s * FITTED["memory_efficiency"])


@dataclass(frozen=True)
class KernelTime:
    """The arithmetic of one part of a block (its matrix multiplies, or its attention core) for one micro-batch on one GPU."""

    forward_seconds: float = quantity("the forward pass", "duration")
    backward_seconds: float = quantity("the backward pass: data and weight gradients", "duration")
    flops: float = quantity("forward and backward", "sci")


def _gemm_list(shape: Shape, setup: Setup, tokens: float, moe: bool) -> list:
    """(M, N, K, count) of one block's GEMMs on one GPU, tokens = b·s/cp rows: the attention's, then the MLP's."""
    return _attention_gemm_list(shape, setup, tokens) + _mlp_gemm_list(shape, setup, tokens, moe)


def _attention_gemm_list(shape: Shape, setup: Setup, tokens: float) -> list:
    """(M, N, K, count) of a block's attention projections on one GPU."""
    t, s = setup.tp, shape
    if s.kv_rank:  # MLA (DeepSeek-V2 §2.1): down-projections, then up-projections per head; queries from d without r_q
        attention = [(tokens, s.q_rank + s.kv_rank + s.rope_head, s.d, 1),
                     (tokens, s.heads * s.qk_head / t, s.q_rank or s.d, 1),
                     (tokens, s.heads * (s.qk_head - s.rope_head + s.v_head) / t, s.kv_rank, 1),
                     (tokens, s.d, s.heads * s.v_head / t, 1)]
    else:
        attention = [(tokens, (s.heads * s.qk_head + s.kv_heads * (s.qk_head + s.v_head)) / t, s.d, 1),
                     (tokens, s.d, s.heads * s.v_head / t, 1)]
    return attention


def _mlp_gemm_list(shape: Shape, setup: Setup, tokens: float, moe: bool) -> list:
    """(M, N, K, count) of a block's MLP on one GPU: dense, or the router, the routed experts and the shared ones."""
    t, s = setup.tp, shape
    up = 2 if s.gated else 1
    if not moe:
        return [(tokens, up * s.ffn / t, s.d, 1), (tokens, s.d, s.ffn / t, 1)]
    # Routed tokens arrive evenly at the ep GPUs; each holds E/ep experts (GShard §2.2).
    local_experts = max(1, s.experts // setup.ep)
    per_expert = tokens * s.top_k / t * setup.ep / s.experts
    ffn = [(tokens, s.experts, s.d, 1),  # the router
           (per_expert, up * s.expert_ffn, s.d, local_experts), (per_expert, s.d, s.expert_ffn, local_experts)]
    if s.shared_experts:
        width = s.shared_experts * s.expert_ffn / t
        ffn += [(tokens, up * width, s.d, 1), (tokens, s.d, width, 1)]
    return ffn


def layer_gemms(shape: Shape, setup: Setup, tokens: float, gpu: Gpu, moe: bool = False) -> KernelTime:
    """Σ over a block's GEMMs (QKV or MLA's projections, output, MLP or router and experts) of each GEMM's time, forward
    and backward, with M = b·s/cp tokens and the TP-split width (Megatron-LM's column and row splits, Shoeybi et al. 2019)."""
    return _kernel_time(_gemm_list(shape, setup, tokens, moe), gpu, gpu.sms - setup.comm_sms)


def _kernel_time(gemms: list, gpu: Gpu, sms: int) -> KernelTime:
    """Σ of each (M, N, K, count) GEMM's time with its two gradient GEMMs (_training_gemm)."""
    forward = backward = flops = 0.0
    for m, n, k, count in gemms:
        f, b, c = _training_gemm(m, n, k, gpu, sms, count)
        forward, backward, flops = forward + f, backward + b, flops + c
    return KernelTime(forward, backward, flops)


def head_gemms(shape: Shape, setup: Setup, tokens: float, gpu: Gpu) -> KernelTime:
    """The output layer's logits, b·s/cp × d by d × V/tp, forward and backward, timed as every GEMM is, in BF16 whatever
    the blocks' precision: FP8 training keeps the output head in BF16 (DeepSeek-V3 §3.3.1; Transformer Engine's FP8
    covers its own layers, and Megatron-LM's output layer is not one)."""
    f, b, c = _training_gemm(tokens, shape.vocab / setup.tp, shape.d, _bf16(gpu), gpu.sms - setup.comm_sms)
    return KernelTime(f, b, c)


@cache  # one per GPU of a plan, asked by every layout's output layer: replace re-checks every field
def _bf16(gpu: Gpu) -> Gpu:
    """The GPU as its BF16 GEMMs see it: the BF16 (attention's) peak and BF16 matmul share."""
    return replace(gpu, peak_flops=gpu.attention_peak_flops, matmul_share=gpu.bf16_matmul_share)


def flash_attention_seconds(shape: Shape, setup: Setup, seq_len: int, gpu: Gpu) -> KernelTime:
    """F = b·s²·H·(d_qk + d_v)/(cp·tp) forward (causal: half of 2·s²·H·(d_qk + d_v)), 2.5 F backward, at FlashAttention's
    measured share of the BF16 peak (Dao 2023, "FlashAttention-2"; Shah et al. 2024, "FlashAttention-3"); no s × s
    activations kept. CP's causal load is balanced as Llama 3 does (§3.3.2), each GPU a 1/cp share."""
    forward = (MATMUL_FLOPS_PER_MAC * CAUSAL_SHARE * setup.micro_batch * seq_len ** 2 * shape.heads
               * (shape.qk_head + shape.v_head) / (setup.cp * setup.tp))
    rate = gpu.attention_peak_flops * gpu.attention_share * (gpu.sms - setup.comm_sms) / gpu.sms
    return KernelTime(forward / rate, FLASH_BACKWARD_RATIO * forward / rate, (1 + FLASH_BACKWARD_RATIO) * forward)


def unfused_attention_seconds(shape: Shape, setup: Setup, seq_len: int, gpu: Gpu) -> KernelTime:
    """QKᵀ and P·V as batched GEMMs over b·H/tp heads (s × s × d_qk, s × d_v × s, every score computed), and the
    fused scale-mask-softmax with dropout reading and writing the s × s scores: 16 bytes a score forward and backward,
    over memory bandwidth (Megatron-LM before FlashAttention; Korthikanti et al. 2022 §4.1 counts the same tensors)."""
    s, heads = seq_len // setup.cp, setup.micro_batch * shape.heads // setup.tp
    f1, b1, c1 = _training_gemm(s, seq_len, shape.qk_head, gpu, gpu.sms, heads)
    f2, b2, c2 = _training_gemm(s, shape.v_head, seq_len, gpu, gpu.sms, heads)
    softmax = UNFUSED_SOFTMAX_BYTES_PER_SCORE * s * seq_len * heads / (gpu.hbm_bytes_per_s * FITTED["memory_efficiency"])
    forward_share = 7 / UNFUSED_SOFTMAX_BYTES_PER_SCORE
    return KernelTime(f1 + f2 + softmax * forward_share, b1 + b2 + softmax * (1 - forward_share), c1 + c2)


@dataclass(frozen=True)
class MemoryBoundTime:
    """Kernels whose time is the bytes they move: norms, residual adds, activations, rotary, dropout."""

    forward_seconds: float = quantity("forward bytes / (bandwidth × efficiency)", "duration")
    backward_seconds: float = quantity("backward: twice the forward's bytes", "duration")


def memory_bound_seconds(shape: Shape, setup: Setup, tokens: float, gpu: Gpu, moe: bool = False) -> MemoryBoundTime:
    """forward = T × fused bytes / (HBM bandwidth × efficiency) + what eager PyTorch's own kernels add; the backward moves
    twice the forward's bytes. Fused bytes: 2 × [11·d/t_sp (norms, residual adds with dropout) + F_act/t
    (the MLP's activation: read 3F write F for SwiGLU, 2F for GeLU) + 2·(H + G)·d_h/t (rotary on q and k)], t_sp = tp
    with sequence parallelism, else 1, as Megatron-LM's fused kernels (and torch.compile's) move them."""
    s, t = shape, setup.tp
    sp = t if setup.sequence_parallel else 1
    width = ((s.top_k + s.shared_experts) * s.expert_ffn if moe else s.ffn) / (1 if moe else t)
    forward = tokens * (elementwise_bytes(s, width, sp, t) + unfused_activation_bytes(s, width, setup)) / (
        gpu.hbm_bytes_per_s * FITTED["memory_efficiency"])
    if setup.framework == "fsdp_eager":
        forward += eager_kernel_seconds(s, width, sp, t, tokens, gpu, fused_norm=setup.fused_norm)
    return MemoryBoundTime(forward, BACKWARD_BYTES_RATIO * forward)


def elementwise_bytes(shape: Shape, mlp_width: float, sp: int, tp: int) -> float:
    """Bytes one token's forward moves in a block's fused elementwise kernels (Megatron-LM; torch.compile, whose generated
    kernels fuse each chain): 2 B × [11·d/t_sp + (3 or 2)·F + 2·(H + G)·d_h/t]."""
    s = shape
    activation = (3 if s.gated else 2) * mlp_width
    return BYTES_BF16 * (SEQUENCE_KERNEL_ELEMENTS * s.d / sp + activation + _rotary_elements(s, tp))


def unfused_activation_bytes(shape: Shape, mlp_width: float, setup: Setup) -> float:
    """Bytes one token's forward adds when the MLP's activation runs as two operators rather than one fused kernel:
    squared ReLU as a ReLU then a square, each reading and writing the F-wide tensor, 4F elements where one kernel moves
    2F: 2F elements of 2 B more. A gated MLP's SwiGLU is fused.

    Megatron-Core runs squared ReLU as torch.pow(F.relu(x), 2) (its squared_relu); its bias-activation fusion covers
    GeLU and SwiGLU only, and Nemotron's configurations set it off."""
    return 2 * mlp_width * BYTES_BF16 if setup.unfused_activation and not shape.gated else 0.0


def _rotary_elements(shape: Shape, tp: int) -> float:
    """2·(H + G)·d_h/t: the query and key elements rotary rotates (MLA's rotary part of each head), read and written."""
    kv_heads = shape.heads if shape.kv_rank else shape.kv_heads
    return 2 * (shape.heads + kv_heads) * (shape.rope_head or shape.qk_head) / tp


def eager_bytes(shape: Shape, mlp_width: float, sp: int, tp: int, fused_norm: bool = False) -> float:
    """Bytes one token's forward moves in eager PyTorch's operators beyond what fused kernels move: RMSNorm at 36 B an
    element in FP32 where fused moves 4 (LayerNorm is one native kernel, as fused; so is a fused RMSNorm kernel such as
    torchtitan's Triton RMSNorm, which reads x and w and writes y once), SwiGLU 5F elements where fused moves 3F,
    rotary at 20 B an element in FP32 where fused moves 4, and q, k, v and the output copied into FlashAttention's
    layout and back."""
    s = shape
    kv_heads = s.heads if s.kv_rank else s.kv_heads
    # Llama's RMSNorm as ATen's operators; GPT's LayerNorm, and a fused RMSNorm, move what fused kernels move.
    rmsnorm = 2 * s.d / sp * (EAGER_RMSNORM_BYTES - 2 * BYTES_BF16) if s.gated and not fused_norm else 0.0
    swiglu = (EAGER_SWIGLU_ELEMENTS_PER_F - 3) * mlp_width * BYTES_BF16 if s.gated else 0.0
    rotary = _rotary_elements(s, tp) / 2 * (EAGER_ROTARY_BYTES - 2 * BYTES_BF16) if s.gated else 0.0
    layout = EAGER_LAYOUT_COPIES * BYTES_BF16 * (s.heads + kv_heads) * (s.qk_head + s.v_head) / tp
    return rmsnorm + swiglu + rotary + layout


def eager_kernel_seconds(shape: Shape, mlp_width: float, sp: int, tp: int, tokens: float, gpu: Gpu,
                         fused_norm: bool = False) -> float:
    """What eager PyTorch's operators add to a block's forward: max(T × the bytes they add / memory bandwidth, kernels ×
    a launch's time).

    Each operator is a kernel of its own that streams its inputs and outputs once, with no reuse to organise: a plain
    elementwise pass that runs at the memory's bandwidth (the roofline's floor, Williams et al. 2009), not at the share
    fused kernels with their reductions and masks reach (FITTED's memory_efficiency). Each costs at least a launch
    (KERNEL_FLOOR_SECONDS): 8 kernels a RMSNorm as ATen's composite rms_norm runs it (cast up, square, mean, add ε,
    rsqrt, scale, cast down, weight), or 1 fused, 3 for each of q and k under rotary (cast up, complex multiply, cast down), 2 for
    SwiGLU (SiLU, multiply) and 4 layout copies (q, k, v, output); a GeLU model has the copies alone."""
    norm_kernels = 2 * (1 if fused_norm else EAGER_RMSNORM_KERNELS)
    kernels = EAGER_LAYOUT_KERNELS + (EAGER_LLAMA_KERNELS + norm_kernels if shape.gated else 0)
    return max(tokens * eager_bytes(shape, mlp_width, sp, tp, fused_norm) / gpu.hbm_bytes_per_s,
               kernels * KERNEL_FLOOR_SECONDS)


def loss_seconds(shape: Shape, setup: Setup, tokens: float, gpu: Gpu) -> float:
    """Cross-entropy over the vocabulary: 4 passes over T × V/tp logits of 2 bytes (fused), or 28 bytes a logit in FP32
    (PyTorch's, under FSDP eager or compiled: the loss stays outside the compiled blocks), over memory bandwidth."""
    per_logit = LOSS_PASSES * BYTES_BF16 if setup.framework == "megatron" else EAGER_LOSS_BYTES
    return per_logit * tokens * shape.vocab / setup.tp / (gpu.hbm_bytes_per_s * FITTED["memory_efficiency"])


def fsdp_copy_seconds(params_per_gpu: float, gpu: Gpu) -> float:
    """FSDP's copies per micro-batch: 14 bytes per parameter gathered (the gathered weights copied out of the flat buffer
    forward and backward, 2 × (2 + 2) B; the gradients copied and cast into the reduce-scatter's buffer, 2 + 4 B) over
    memory bandwidth (PyTorch FSDP2's all-gather copy-in/copy-out and reduce-scatter copy-in)."""
    return FSDP_COPY_BYTES_PER_PARAM * non_negative("params_per_gpu", params_per_gpu) / (
        gpu.hbm_bytes_per_s * FITTED["memory_efficiency"])


def _optimizer_seconds(params_per_gpu: float, gpu: Gpu) -> float:
    """Adam's step reads and writes the training state once: 30 bytes per parameter held (FP32 weight, m, v, gradient
    read; weight, m, v written; the BF16 copy written) over memory bandwidth."""
    return ADAM_BYTES_PER_PARAM * params_per_gpu / (gpu.hbm_bytes_per_s * FITTED["memory_efficiency"])


# ---------------------------------------------------------------- communication

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "p2p")


@dataclass(frozen=True)
class CollectiveTime:
    """One collective among n GPUs: its fastest algorithm and its time."""

    algorithm: str
    seconds: float = quantity("α–β: latency × steps + bytes on the wire / achieved bandwidth", "duration")


def collective_seconds(kind: str, total_bytes: float, gpus: int, bytes_per_s: float, latency_seconds: float) -> CollectiveTime:
    """α–β model (Hockney 1994; Thakur et al. 2005): ring all-reduce 2(n−1)·α + 2(n−1)/n·V/β, tree all-reduce
    2⌈log₂n⌉·α + 2V/β (NCCL picks the faster), all-gather, reduce-scatter and all-to-all (n−1)·α + (n−1)/n·V/β,
    point-to-point α + V/β; V the whole buffer, β the link's per-GPU bandwidth × the bus efficiency nccl-tests reach."""
    one_of("kind", kind, COLLECTIVES)
    n, v = positive_int("gpus", gpus), non_negative("total_bytes", total_bytes)
    positive("bytes_per_s", bytes_per_s)
    return CollectiveTime(*_collective(kind, v, n, bytes_per_s, non_negative("latency_seconds", latency_seconds)))


def _collective(kind: str, v: float, n: int, bytes_per_s: float, alpha: float) -> tuple:
    """(algorithm, seconds) of collective_seconds, its arguments already checked."""
    beta = bytes_per_s * FITTED["bus_efficiency"]
    if kind == "p2p":
        return "p2p", alpha + v / beta
    if n == 1 or v == 0:
        return "none", 0.0
    if kind == "all_reduce":
        ring = 2 * (n - 1) * alpha + 2 * (n - 1) / n * v / beta
        tree = 2 * math.ceil(math.log2(n)) * alpha + 2 * v / beta
        return ("ring", ring) if ring <= tree else ("tree", tree)
    return "ring" if kind != "all_to_all" else "pairwise", (n - 1) * alpha + (n - 1) / n * v / beta


SPANNING_COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter")  # rings and trees NCCL runs over every card at once


def group_link(kind: str, span_gpus: int, per_server: int, gpu: Gpu) -> tuple:
    """(bandwidth per GPU, latency) a collective of a group runs at: its members lie within a span of neighbouring GPUs,
    g of them in each scale-up domain (server) the span reaches.

    Inside one domain (span ≤ its GPUs): NVLink, β_up. Across servers, all-reduce, all-gather and reduce-scatter run
    NCCL's rings and trees on as many channels as a server has cards, each channel on its own card, NVLink joining a
    server's g members: between servers β = min(g × β_card, β_up), β_card one GPU's share of the network (NCCL's
    performance notes, nccl-tests doc/PERFORMANCE.md: the bus bandwidth of an all-reduce is the slowest link's; two HGX
    A100 servers with four 200 Gb/s cards each reach 91 GB/s, four cards' 100 GB/s, NVIDIA/nccl-tests issue 100).
    An all-to-all and a point-to-point send cannot gather a server's cards: β = β_card ("Alltoall cannot aggregate the
    bandwidth of multiple NICs", S. Jeaugey, NVIDIA/nccl-tests issue 267). g = 1 is one card's, as before.
    """
    if span_gpus <= gpu.scale_up_gpus:
        return gpu.scale_up_bytes_per_s, gpu.scale_up_latency_seconds
    if kind in SPANNING_COLLECTIVES:
        bandwidth = min(max(1, per_server) * gpu.scale_out_bytes_per_s, gpu.scale_up_bytes_per_s)
        return bandwidth, gpu.scale_out_latency_seconds
    return gpu.scale_out_bytes_per_s, gpu.scale_out_latency_seconds


def members_per_server(tp: int, cp: int, pp: int, gpu: Gpu) -> int:
    """The data-parallel group's (dp·cp GPUs) members in one server, ranks ordered tp, cp, pp, dp (tp innermost):
    min(cp, ⌊S/tp⌋) context-parallel ones × ⌊S/(tp·cp·pp)⌋ data-parallel ones, each at least 1, S the domain's GPUs."""
    s = gpu.scale_up_gpus
    return max(1, min(cp, s // tp)) * max(1, s // (tp * cp * pp))


def tensor_parallel_seconds(shape: Shape, setup: Setup, tokens: float, gpu: Gpu) -> float:
    """Per block and micro-batch, forward and backward: 2 all-gathers + 2 reduce-scatters each way of T·d values with
    sequence parallelism, else 2 all-reduces each way (Megatron-LM §3; Korthikanti et al. 2022 §4.2.2), on the scale-up link."""
    if setup.tp == 1:
        return 0.0
    bw, lat = group_link("all_reduce", setup.tp, min(setup.tp, gpu.scale_up_gpus), gpu)  # every TP collective is a ring over the group
    v = BYTES_BF16 * tokens * shape.d
    if setup.sequence_parallel:
        one = (_collective("all_gather", v, setup.tp, bw, lat)[1]
               + _collective("reduce_scatter", v, setup.tp, bw, lat)[1])
    else:
        one = _collective("all_reduce", v, setup.tp, bw, lat)[1]
    return 2 * 2 * one  # two per block (attention, MLP), forward and backward


def context_parallel_seconds(shape: Shape, setup: Setup, seq_len: int, gpu: Gpu) -> float:
    """Per block and micro-batch: all-gather the keys and values of the whole sequence, 2·b·s·G·d_h/tp values, forward;
    reduce-scatter their gradients backward (Llama 3 §3.3.2), on the link the tp·cp span reaches."""
    if setup.cp == 1:
        return 0.0
    bw, lat = group_link("all_gather", setup.tp * setup.cp, max(1, min(setup.cp, gpu.scale_up_gpus // setup.tp)), gpu)
    kv_heads = shape.heads if shape.kv_rank else shape.kv_heads
    v = BYTES_BF16 * 2 * setup.micro_batch * seq_len * kv_heads * shape.qk_head / setup.tp
    return (_collective("all_gather", v, setup.cp, bw, lat)[1]
            + _collective("reduce_scatter", v, setup.cp, bw, lat)[1])


def _send_seconds(shape: Shape, tp: int, cp: int, pp: int, sequence_parallel: bool, tokens: float, gpu: Gpu) -> float:
    """Per micro-batch and chunk: a stage's T·d/t_sp activations forward and their gradient back, point to point on the
    link between stages (GPipe; Narayanan et al. 2021 §4.1)."""
    if pp == 1:
        return 0.0
    bw, lat = group_link("p2p", tp * cp * pp, 1, gpu)
    v = BYTES_BF16 * tokens * shape.d / (tp if sequence_parallel else 1)
    return 2 * _collective("p2p", v, 2, bw, lat)[1]


def expert_all_to_all_seconds(shape: Shape, setup: Setup, tokens: float, gpu: Gpu) -> float:
    """Per MoE block and micro-batch: dispatch and combine forward and backward (GShard §2.2), the forward dispatch at
    its own precision, the other three in BF16, each timed as one all-to-all."""
    sent = _all_to_all_bytes(setup)
    seconds = {value_bytes: all_to_all_seconds(shape, setup, tokens, gpu, value_bytes) for value_bytes in set(sent)}
    return sum(seconds[value_bytes] for value_bytes in sent)  # those of the same precision timed once


def _all_to_all_bytes(setup: Setup) -> tuple:
    """Bytes per value of a MoE block's four all-to-alls: (forward dispatch, forward combine, backward dispatch, backward
    combine); only the forward dispatch runs at the dispatch's precision (DeepSeek-V3 §3.3.2 keeps the others in BF16)."""
    return setup.dispatch_bytes, BYTES_BF16, BYTES_BF16, BYTES_BF16


def all_to_all_seconds(shape: Shape, setup: Setup, tokens: float, gpu: Gpu, value_bytes: float) -> float:
    """One all-to-all of a MoE block for one micro-batch. Each GPU sends T/tp tokens' d-vectors to k experts spread over
    ep GPUs, (ep − 1)/ep of them leaving it; with node-limited routing (DeepSeek-V3 §3.2.2) one copy per target node
    over the network, at most M nodes, then NVLink forwarding to each copy's expert GPU: network bytes over one card
    (an all-to-all cannot gather a server's cards, nccl-tests issue 267), the copies inside the node over NVLink."""
    if setup.ep == 1 or not shape.moe_layers:
        return 0.0
    local = tokens / setup.tp
    span = setup.tp * setup.cp * setup.ep  # EP draws neighbouring data-parallel replicas
    if span <= gpu.scale_up_gpus:
        v = local * shape.top_k * shape.d * value_bytes
        return _collective("all_to_all", v, setup.ep, gpu.scale_up_bytes_per_s, gpu.scale_up_latency_seconds)[1]
    nodes = max(1, span // gpu.scale_up_gpus)
    copies = min(shape.top_k, setup.nodes_per_token or shape.top_k, nodes)
    network = local * copies * (nodes - 1) / nodes * shape.d * value_bytes
    forward = local * shape.top_k * shape.d * value_bytes  # inside the node, every copy to its expert's GPU
    return (network / (gpu.scale_out_bytes_per_s * FITTED["bus_efficiency"]) + nodes * gpu.scale_out_latency_seconds
            + forward / (gpu.scale_up_bytes_per_s * FITTED["bus_efficiency"]))


class PairedLayer(NamedTuple):
    """One MoE block's parts when its forward runs beside another micro-batch's backward, in seconds."""

    attention_forward: float
    mlp_backward: float  # the input gradients
    mlp_weights: float  # the weight gradients, delayed to fill the schedule
    mlp_forward: float
    attention_backward: float  # the input gradients
    attention_weights: float
    combine_backward: float  # the four all-to-alls
    dispatch_forward: float
    dispatch_backward: float
    combine_forward: float


def paired_layer(shape: Shape, setup: Setup, seq_len: int, gpu: Gpu) -> PairedLayer:
    """A MoE block's computation, split as a paired schedule runs it, and its four all-to-alls.
    Attention: its projections, its core, and the norms, residual adds and rotary; MLP: the router, the routed and the
    shared experts, and the activation function; each at the rate the SMs left to computation reach. A GEMM's backward is its input-gradient and its weight-gradient GEMM, of the same
    FLOPs each (half the backward each); the attention core's backward has no weights."""
    tokens = setup.micro_batch * seq_len / setup.cp
    sms = gpu.sms - setup.comm_sms
    projections = _kernel_time(_attention_gemm_list(shape, setup, tokens), gpu, sms)
    core = (flash_attention_seconds if setup.attention == "flash" else unfused_attention_seconds)(shape, setup, seq_len, gpu)
    mlp = _kernel_time(_mlp_gemm_list(shape, setup, tokens, True), gpu, sms)
    memory = memory_bound_seconds(shape, setup, tokens, gpu, True)
    # The activation function's kernel runs with the MLP; the norms, residual adds and rotary with the attention.
    width = (shape.top_k + shape.shared_experts) * shape.expert_ffn
    mlp_memory = (3 if shape.gated else 2) * width * BYTES_BF16 / elementwise_bytes(
        shape, width, setup.tp if setup.sequence_parallel else 1, setup.tp)
    slow = 1 / framework_compute_share(setup.framework)
    dispatch, combine, dispatch_grad, combine_grad = (all_to_all_seconds(shape, setup, tokens, gpu, b)
                                                      for b in _all_to_all_bytes(setup))
    half = 1 / BACKWARD_GEMMS
    return PairedLayer(
        attention_forward=slow * (projections.forward_seconds + core.forward_seconds
                                  + (1 - mlp_memory) * memory.forward_seconds),
        mlp_backward=slow * (half * mlp.backward_seconds + mlp_memory * memory.backward_seconds),
        mlp_weights=slow * half * mlp.backward_seconds,
        mlp_forward=slow * (mlp.forward_seconds + mlp_memory * memory.forward_seconds),
        attention_backward=slow * (half * projections.backward_seconds + core.backward_seconds
                                   + (1 - mlp_memory) * memory.backward_seconds),
        attention_weights=slow * half * projections.backward_seconds,
        combine_backward=combine_grad, dispatch_forward=dispatch, dispatch_backward=dispatch_grad, combine_forward=combine)


def combined_1f1b_exposed_seconds(pair: PairedLayer, layers: int) -> float:
    """Per MoE block, the time no computation hides when Megatron-Core runs a forward and another micro-batch's backward
    as one (its combined 1F1B schedule, with the weight gradients delayed). Two streams, each in
    order: computation attention forward, MLP backward, MLP weight gradients, MLP forward, attention backward, attention
    weight gradients; communication combine backward, dispatch forward, dispatch backward, combine forward. Each step
    waits for its own stream and for what it reads: the MLP's backward for combine's gradient, dispatch for the
    attention forward, dispatch's gradient for the MLP's backward, the MLP forward for dispatch, combine for the MLP
    forward, the attention backward for dispatch's gradient; a block's combine backward for the previous block's
    attention backward, its attention forward for the previous block's combine. Exposed = the span of `layers`
    blocks run in a row, less their computation, over `layers`.

    Megatron-Core's --overlap-moe-expert-parallel-comm with --delay-wgrad-compute:
    megatron/core/models/common/model_chunk_schedule_plan.py, TransformerLayerSchedulePlan.run."""
    p = pair
    compute = (p.attention_forward + p.mlp_backward + p.mlp_weights + p.mlp_forward + p.attention_backward
               + p.attention_weights)
    computing = communicating = backward_ready = 0.0  # when each stream is free; when the next combine backward may start
    for _ in range(positive_int("layers", layers)):
        combine_grad = max(communicating, backward_ready) + p.combine_backward
        attention = max(computing, communicating) + p.attention_forward  # the previous block's combine ended last
        mlp_backward = max(attention, combine_grad) + p.mlp_backward
        dispatch = max(attention, combine_grad) + p.dispatch_forward
        dispatch_grad = max(dispatch, mlp_backward) + p.dispatch_backward
        mlp_forward = max(mlp_backward + p.mlp_weights, dispatch) + p.mlp_forward
        communicating = max(dispatch_grad, mlp_forward) + p.combine_forward
        backward_ready = max(mlp_forward, dispatch_grad) + p.attention_backward
        computing = backward_ready + p.attention_weights
    return max(computing, communicating) / layers - compute


def dualpipe_exposed_seconds(all_to_all_seconds: float, compute_seconds: float) -> float:
    """What DualPipe leaves exposed of a stage's expert all-to-alls for one micro-batch: it pairs a forward chunk with
    another micro-batch's backward chunk, rearranges their parts and sets the SMs each all-to-all gets so that all of
    them hide behind the pair's computation (DeepSeek-V3 §3.2.1, figure 4), as long as there is that much of it:
    max(0, all-to-alls − computation), the share hidden min(1, computation / all-to-alls)."""
    return max(0.0, non_negative("all_to_all_seconds", all_to_all_seconds) - non_negative("compute_seconds", compute_seconds))


def _exposed(grads: float, weights: float, zero_stage: int, overlap: bool, window: float, compute: float,
             layers: float) -> tuple:
    """(traffic, exposed) seconds of the data-parallel cut from its collectives' times. ZeRO 0: all-reduce the gradients;
    1–2: reduce-scatter them and all-gather the updated weights (ZeRO §7.2), once a step, the reduction hidden behind the
    last micro-batch's backward when the framework buckets it and the gather behind the next forward; 3 (FSDP):
    all-gather the weights forward and backward and reduce-scatter the gradients for each micro-batch, prefetched a layer
    ahead behind its compute: exposed = what exceeds the compute, plus the first layer's gather, which nothing
    precedes."""
    if zero_stage == 3:
        total = grads + 2 * weights
        return total, max(0.0, total - compute) + weights / max(1.0, layers)
    if not overlap:
        return grads + weights, grads + weights
    forward_window = window / BACKWARD_GEMMS  # the next step's first forward, half a backward
    return grads + weights, max(0.0, grads - window) + max(0.0, weights - forward_window)


def data_parallel_collectives(shape: Shape, setup: Setup, degrees: tuple, zero_stage: int, gpu: Gpu) -> tuple:
    """(gradient reduction, weight gathering) seconds of the data-parallel cut of a layout's (tp, cp, pp, dp, ep)
    `degrees` at a ZeRO stage: its stage's dense parameters over the dp·cp GPUs, its experts over dp·cp/ep; the
    setup's gradient and gather bytes."""
    tp, cp, pp, dp, ep = degrees
    return _reduce_and_gather((shape.params - shape.expert_params) / (tp * pp), shape.expert_params / (tp * pp * ep),
                              dp * cp, tp * cp * pp * dp, members_per_server(tp, cp, pp, gpu), ep, zero_stage,
                              setup.grad_bytes, gpu, setup.gather_bytes)


@cache  # one per stage's parameters, group and ZeRO stage: the layouts of a plan that share them share the figure
def _reduce_and_gather(dense_params, expert_params, n, span, per_server, ep, zero_stage, grad_bytes, gpu,
                       gather_bytes=BYTES_BF16) -> tuple:
    """(gradient reduction, weight gathering) seconds of the data-parallel cut over its n = dp·cp GPUs, experts over
    n/ep, the layout spanning `span` GPUs with `per_server` of the n in each server (members_per_server)."""

    def one(params, gpus):
        if not params or gpus == 1:
            return 0.0, 0.0
        # Experts' replicas are ep members apart: a server holds ep times fewer of them.
        bw, lat = group_link("all_reduce", span, per_server // (n // gpus), gpu)
        if zero_stage == 0:
            return _collective("all_reduce", grad_bytes * params, gpus, bw, lat)[1], 0.0
        return (_collective("reduce_scatter", grad_bytes * params, gpus, bw, lat)[1],
                _collective("all_gather", gather_bytes * params, gpus, bw, lat)[1])

    g1, w1 = one(dense_params, n)
    g2, w2 = one(expert_params, max(1, n // ep))
    return g1 + g2, w1 + w2


def pipeline_bubble_share(pp: int, micro_batches: int, chunks: int = 1, schedule: str = "1f1b") -> float:
    """The share of the step the pipeline idles: x/(1 + x), x = (p − 1)/(v·m) for 1F1B (v = 1) and the interleaved
    schedule (Narayanan et al. 2021, §2.2, where x is the bubble over the ideal time); DualPipe's (p/2 − 1)·(F&B + B − 3W)
    over m·(F + B) is x = (p/2 − 1)·2/(3m) with B = 2F and W = F (DeepSeek-V3 §3.2.1, table 2)."""
    p, m, v = positive_int("pp", pp), positive_int("micro_batches", micro_batches), positive_int("chunks", chunks)
    return _bubble_share(p, m, v, one_of("schedule", schedule, SCHEDULES))


def _bubble_share(p: int, m: int, v: int, schedule: str) -> float:
    """pipeline_bubble_share, its arguments already checked."""
    x = max(0.0, p / 2 - 1) * 2 / (3 * m) if schedule == "dualpipe" else (p - 1) / (v * m)
    return x / (1 + x)


@dataclass(frozen=True)
class StepTime:
    """One step of a layout, term by term, on its busiest GPU (the last pipeline stage, which holds the output layer)."""

    micro_batches: int = quantity("m, micro-batches per data-parallel replica", "integer")
    gemm_seconds: float = quantity("the matrix multiplies at their shapes' rates", "duration")
    attention_seconds: float = quantity("the attention core (FlashAttention, or unfused GEMMs and softmax)", "duration")
    memory_bound_seconds: float = quantity("norms, activations, residual adds, rotary and the loss over bandwidth", "duration")
    recompute_seconds: float = quantity("the forward work recomputed in the backward pass", "duration")
    tp_seconds: float = quantity("tensor-parallel collectives not hidden", "duration")
    cp_seconds: float = quantity("context-parallel gathers", "duration")
    ep_seconds: float = quantity("expert all-to-alls not hidden", "duration")
    pp_seconds: float = quantity("pipeline sends", "duration")
    busy_seconds: float = quantity("m micro-batches on the busiest stage: the terms above added", "duration")
    bubble_share: float = quantity("the pipeline's idle share of the step, x/(1 + x)", "percent")
    bubble_seconds: float = quantity("busy × x, the pipeline's fill and drain", "duration")
    dp_seconds: float = quantity("data-parallel traffic per step", "duration")
    dp_exposed_seconds: float = quantity("the part of it no computation hides", "duration")
    optimizer_seconds: float = quantity("the optimizer step", "duration")
    step_seconds: float = quantity("busy + bubble + exposed data-parallel time + optimizer", "duration")
    model_flops: float = quantity("the step's model FLOPs: its GEMMs and causal attention, no recomputation", "sci")
    mfu: float = quantity("model FLOPs / (step × GPUs × BF16 peak)", "percent")
    tokens_per_second: float = quantity("tokens of a step / step time", "si", unit="tokens/s")


@dataclass(frozen=True)
class BlockTerms:
    """One micro-batch's terms on one GPU, per block (averaged over the model's dense and MoE blocks) and for the
    output layer: what every pipeline depth, data-parallel degree, ZeRO stage and recomputation of a layout shares."""

    compute_seconds: float  # GEMMs, attention and memory-bound kernels, forward and backward
    forward_gemm_seconds: float
    forward_memory_seconds: float
    forward_attention_seconds: float
    backward_attention_seconds: float  # FlashAttention's 2.5 × its forward, or the unfused GEMMs' gradients and softmax
    backward_seconds: float  # the backward pass's GEMMs and attention: the window data-parallel reduction hides behind
    tp_seconds: float
    cp_seconds: float
    ep_seconds: float  # per block: the MoE blocks' all-to-alls spread over every block
    ep_paired_seconds: float  # per block: what of them Megatron-Core's combined 1F1B leaves exposed (0 unless overlapped)
    ops_recompute_seconds: float  # the forward matmuls a per-operator policy recomputes (ops_recomputed_share)
    flops: float
    head_seconds: float  # the output layer and its loss
    head_flops: float


def block_floor_seconds(shape: Shape, setup: Setup, gpu: Gpu, seq_len: int) -> float:
    """A floor under a block's compute, TP and CP seconds for one micro-batch, the same at every EP degree: its GEMMs'
    3 × 2MNK FLOPs (forward and both gradients) at e_max × peak on the SMs left to compute, the best rate a GEMM of
    any shape reaches (each tile's rate, its wave and the K fill are at most 1), and the TP and CP collectives, which
    EP does not change; attention and the memory-bound kernels left out. The experts' FLOPs are the same at every EP
    degree: E/ep experts on each GPU, each with T·k·ep/(t·E) tokens (GShard §2.2)."""
    tokens = setup.micro_batch * seq_len / setup.cp
    moe_share = shape.moe_layers / shape.layers
    flops = sum(w * sum(MATMUL_FLOPS_PER_MAC * m * n * k * count for m, n, k, count in _gemm_list(shape, setup, tokens, moe))
                for w, moe in ((1 - moe_share, False), (moe_share, True)) if w)
    rate = gpu.peak_flops * gpu.matmul_share * (gpu.sms - setup.comm_sms) / gpu.sms
    gemms = (1 + BACKWARD_GEMMS) * flops / rate / framework_compute_share(setup.framework)
    return (gemms + tensor_parallel_seconds(shape, setup, tokens, gpu) * (1 - setup.tp_overlap)
            + context_parallel_seconds(shape, setup, seq_len, gpu))


def block_terms(shape: Shape, setup: Setup, gpu: Gpu, seq_len: int) -> BlockTerms:
    """A block's GEMMs, attention, memory-bound kernels, TP, CP and EP collectives and the output layer for one
    micro-batch of b·s/cp tokens: computed once for every setup that shares its tp, cp, ep and micro-batch."""
    return _block_of(shape, gpu, seq_len, setup.tp, setup.cp, setup.ep, setup.micro_batch, setup.sequence_parallel,
                     setup.attention, setup.tp_overlap, setup.nodes_per_token, setup.dispatch_bytes, setup.comm_sms,
                     setup.framework, setup.fused_norm, setup.unfused_activation, setup.ep_overlap)


@cache  # one per (model, GPU, tp, cp, ep, micro-batch, sequence): shared by every other choice of a plan
def _block_of(shape: Shape, gpu: Gpu, seq_len: int, tp, cp, ep, micro_batch, sequence_parallel, attention, tp_overlap,
              nodes_per_token, dispatch_bytes, comm_sms, framework="megatron", fused_norm=False,
              unfused_activation=False, ep_overlap=False) -> BlockTerms:
    setup = Setup(tp=tp, cp=cp, dp=ep, ep=ep, micro_batch=micro_batch, sequence_parallel=sequence_parallel,
                  attention=attention, tp_overlap=tp_overlap, nodes_per_token=nodes_per_token,
                  dispatch_bytes=dispatch_bytes, comm_sms=comm_sms, framework=framework, fused_norm=fused_norm,
                  unfused_activation=unfused_activation, ep_overlap=ep_overlap)
    tokens = setup.micro_batch * seq_len / setup.cp
    moe_share = shape.moe_layers / shape.layers
    # A kind no block is (a model whose every block is MoE) adds 0 to every sum below: left out, not timed.
    kinds = [(w, moe) for w, moe in ((1 - moe_share, False), (moe_share, True)) if w]
    gemms = [(w, layer_gemms(shape, setup, tokens, gpu, moe)) for w, moe in kinds]
    memory = [(w, memory_bound_seconds(shape, setup, tokens, gpu, moe)) for w, moe in kinds]
    attention = (flash_attention_seconds if setup.attention == "flash" else unfused_attention_seconds)(shape, setup, seq_len, gpu)
    head = head_gemms(shape, setup, tokens, gpu)
    # The paired schedule's block (a walk over every MoE block) only where the run overlaps its all-to-alls: nothing else reads it.
    pair = paired_layer(shape, setup, seq_len, gpu) if setup.ep_overlap and setup.ep > 1 and shape.moe_layers else None
    slow = 1 / framework_compute_share(setup.framework)
    compute = slow * (sum(w * (g.forward_seconds + g.backward_seconds) for w, g in gemms)
                      + sum(w * (m.forward_seconds + m.backward_seconds) for w, m in memory)
                      + attention.forward_seconds + attention.backward_seconds)
    return BlockTerms(
        compute_seconds=compute, forward_gemm_seconds=slow * sum(w * g.forward_seconds for w, g in gemms),
        forward_memory_seconds=slow * sum(w * m.forward_seconds for w, m in memory),
        forward_attention_seconds=slow * attention.forward_seconds,
        backward_attention_seconds=slow * attention.backward_seconds,
        backward_seconds=slow * (sum(w * g.backward_seconds for w, g in gemms) + attention.backward_seconds),
        tp_seconds=tensor_parallel_seconds(shape, setup, tokens, gpu) * (1 - setup.tp_overlap),
        cp_seconds=context_parallel_seconds(shape, setup, seq_len, gpu),
        ep_seconds=moe_share * expert_all_to_all_seconds(shape, setup, tokens, gpu),
        ep_paired_seconds=moe_share * combined_1f1b_exposed_seconds(pair, shape.moe_layers) if pair else 0.0,
        ops_recompute_seconds=slow * ops_recomputed_share(shape) * sum(w * g.forward_seconds for w, g in gemms),
        flops=sum(w * g.flops for w, g in gemms) + attention.flops,
        head_seconds=slow * (head.forward_seconds + head.backward_seconds + loss_seconds(shape, setup, tokens, gpu)),
        head_flops=head.flops)


def framework_compute_share(framework: str) -> float:
    """The share of the step model's compute rate a framework's training loop reaches: 1 for Megatron-LM (the runs the
    other constants were fitted on), a fitted share for PyTorch FSDP, eager or compiled. It stands for what FSDP
    trainers lose beside the sourced mechanisms (their eager kernels, FSDP's copies): collectives sharing the
    SMs and memory of the compute they overlap, the CPU's hooks between layers; fitted, not modelled."""
    return 1.0 if one_of("framework", framework, FRAMEWORKS) == "megatron" else FITTED["fsdp_compute_share"]


def ops_recomputed_share(shape: Shape) -> float:
    """The share of a block's forward matmul FLOPs that torchtitan's per-operator checkpointing recomputes: it saves
    every matmul's output but every second one's, counting a block's matmuls in the order its forward calls them: the
    query, key, value and output projections, then the MLP's gate, up and down (SwiGLU) or up and down, so the key,
    output and up (or down) projections are recomputed. Σ d·n of those over Σ d·n of all, n each projection's width;
    attention's core is saved.

    torchtitan's selective op policy (parallelisms/parallelize_llama.py: "saves output of all compute ops, except every
    second mm")."""
    s = shape
    kv_heads = s.heads if s.kv_rank else s.kv_heads
    projections = [s.heads * s.qk_head, kv_heads * s.qk_head, kv_heads * s.v_head, s.heads * s.v_head]
    projections += [s.ffn, s.ffn, s.ffn] if s.gated else [s.ffn, s.ffn]
    return sum(projections[1::2]) / sum(projections)


def stage_blocks(layers: int, pp: int) -> tuple:
    """(blocks of the fullest stage, blocks of each end stage): k = ⌈L/p⌉ a middle stage, the first and last sharing the
    rest, (L − (p − 2)·k)/2 each (Megatron-LM's --decoder-first/last-pipeline-num-layers; Llama 3 §3.3.2 gives its end
    stages one block fewer for the embedding and the output layer they also hold)."""
    if pp == 1:
        return layers, layers
    k = -(-layers // pp)
    return k, (layers - (pp - 2) * k) / 2


def splits_into_stages(layers: int, pp: int) -> bool:
    """Whether L layers split over p pipeline stages: no more stages than layers, and the middle stages' (p − 2)·⌈L/p⌉
    layers at most L, the first and last stages sharing the rest. The one pipeline-split rule."""
    return pp <= layers and (pp <= 2 or (pp - 2) * -(-layers // pp) <= layers)


def _checked(shape: Shape, setup: Setup, seq_len: int, global_batch: int) -> tuple:
    s = seq_len if type(seq_len) is int and seq_len > 0 else positive_int("seq_len", seq_len)
    batch = global_batch if type(global_batch) is int and global_batch > 0 else positive_int("global_batch", global_batch)
    if s % setup.cp:
        raise EstimatorError("cp", setup.cp, f"a divisor of the sequence length ({s})")
    if batch % (setup.dp * setup.micro_batch):
        raise EstimatorError("global_batch", batch, f"a multiple of dp × micro-batch ({setup.dp * setup.micro_batch})")
    if not splits_into_stages(shape.layers, setup.pp):
        raise EstimatorError("pp", setup.pp, f"a pipeline of whole stages of the model's {shape.layers} layers")
    return s, batch, batch // (setup.dp * setup.micro_batch)


def _fullest_stage(shape: Shape, pp: int, block: BlockTerms) -> tuple:
    """(blocks, output-layer seconds) of the stage a micro-batch waits longest on: a middle stage's ⌈L/p⌉ blocks, or the
    last stage's blocks and the output layer with its loss (all of them, and the output layer, at p = 1)."""
    full, end = stage_blocks(shape.layers, pp)
    if pp == 1:
        return full, block.head_seconds
    per_block = block.compute_seconds + block.tp_seconds + block.cp_seconds
    return (full, 0.0) if full * per_block >= end * per_block + block.head_seconds else (end, block.head_seconds)


def _all_to_all_exposed(block: BlockTerms, setup: Setup, pp: int, blocks: float, compute: float, micro_batches: int,
                        chunks: int) -> float:
    """A stage's expert all-to-all seconds not hidden for one micro-batch: all of them, or what DualPipe
    (dualpipe_exposed_seconds, against the stage's computation) or Megatron-Core's combined 1F1B leaves when the run
    overlaps them with another micro-batch. The combined 1F1B pairs a forward with a backward only
    in the schedule's steady state: the last stage's (v − 1)·p warm-up forwards of the interleaved schedule, and as many
    cool-down backwards, have no partner (Megatron-LM's num_warmup_microbatches, (p − r − 1)·2 + (v − 1)·p at rank r;
    none at 1F1B's last stage), a share u = (v − 1)·p/(m·v) of its chunks whose all-to-alls are all exposed."""
    if not setup.ep_overlap:
        return blocks * block.ep_seconds
    if setup.schedule == "dualpipe":
        return dualpipe_exposed_seconds(blocks * block.ep_seconds, compute)
    unpaired = min(1.0, (chunks - 1) * pp / (micro_batches * chunks))
    return blocks * (unpaired * block.ep_seconds + (1 - unpaired) * block.ep_paired_seconds)


def _recompute_seconds(block: BlockTerms, recompute: str, blocks: float) -> float:
    """What the backward pass recomputes per micro-batch: the attention core (selective), every second matmul and every
    memory-bound kernel (ops), or the whole forward with its share of the block's TP traffic (full): Megatron-LM's
    full recomputation reruns each checkpointed block's forward, its collectives included, before the block's
    backward (megatron/core/tensor_parallel/random.py, CheckpointFunction.backward calls the forward again)."""
    if recompute == "none":
        return 0.0
    if recompute == "selective":
        return blocks * block.forward_attention_seconds
    if recompute == "ops":
        return blocks * (block.ops_recompute_seconds + block.forward_memory_seconds)
    return blocks * (block.forward_attention_seconds + block.forward_gemm_seconds + block.forward_memory_seconds
                     + TP_FORWARD_SHARE * block.tp_seconds)


def step_seconds(shape: Shape, setup: Setup, gpu: Gpu, seq_len: int, global_batch: int) -> StepTime:
    """step = busy × (1 + x) + exposed DP + optimizer, busy = m × the fullest stage's micro-batch (its ⌈L/p⌉ blocks'
    GEMMs, attention, memory-bound kernels and recomputation, exposed TP, CP and EP, v chunks' pipeline sends; or the last
    stage's blocks with the output layer and its loss, if longer), x = (p − 1)/(v·m) the bubble over the busy time
    (DualPipe's smaller); MFU = model FLOPs / (step × GPUs × BF16 peak) (PaLM, appendix B)."""
    s, batch, _ = _checked(shape, setup, seq_len, global_batch)
    return step_from_terms(shape, setup, gpu, s, batch, block_terms(shape, setup, gpu, s))


def step_from_terms(shape: Shape, setup: Setup, gpu: Gpu, seq_len: int, global_batch: int, block: BlockTerms) -> StepTime:
    """The step time from one block's terms, for a layout already checked: busy × (1 + x) + exposed DP + optimizer, as
    the step is counted, what a search over ZeRO stages, recomputation and chunks asks again and again."""
    layout = LayoutTerms(shape, setup, gpu, seq_len=seq_len, global_batch=global_batch, block=block)
    c = layout.choice(setup.zero_stage, setup.recompute, setup.chunks)
    m, blocks, head = layout.m, layout.blocks, layout.head
    model_flops = (block.flops * shape.layers + block.head_flops) * setup.tp * setup.cp * m * setup.dp
    # backward_seconds holds the attention's backward pass beside the GEMMs'; the forward attention is its own term.
    gemm_attention = blocks * (block.forward_gemm_seconds + block.forward_attention_seconds + block.backward_seconds) + head
    memory = c.compute_seconds - c.recompute_seconds - gemm_attention
    attention_share = (block.forward_attention_seconds + block.backward_attention_seconds) * blocks
    return StepTime(micro_batches=m, gemm_seconds=m * (gemm_attention - attention_share),
                    attention_seconds=m * attention_share, memory_bound_seconds=m * memory,
                    recompute_seconds=m * c.recompute_seconds, tp_seconds=m * layout.tp_seconds,
                    cp_seconds=m * layout.cp_seconds, ep_seconds=m * c.ep_seconds, pp_seconds=m * c.pp_seconds,
                    busy_seconds=c.busy_seconds, bubble_share=c.bubble_share, bubble_seconds=c.bubble_seconds,
                    dp_seconds=c.dp_seconds, dp_exposed_seconds=c.dp_exposed_seconds,
                    optimizer_seconds=c.optimizer_seconds, step_seconds=c.step_seconds, model_flops=model_flops,
                    mfu=model_flops / (c.step_seconds * setup.gpus * gpu.attention_peak_flops),
                    tokens_per_second=global_batch * seq_len / c.step_seconds)


class _Choice(NamedTuple):  # a tuple, not a dataclass: a search builds one for every choice of every layout it times
    recompute_seconds: float
    compute_seconds: float
    ep_seconds: float
    pp_seconds: float
    busy_seconds: float
    bubble_share: float
    bubble_seconds: float
    dp_seconds: float
    dp_exposed_seconds: float
    optimizer_seconds: float
    step_seconds: float


class LayoutTerms:
    """What every choice of one layout shares: its fullest stage, sends, parameters and data-parallel collectives.

    Built once per layout for a checked setup (its ZeRO stage, recomputation
    and chunks aside): `choice` times one (ZeRO stage, recomputation, chunks),
    `floor` bounds a range of them; a search asks both of many layouts. Its
    `degrees` (tp, cp, pp, dp, ep), checked by the caller, stand in for the
    setup's: a search times every layout on one framework's setup, built once.
    """

    def __init__(self, shape, setup, gpu, seq_len, global_batch, block, degrees: "tuple | None" = None):
        self.shape, self.setup, self.gpu, self.block = shape, setup, gpu, block
        tp, cp, pp, dp, ep = self.degrees = degrees or (setup.tp, setup.cp, setup.pp, setup.dp, setup.ep)
        self.m = global_batch // (dp * setup.micro_batch)
        self.blocks, self.head = _fullest_stage(shape, pp, block)
        self.tp_seconds, self.cp_seconds = self.blocks * block.tp_seconds, self.blocks * block.cp_seconds
        self.send = _send_seconds(shape, tp, cp, pp, setup.sequence_parallel, setup.micro_batch * seq_len / cp, gpu)
        self.dense = (shape.params - shape.expert_params) / (tp * pp)
        self.expert = shape.expert_params / (tp * pp * ep)
        self.stages = {}  # 0, or 1 for every sharded ZeRO stage -> (gradient reduction, weight gathering) seconds

    def choice(self, zero_stage: int, recompute_mode: str, chunks: int) -> _Choice:
        su, block, m, blocks, pp = self.setup, self.block, self.m, self.blocks, self.degrees[2]
        recompute = _recompute_seconds(block, recompute_mode, blocks)
        compute = blocks * block.compute_seconds + self.head + recompute + self.copies(zero_stage)
        ep_seconds = _all_to_all_exposed(block, su, pp, blocks, compute, m, chunks)
        pp_seconds = self.send * chunks
        micro = compute + self.tp_seconds + self.cp_seconds + ep_seconds + pp_seconds
        busy = m * micro
        share = _bubble_share(pp, m, chunks, su.schedule)
        bubble = busy * share / (1 - share)
        optimizer = self.optimizer(zero_stage)
        grads, weights = self.collectives(zero_stage)
        dp_seconds, exposed = _exposed(grads, weights, zero_stage, su.dp_overlap, blocks * block.backward_seconds, micro, blocks)
        per_step = m if zero_stage == 3 else 1
        step = finite_result("step_seconds", busy + bubble + exposed * per_step + optimizer)
        return _Choice(recompute_seconds=recompute, compute_seconds=compute, ep_seconds=ep_seconds, pp_seconds=pp_seconds,
                       busy_seconds=busy, bubble_share=share, bubble_seconds=bubble, dp_seconds=dp_seconds * per_step,
                       dp_exposed_seconds=exposed * per_step, optimizer_seconds=optimizer, step_seconds=step)

    def optimizer(self, zero_stage: int) -> float:
        """The optimizer step's seconds at a ZeRO stage: from stage 1 its state is sharded over the dp·cp GPUs, its
        experts' over dp·cp/ep; stage 0 holds it all."""
        _, cp, _, dp, ep = self.degrees
        shards = dp * cp if zero_stage >= 1 else 1
        return _optimizer_seconds(self.dense / shards + self.expert / max(1, shards // ep), self.gpu)

    def collectives(self, zero_stage: int) -> tuple:
        """(gradient reduction, weight gathering) seconds of the data-parallel cut at a ZeRO stage (_reduce_and_gather),
        kept once per layout: every recomputation and chunk count of the stage shares them, and a search asks them for
        every choice it times. Stages 1 to 3 reduce-scatter the gradients and gather the weights alike: one figure."""
        sharded = min(zero_stage, 1)
        found = self.stages.get(sharded)
        if found is None:
            found = self.stages[sharded] = data_parallel_collectives(self.shape, self.setup, self.degrees, sharded,
                                                                     self.gpu)
        return found

    def copies(self, zero_stage: int) -> float:
        """FSDP's per-micro-batch copies of this stage's parameters (fsdp_copy_seconds); none under Megatron-LM, whose
        distributed optimizer gathers into the weights' own buffer, or below ZeRO-3."""
        if zero_stage < 3 or self.setup.framework == "megatron":
            return 0.0
        return fsdp_copy_seconds(self.dense + self.expert, self.gpu)

    def floor(self, zero_stage: int, recompute_mode: str, most_chunks: int, schedule: str,
              data_parallel: bool = True) -> float:
        """A floor under `choice`'s step for every ZeRO stage from `zero_stage`, chunk count up to `most_chunks` (on
        `schedule`) and recomputation at least `recompute_mode`'s: the same terms with that recomputation, one chunk's
        sends, the bubble of the most chunks, the optimizer of a fully sharded state, and the least exposed data-parallel
        time of any ZeRO stage from `zero_stage` (below 3 what the choice counts, which neither recomputation nor chunks
        move; ZeRO-3's gathers set against the longest micro-batch any choice has: full recomputation, the most chunks'
        sends): each term the least any choice gives it. Without `data_parallel`, a cheaper floor under that one: the
        exposed data-parallel time left out unless every choice is ZeRO-3."""
        su, block, m, blocks, head, send = self.setup, self.block, self.m, self.blocks, self.head, self.send
        pp = self.degrees[2]
        compute = (blocks * block.compute_seconds + head + _recompute_seconds(block, recompute_mode, blocks)
                   + self.copies(zero_stage))
        # One chunk leaves no warm-up unpaired: the least any choice exposes.
        ep = _all_to_all_exposed(block, su, pp, blocks, compute, m, 1)
        micro = compute + blocks * (block.tp_seconds + block.cp_seconds) + ep + send
        share = _bubble_share(pp, m, most_chunks if schedule == "interleaved" else 1, schedule)
        floor = m * micro / (1 - share) + self.optimizer(1)  # every stage from 1 shards it alike; 0 holds it all
        stages = range(zero_stage, 4) if data_parallel else range(3, 4) if zero_stage == 3 else ()
        if not stages:
            return floor
        window = blocks * block.backward_seconds
        longest = (micro - compute + blocks * block.compute_seconds + head + _recompute_seconds(block, "full", blocks)
                   + send * (most_chunks - 1) + (blocks * block.ep_seconds if su.ep_overlap else 0.0))
        # ZeRO-3 exposes its traffic for each of the m micro-batches, the stages below once a step.
        return floor + min((m if stage == 3 else 1) * _exposed(*self.collectives(stage), stage, su.dp_overlap, window,
                                                               longest, blocks)[1] for stage in stages)


def busy_and_exposed_floor_seconds(micro_seconds: float, micro_batches: int, unsharded: tuple, sharded: tuple,
                                   overlap: bool, layers: float) -> float:
    """A floor under m micro-batches' busy time and the exposed data-parallel time of any ZeRO stage (LayoutTerms.choice),
    before the layout's own terms are known, from μ, a floor under any choice's micro-batch, the cut's (gradient
    reduction, weight gathering) seconds (G, A) unsharded (ZeRO-0) and sharded (1–3), and L, the most blocks a stage
    holds. Below ZeRO-3 a micro-batch of x ≥ μ holds the backward window W ≤ x the traffic hides behind, so
    m·x + max(0, G − W) + max(0, A − W/2) ≥ m·x + max(0, G − x) + max(0, A − x/2), which grows with x for m ≥ 2 (its
    slope at least m − 3/2): no less than at μ; for m = 1, x + max(0, G − x) = max(x, G) ≥ max(μ, G), the gather left
    out. ZeRO-3 exposes for each micro-batch what its traffic exceeds it by and its first block's gather:
    m·x + m·(max(0, G + 2A − x) + A/L) ≥ m·μ + m·(max(0, G + 2A − μ) + A/L)."""
    m, mu = micro_batches, micro_seconds
    grads, weights = sharded
    fsdp = m * (max(0.0, grads + 2 * weights - mu) + weights / max(1.0, layers))
    return m * mu + min(_hidden_floor(*unsharded, mu, m, overlap), _hidden_floor(grads, weights, mu, m, overlap), fsdp)


def _hidden_floor(grads: float, weights: float, micro_seconds: float, micro_batches: int, overlap: bool) -> float:
    """busy_and_exposed_floor_seconds' exposed time below ZeRO-3, behind a window of at most the micro-batch μ."""
    if not overlap:
        return grads + weights
    gather = max(0.0, weights - micro_seconds / BACKWARD_GEMMS) if micro_batches >= 2 else 0.0
    return max(0.0, grads - micro_seconds) + gather


def gpu_preset(gpu: str, scale_up: str, scale_out: str, precision: str = "bf16") -> Gpu:
    """A preset GPU on preset links, as the step model reads it: its peak at the GEMMs' precision, its measured matmul
    share (a measured rate over the peak of the GPU it was measured on, at the GEMMs' precision where that chip was
    measured at it, else in BF16), bandwidth, SMs, FlashAttention's share, each link's α
    and β, and attention at its BF16 peak whatever the GEMMs' precision; a part held below its datasheet's power reaches
    each of those rates times its peak at that power over its datasheet's. The one way a GPU is built: a reader's typed
    fields replace the preset's, each checked as the preset's was."""
    from .presets import load_presets
    presets = load_presets()
    g = presets.gpu(gpu)  # every field the step model reads is required of a GPU preset (presets.toml's declaration)
    up, out = presets.interconnect(scale_up), presets.interconnect(scale_out)
    measured = presets.matmul_rate(g.matmul_rate)
    # A share of the peak of the GPU it was measured on: a card that borrows another chip's measurement borrows its share.
    bf16_share = measured.matmul_flops / presets.gpu(measured.gpu).peak_flops["bf16"]
    peak = g.peak_flops[one_of("precision", precision, tuple(g.peak_flops))]
    # At another precision, that chip's own measurement at it where one was published (an FP8 matrix multiply reaches a
    # smaller share of its peak than a BF16 one); else the BF16 share.
    same_chip = [r for r in presets.matmul_rates.values() if r.gpu == measured.gpu and r.precision == precision]
    matmul_share = same_chip[0].matmul_flops / presets.gpu(measured.gpu).peak_flops[precision] if same_chip else bf16_share
    clock = power_limited_share(g.power_limited_peak_flops, g.peak_flops["bf16"])
    return Gpu(peak_flops=peak, attention_peak_flops=g.peak_flops["bf16"], matmul_share=clock * matmul_share,
               bf16_matmul_share=clock * bf16_share, attention_share=clock * g.attention_share,
               hbm_bytes_per_s=g.hbm_bytes_per_s, sms=g.streaming_multiprocessors, memory_bytes=g.memory_bytes,
               scale_up_gpus=g.nvlink_domain_gpus, scale_up_bytes_per_s=up.bandwidth_bytes_per_s,
               scale_out_bytes_per_s=out.bandwidth_bytes_per_s, scale_up_latency_seconds=up.latency_seconds,
               scale_out_latency_seconds=out.latency_seconds)


def power_limited_share(power_limited_peak_flops: "float | None", peak_flops: float) -> float:
    """c = P_limited / P_peak, the share of its datasheet's dense BF16 peak a part held below its datasheet's power
    reaches (1 when no limit is given): the power limit lowers the clock, and every rate of its tensor cores with it
    (matrix multiplies at any precision, attention), while its memory bandwidth stays. Its MFU still divides by the
    datasheet's peak, as the run's source does (torchtitan's H100 benchmarks at 500 W divide by the SXM's 989 TFLOPS)."""
    peak = positive("peak_flops", peak_flops)
    if power_limited_peak_flops is None:
        return 1.0
    if positive("power_limited_peak_flops", power_limited_peak_flops) > peak:
        raise EstimatorError("power_limited_peak_flops", power_limited_peak_flops,
                             f"at most the datasheet's peak ({peak:g})")
    return power_limited_peak_flops / peak
