"""Cutting one training job across GPUs: the traffic each cut creates, and its time on the link.

Ring collectives (Patarasuk & Yuan 2009, the algorithm NCCL uses): among N
GPUs, an all-reduce of V values sends 2(N−1)/N · V values from each GPU (a
reduce-scatter then an all-gather, (N−1)/N · V each).

Data parallelism (Rajbhandari et al. 2020, "ZeRO", §7.2): gradients of Ψ
values are all-reduced every step, 2(N−1)/N · Ψ per GPU; ZeRO stages 1 and 2
replace the all-reduce by a reduce-scatter plus an all-gather of the same
volume; stage 3 all-gathers the weights again for the backward pass, 3(N−1)/N
· Ψ, 1.5× the others (§7.2.2).

Tensor parallelism (Shoeybi et al. 2019, "Megatron-LM", §3, figure 4): each
layer's attention and MLP end with an all-reduce of the s·b·h activations in
the forward pass, and begin with one of their gradients in the backward pass:
four all-reduces of s·b·h values per layer and micro-batch, 2(t−1)/t each.

Pipeline parallelism (Huang et al. 2019, "GPipe"; Narayanan et al. 2021,
"Efficient Large-Scale Language Model Training on GPU Clusters", §2.2): each
stage sends its s·b·h output activations forward and receives their gradients
back, point to point, once per micro-batch.

Context parallelism as Llama 3 runs it (Llama Team 2024, §3.3.2): each of cp
GPUs holds s/cp tokens of every sequence and all-gathers the keys and values
of the whole sequence before attention; the backward pass reduce-scatters
their gradients: 2 × (cp−1)/cp × 2·s·b·h_kv values per layer and micro-batch,
h_kv being the width of the key (or value) heads.

Expert parallelism (Lepikhin et al. 2021, "GShard", §2.2; Fedus et al. 2022,
"Switch Transformers"): each GPU holds E/ep experts; a MoE layer sends every
token's h-vector to its k experts (all-to-all dispatch) and brings the results
back (combine), in the forward pass and again in the backward pass. With
routing spread evenly, (ep−1)/ep of those vectors leave the GPU: 4 · k · s·b·h ·
(ep−1)/ep values per MoE layer and micro-batch.

Each cut's time is the step model's (estimators.step_time): its collectives
timed by the α–β model on the link its group crosses (group_link: NVLink inside
a server; across servers a ring's or tree's group on as many network cards as
it has GPUs in each server, an all-to-all or a pipeline send on one card), with
no overlap with compute, beside the step's arithmetic as that model times it:
a floor on the time the bytes take, and the time a step waits if the traffic
is not hidden behind arithmetic.
"""

import math
from dataclasses import dataclass

from .errors import EstimatorError
from .memory import ZERO_STAGES, zero_bytes_per_gpu
from .model_size import DecoderConfig, decoder_params
from .moe import MoeConfig, moe_params
from .presets import load_presets
from .provenance import quantity
from .step_time import (Gpu, Setup, context_parallel_seconds, expert_all_to_all_seconds, gpu_preset, group_link,
                        members_per_server, shape_of, step_seconds, tensor_parallel_seconds)
from .validate import finite_result, non_negative, one_of, positive, positive_int

BF16_BYTES = 2  # one 16-bit value of a gradient, activation or weight
ALL_REDUCE_RING_PASSES = 2  # reduce-scatter + all-gather
ZERO3_RING_PASSES = 3  # + the weights all-gathered again for the backward pass (ZeRO §7.2.2)
TP_ALL_REDUCES_PER_LAYER = 4  # two forward (attention, MLP), two backward (Megatron-LM §3)
PIPELINE_DIRECTIONS = 2  # activations forward, their gradients backward
CP_PASSES = 2  # all-gather of K and V forward, reduce-scatter of their gradients backward
KV_TENSORS = 2  # keys and values
EP_ALL_TO_ALLS = 4  # dispatch and combine, forward and backward

# The six cuts, in the order the page explains them: what each splits, the collective it runs.
CUTS = {
    "dp": "Data parallelism",
    "tp": "Tensor parallelism",
    "pp": "Pipeline parallelism",
    "cp": "Context (sequence) parallelism",
    "ep": "Expert parallelism",
    "zero": "ZeRO-3 / FSDP",
}
COLLECTIVES = {
    "dp": "all-reduce of the gradients",
    "tp": "all-reduce of the activations, four per layer",
    "pp": "point-to-point: activations forward, gradients back",
    "cp": "all-gather of keys and values, reduce-scatter of their gradients",
    "ep": "all-to-all: tokens to their experts and back",
    "zero": "all-gather of the weights (twice), reduce-scatter of the gradients",
}
# Megatron-LM's order of the nested groups, innermost (neighbouring GPUs) first; Llama 3 §3.3.2 uses the same.
NESTING = ("tp", "cp", "pp", "dp")


def _ring_share(gpus: int) -> float:
    """(N−1)/N: the share of a ring collective's data each GPU sends; 0 for one GPU."""
    n = positive_int("gpus", gpus)
    return (n - 1) / n


def data_parallel_traffic_bytes(params: float, gpus: int, zero_stage: int = 0, bytes_per_value: float = BF16_BYTES) -> float:
    """Bytes each GPU sends per step to synchronise gradients: 2(N−1)/N·Ψ values, 3(N−1)/N·Ψ at ZeRO-3 (ZeRO §7)."""
    psi = positive("params", params)
    share = _ring_share(positive_int("gpus", gpus))
    passes = ZERO3_RING_PASSES if one_of("zero_stage", zero_stage, ZERO_STAGES) == 3 else ALL_REDUCE_RING_PASSES
    return finite_result("data_parallel_traffic_bytes", passes * share * psi * positive("bytes_per_value", bytes_per_value))


def tensor_parallel_traffic_bytes(seq_len: int, micro_batch: int, hidden: int, layers: int, tp: int,
                                  bytes_per_value: float = BF16_BYTES) -> float:
    """Bytes each GPU sends per micro-batch under Megatron tensor parallelism: 4 all-reduces of s·b·h a layer.

    L × 4 × 2(t−1)/t × s·b·h values (Megatron-LM §3).
    """
    sbh = positive("seq_len", seq_len) * positive_int("micro_batch", micro_batch) * positive_int("hidden", hidden)
    per_layer = TP_ALL_REDUCES_PER_LAYER * ALL_REDUCE_RING_PASSES * _ring_share(positive_int("tp", tp)) * sbh
    total = positive("layers", layers) * per_layer * positive("bytes_per_value", bytes_per_value)
    return finite_result("tensor_parallel_traffic_bytes", total)


def pipeline_traffic_bytes(seq_len: int, micro_batch: int, hidden: int, bytes_per_value: float = BF16_BYTES) -> float:
    """Bytes crossing one stage boundary per micro-batch: s·b·h activations forward, s·b·h gradients back."""
    sbh = positive("seq_len", seq_len) * positive_int("micro_batch", micro_batch) * positive_int("hidden", hidden)
    return finite_result("pipeline_traffic_bytes", PIPELINE_DIRECTIONS * sbh * positive("bytes_per_value", bytes_per_value))


def context_parallel_traffic_bytes(seq_len: int, micro_batch: int, kv_hidden: float, layers: int, cp: int,
                                   bytes_per_value: float = BF16_BYTES) -> float:
    """Bytes each GPU sends per micro-batch under Llama 3's all-gather context parallelism.

    L × 2 × (cp−1)/cp × 2·s·b·h_kv values: keys and values of the whole
    sequence gathered forward, their gradients reduce-scattered backward.
    """
    kv = KV_TENSORS * positive("seq_len", seq_len) * positive_int("micro_batch", micro_batch) * positive("kv_hidden", kv_hidden)
    per_layer = CP_PASSES * _ring_share(positive_int("cp", cp)) * kv
    total = positive("layers", layers) * per_layer * positive("bytes_per_value", bytes_per_value)
    return finite_result("context_parallel_traffic_bytes", total)


def expert_parallel_traffic_bytes(seq_len: int, micro_batch: int, hidden: int, moe_layers: float, top_k: int, ep: int,
                                  bytes_per_value: float = BF16_BYTES) -> float:
    """Bytes each GPU sends per micro-batch in expert-parallel all-to-alls, routing spread evenly.

    L_moe × 4 × k × s·b·h × (ep−1)/ep values (GShard §2.2): dispatch and combine, forward and backward.
    """
    sbh = positive("seq_len", seq_len) * positive_int("micro_batch", micro_batch) * positive_int("hidden", hidden)
    routed = positive_int("top_k", top_k) * sbh * _ring_share(positive_int("ep", ep))
    total = non_negative("moe_layers", moe_layers) * EP_ALL_TO_ALLS * routed * positive("bytes_per_value", bytes_per_value)
    return finite_result("expert_parallel_traffic_bytes", total)


@dataclass(frozen=True)
class Layout:
    """How a job is cut: the degree of each nested dimension (1: not cut that way)."""

    tp: int = quantity("tensor-parallel GPUs per layer", "integer", default=1)
    cp: int = quantity("context-parallel GPUs per sequence", "integer", default=1)
    pp: int = quantity("pipeline stages", "integer", default=1)
    dp: int = quantity("data-parallel replicas", "integer", default=1)
    ep: int = quantity("expert-parallel GPUs, drawn from the data-parallel ones (MoE only)", "integer", default=1)
    zero_stage: int = quantity("ZeRO stage over the data-parallel replicas (3: FSDP)", "integer", default=0)

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp * self.dp


@dataclass(frozen=True)
class CutTraffic:
    """One dimension of a layout: its GPUs, what it sends per step, and over which link."""

    cut: str  # a key of CUTS
    group_gpus: int = quantity("GPUs that talk to one another in this dimension", "integer")
    span_gpus: int = quantity("neighbouring GPUs its groups reach across: inner degrees × its own", "integer")
    traffic_bytes: float = quantity("bytes each GPU sends per step in this dimension", "bytes")
    scale_up: bool  # the group fits inside one NVLink (scale-up) domain
    bytes_per_s: float = quantity(
        "bandwidth per GPU its collective runs at: NVLink's inside a server; across servers a ring's or tree's on its "
        "GPUs' network cards in each server, an all-to-all's or a send's on one card", "si", unit="B/s")
    link_seconds: float = quantity(
        "the step model's α–β time of the cut's collectives in one step, on the link its group crosses, none overlapped",
        "duration")
    comm_ratio: float = quantity("the cut's time on its link / the step's arithmetic: above 1, this cut alone is communication-bound", "times")
    every_micro_batch: bool  # its collective runs once per micro-batch (tp, cp, pp, ep, ZeRO-3), not once a step (dp)
    micro_batch_bytes: float = quantity(
        "bytes each GPU sends per micro-batch in this dimension: traffic / micro-batches, or a once-a-step collective's whole step",
        "bytes")


@dataclass(frozen=True)
class LayoutTraffic:
    """The traffic a layout creates in one training step, per GPU, next to the step's arithmetic."""

    layout: Layout
    micro_batches: int = quantity("per data-parallel replica, per step", "integer")
    cuts: tuple[CutTraffic, ...]  # every dimension cut (degree > 1), innermost first
    compute_seconds: float = quantity(
        "the step model's arithmetic on the busiest GPU in one step: matrix multiplies, attention and memory-bound kernels",
        "duration")
    link_seconds: float = quantity("the cuts' link times added (none overlapped)", "duration")
    comm_ratio: float = quantity("time on the link / the step's arithmetic: above 1, communication-bound unless hidden", "times")


def kv_width(config) -> float:
    """G·h: the width of one token's keys (or values), G key/value heads of h values (h = d/H unless the config says).

    MLA caches a compressed latent but attends over full per-head keys and
    values: H heads of d/H, d in all.
    """
    if isinstance(config, DecoderConfig):
        return config.d_model * config.kv_heads / config.heads
    if isinstance(config, MoeConfig):
        # GQA's are G heads of the config's head width (Qwen3's 128 on d/H = 64), d/H when it gives none.
        return config.d_model if config.mla else config.kv_heads * (config.head_dim or config.d_model / config.heads)
    raise EstimatorError("config", config, "a decoder configuration (DecoderConfig or MoeConfig)")


def _shape(config) -> tuple:
    """(layers, hidden, key/value width, MoE layers, top-k, params, routed-expert params, active params)."""
    if isinstance(config, DecoderConfig):
        params = decoder_params(config).total
        return config.layers, config.d_model, kv_width(config), 0, 0, params, 0, params
    if isinstance(config, MoeConfig):
        p = moe_params(config)
        # Routed experts: total − active is (E − k) experts in every MoE block.
        routed = (p.total - p.active) * config.routed_experts / (config.routed_experts - config.top_k)
        return (config.layers, config.d_model, kv_width(config), config.layers - config.dense_layers, config.top_k,
                p.total, routed, p.active)
    raise EstimatorError("config", config, "a decoder configuration (DecoderConfig or MoeConfig)")


def layout_traffic(config, layout: Layout, seq_len: int, micro_batch: int, global_batch: int, gpu: Gpu) -> LayoutTraffic:
    """Per-GPU traffic of each cut of a layout in one step of a batch of B sequences, and its time on its link.

    Nested as Megatron-LM and Llama 3 nest them (tp innermost, then cp, pp,
    dp): a dimension whose groups span no more than the GPU's scale-up domain
    stays on NVLink, else it crosses the scale-out network. Each GPU holds
    L/pp layers of Ψ/(tp·pp) parameters and s/cp tokens of each sequence; with
    sequence parallelism the activations a stage sends are split over its tp
    GPUs too. Data-parallel gradients are reduced over dp·cp GPUs
    (context-parallel GPUs hold the same weights); at ZeRO-3 the weights are
    gathered and the gradients reduced for every micro-batch, as FSDP runs it.
    Each cut is timed by the step model (estimators.step_time, the α–β model
    on group_link's link) for a step of 1F1B, no recomputation, sequence
    parallelism and Megatron-LM's kernels: tp, cp and ep as m × (the layers
    each GPU holds) × their per-block collectives, pp and dp as the step's
    sends and data-parallel collectives; comm_ratio = link seconds / the
    step's arithmetic on its busiest GPU.
    """
    if not isinstance(layout, Layout):
        raise EstimatorError("layout", layout, "a parallelism.Layout")
    if not isinstance(gpu, Gpu):
        raise EstimatorError("gpu", gpu, "a step_time.Gpu (gpu_preset builds one)")
    for name in ("tp", "cp", "pp", "dp", "ep"):
        positive_int(name, getattr(layout, name))
    layers, hidden, kv, moe_layers, top_k, params, routed, active = _shape(config)
    s, b = positive_int("seq_len", seq_len), positive_int("micro_batch", micro_batch)
    if layout.pp > layers:
        raise EstimatorError("pp", layout.pp, f"at most the model's {layers} layers")
    if layout.ep > 1 and not moe_layers:
        raise EstimatorError("ep", layout.ep, "1: a dense model has no experts to spread")
    if layout.dp % layout.ep:
        raise EstimatorError("ep", layout.ep, f"a divisor of the data-parallel degree ({layout.dp})")
    if s % layout.cp:
        raise EstimatorError("cp", layout.cp, f"a divisor of the sequence length ({s})")
    batch = positive_int("global_batch", global_batch)
    if batch % (layout.dp * b):
        raise EstimatorError("global_batch", batch, f"a multiple of data-parallel replicas × micro-batch ({layout.dp * b})")
    m = batch // (layout.dp * b)
    stage_layers = layers / layout.pp
    local_tokens = s / layout.cp  # tokens of each sequence on one GPU
    zero3 = layout.zero_stage == 3
    # What each dimension sends for one micro-batch (for dp, once a step: the gradients of the whole batch; at ZeRO-3
    # once a micro-batch).
    once = {
        "tp": tensor_parallel_traffic_bytes(local_tokens, b, hidden, stage_layers, tp=layout.tp),
        "cp": context_parallel_traffic_bytes(s, b, kv / layout.tp, stage_layers, cp=layout.cp),
        "pp": 0 if layout.pp == 1 else pipeline_traffic_bytes(local_tokens / layout.tp, b, hidden),
        # Expert parallelism keeps one copy of each expert per ep GPUs: only 1/ep of the experts' gradients are here.
        "dp": data_parallel_traffic_bytes((params - routed * (1 - 1 / layout.ep)) / (layout.tp * layout.pp),
                                          layout.dp * layout.cp, layout.zero_stage),
        "ep": expert_parallel_traffic_bytes(local_tokens / layout.tp, b, hidden, moe_layers / layout.pp, top_k=top_k,
                                            ep=layout.ep)
        if moe_layers else 0.0,
    }
    traffic = {dim: bytes_ if dim == "dp" and not zero3 else m * bytes_ for dim, bytes_ in once.items()}
    seconds = _cut_seconds(config, layout, s, b, batch, gpu)
    cuts, span = [], 1
    for dim in NESTING + ("ep",):
        degree = getattr(layout, dim)
        if dim != "ep":
            span *= degree
        # Gradients are reduced over dp·cp GPUs: context-parallel GPUs hold the same weights.
        group = layout.dp * layout.cp if dim == "dp" else degree
        if group == 1:
            continue
        key = "zero" if dim == "dp" and zero3 else dim
        cuts.append(CutTraffic(key, group, span, traffic[dim], scale_up=span <= gpu.scale_up_gpus,
                               bytes_per_s=_cut_link(dim, layout, gpu), link_seconds=seconds[dim], comm_ratio=seconds[dim] / seconds["compute"],
                               every_micro_batch=dim != "dp" or zero3, micro_batch_bytes=once[dim]))
    comm = math.fsum(c.link_seconds for c in cuts)
    return LayoutTraffic(layout, m, tuple(cuts), seconds["compute"], link_seconds=comm, comm_ratio=comm / seconds["compute"])


def _cut_link(dim: str, layout: Layout, gpu: Gpu) -> float:
    """The bandwidth per GPU group_link gives a cut's collective, with the arguments the step model's timing of that cut
    passes it: TP's all-reduces inside its group, CP's gathers on its members per server, the pipeline's sends and the
    experts' all-to-alls on one card, the data-parallel group's reductions on its members per server."""
    tp, cp, pp, dp, ep, s = layout.tp, layout.cp, layout.pp, layout.dp, layout.ep, gpu.scale_up_gpus
    kind, span, per_server = {
        "tp": ("all_reduce", tp, min(tp, s)),
        "cp": ("all_gather", tp * cp, max(1, min(cp, s // tp))),
        "pp": ("p2p", tp * cp * pp, 1),
        "dp": ("all_reduce", tp * cp * pp * dp, members_per_server(tp, cp, pp, gpu)),
        "ep": ("all_to_all", tp * cp * ep, 1),
    }[dim]
    return group_link(kind, span, per_server, gpu)[0]


def _cut_seconds(config, layout: Layout, seq_len: int, micro_batch: int, global_batch: int, gpu: Gpu) -> dict:
    """{dimension: seconds per step} of each cut's collectives, and the step's arithmetic ("compute"), from the step
    model: per block times × m × the layers each GPU holds (L/pp, L_moe/pp for the experts) for tp, cp and ep; the
    step's pipeline sends and data-parallel collectives (each micro-batch's at ZeRO-3) for pp and dp."""
    shape = shape_of(config)
    setup = Setup(tp=layout.tp, cp=layout.cp, pp=layout.pp, dp=layout.dp, ep=layout.ep, zero_stage=layout.zero_stage,
                  micro_batch=micro_batch)
    step = step_seconds(shape, setup, gpu, seq_len, global_batch)
    blocks = step.micro_batches * shape.layers / layout.pp
    tokens = micro_batch * seq_len / layout.cp
    return {
        "tp": blocks * tensor_parallel_seconds(shape, setup, tokens, gpu),
        "cp": blocks * context_parallel_seconds(shape, setup, seq_len, gpu),
        "pp": step.pp_seconds,
        "dp": step.dp_seconds,
        "ep": blocks * shape.moe_layers / shape.layers * expert_all_to_all_seconds(shape, setup, tokens, gpu),
        "compute": step.gemm_seconds + step.attention_seconds + step.memory_bound_seconds + step.recompute_seconds,
    }


@dataclass(frozen=True)
class Slice:
    """What one GPU holds after a cut, as [start, end) shares of the whole (0 to 1)."""

    layers: tuple  # of the model's depth
    width: tuple  # of every weight matrix's columns
    state: tuple  # of the optimizer state and gradients kept between steps
    batch: tuple  # of the step's sequences
    tokens: tuple  # of each sequence
    experts: tuple  # of the experts of each MoE layer


def cut_slices(cut: str, gpus: int) -> tuple:
    """The Slice each of `gpus` GPUs holds under one cut: its own share along the dimension the cut splits."""
    cut = one_of("cut", cut, CUTS)
    n = positive_int("gpus", gpus)
    whole = (0.0, 1.0)
    # The dimensions each cut splits; ZeRO-3 splits the batch and every layer's weights with their
    # state (each GPU keeps its shard of each weight matrix, gathering the rest only while a layer
    # runs), expert parallelism the experts and the batch.
    split = {
        "dp": ("batch",), "tp": ("width", "state"), "pp": ("layers", "state"), "cp": ("tokens",),
        "ep": ("experts", "batch"), "zero": ("width", "state", "batch"),
    }[cut]

    def one(i: int) -> Slice:
        own = (i / n, (i + 1) / n)
        return Slice(**{f: own if f in split else whole for f in ("layers", "width", "state", "batch", "tokens", "experts")})

    return tuple(one(i) for i in range(n))


# What each cut's collective carries from one GPU to another.
CARRIES = {
    "dp": "gradients", "tp": "partial activations", "cp": "keys and values", "zero": "weights and gradients",
}
PIPELINE_CARRIES = ("activations", "gradients")  # forward to the next stage; backward to the one before
EXPERT_CARRIES = "tokens"  # to the GPU holding each token's expert, and the results back


@dataclass(frozen=True)
class CutSend:
    """One GPU sending to another in a cut's collective (GPUs counted from 0)."""

    source: int
    target: int
    carries: str  # what travels, in words


def send_bytes(cut: str, traffic_bytes: float, gpus: int) -> float:
    """Bytes one send of a cut's collective carries a step, from the bytes each GPU sends a step.

    A ring's GPU sends all of them to its neighbour; a pipeline stage half each way (its
    activations forward, their gradients back: s·b·h each); an all-to-all's GPU spreads them
    evenly over the other gpus − 1 (routing spread evenly, as expert_parallel_traffic_bytes has it).
    """
    cut = one_of("cut", cut, CUTS)
    traffic = non_negative("traffic_bytes", traffic_bytes)
    n = positive_int("gpus", gpus)
    if n == 1:
        return 0.0
    if cut == "pp":
        return traffic / PIPELINE_DIRECTIONS
    if cut == "ep":
        return traffic / (n - 1)
    return traffic


def cut_sends(cut: str, gpus: int) -> tuple:
    """Who sends to whom under one cut: a ring (i → i+1, the last back to the first) for the
    all-reduce and all-gather cuts (Patarasuk & Yuan 2009); neighbouring stages for a pipeline,
    activations forward and gradients back (GPipe); every GPU to every other for experts (GShard)."""
    cut = one_of("cut", cut, CUTS)
    n = positive_int("gpus", gpus)
    if n == 1:
        return ()
    if cut == "pp":
        forward, backward = PIPELINE_CARRIES
        return tuple(CutSend(i, i + 1, forward) for i in range(n - 1)) + tuple(CutSend(i + 1, i, backward) for i in range(n - 1))
    if cut == "ep":
        return tuple(CutSend(i, j, EXPERT_CARRIES) for i in range(n) for j in range(n) if i != j)
    return tuple(CutSend(i, (i + 1) % n, CARRIES[cut]) for i in range(n))


@dataclass(frozen=True)
class GpuShare:
    """What one GPU holds under a layout, in numbers."""

    params: float = quantity("parameters whose weights it keeps: Ψ/(tp·pp), experts split over ep", "count")
    layers: float = quantity("L/pp")
    state_bytes: float = quantity("model state (mixed-precision Adam) under the layout's ZeRO stage", "bytes")
    sequences: float = quantity("sequences of each step it processes: B/dp")
    tokens_per_sequence: float = quantity("s/cp")


def gpu_share(config, layout: Layout, seq_len: int, global_batch: int, optimizer: str = "adam") -> GpuShare:
    """The share of the model, its state and the step's data that one GPU of a layout holds."""
    layers, _, _, _, _, params, routed, _ = _shape(config)
    held = (params - routed * (1 - 1 / positive_int("ep", layout.ep))) / (positive_int("tp", layout.tp) * positive_int("pp", layout.pp))
    state = zero_bytes_per_gpu(held, layout.dp, layout.zero_stage, optimizer)
    return GpuShare(held, layers / layout.pp, state, positive_int("global_batch", global_batch) / positive_int("dp", layout.dp),
                    tokens_per_sequence=positive_int("seq_len", seq_len) / positive_int("cp", layout.cp))


def single_cut_layout(cut: str, gpus: int) -> Layout:
    """The layout of one cut alone over `gpus` GPUs (expert parallelism spreads experts over data-parallel GPUs)."""
    n = positive_int("gpus", gpus)
    return {
        "dp": Layout(dp=n), "tp": Layout(tp=n), "pp": Layout(pp=n), "cp": Layout(cp=n),
        "ep": Layout(dp=n, ep=n), "zero": Layout(dp=n, zero_stage=3),
    }[one_of("cut", cut, CUTS)]


PRECISION = "bf16"  # the precision the published layouts report their MFU in


def layout_preset_traffic(key: str) -> LayoutTraffic:
    """The traffic of a published layout (a `layouts` preset) on its own GPUs, links and batch."""
    presets = load_presets()
    lay = presets.layout(key)
    return layout_traffic(presets.model(lay.model).config, Layout(tp=lay.tp, cp=lay.cp, pp=lay.pp, dp=lay.dp), lay.seq_len,
                          lay.micro_batch, global_batch=lay.global_batch,
                          gpu=gpu_preset(lay.gpu, lay.scale_up, lay.scale_out, PRECISION))


def replica_sequences(global_batch: int, dp: int) -> int:
    """B / DP: the sequences of each step one data-parallel replica processes (B a whole multiple of DP)."""
    b, d = positive_int("global_batch", global_batch), positive_int("dp", dp)
    if b % d:
        raise EstimatorError("global_batch", global_batch, f"a whole multiple of dp ({d})")
    return b // d
