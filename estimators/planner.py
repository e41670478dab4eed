"""Planning a job's layout: every TP × CP × PP × DP × EP cut of a cluster, its memory, step time and MFU, ranked.

For each layout that divides the cluster and the model, with a ZeRO stage, a
recomputation mode and a number of interleaved pipeline chunks v per stage:

- memory per GPU: the first pipeline stage's bill, the fullest (memory_bill's
  convention, after Megatron-LM's theoretical memory): its share of the
  weights under ZeRO (memory.training_memory_per_gpu), experts split over ep
  GPUs and their state sharded over the dp·cp/ep GPUs that hold the same
  experts, plus 1F1B's L layers' worth of activations
  (memory.activation_bytes_per_layer, with sequence parallelism, over the s/cp
  tokens each GPU holds). Interleaving keeps more in flight: × (1 + (p − 1)/(p·v))
  (Megatron-LM's theoretical_memory_usage.py, its interleaved_schedule_memory_penalty).
- compute: the hardware FLOPs over GPUs × peak × matmul efficiency, where the
  efficiency is a measured ceiling of the GPU's matrix multiply (a
  `matmul_rates` preset), not a utilisation fitted to a run. Model FLOPs per
  token are 6·N_active (Kaplan et al. 2020) plus causal attention,
  3·s·H·(d_qk + d_v) per layer (PaLM's 12·L·H·Q·T, appendix B, halved by the
  causal mask that FlashAttention skips). Selective recomputation adds the
  attention core's forward again (a third of its FLOPs, Korthikanti et al.
  2022 §5); full recomputation the whole forward, 2·N_active per token plus
  that third.
- traffic: parallelism.layout_traffic, each cut on the link it crosses; the
  pipeline's sends × v (each chunk boundary is crossed once per micro-batch).
- the bubble: (p − 1)/m for 1F1B, (p − 1)/(v·m) for the interleaved schedule
  (Narayanan et al. 2021, §2.2).

Step time = (compute + TP + CP + EP + PP link time) × (1 + bubble) + exposed DP
time, and MFU = model FLOPs / (step time × GPUs × peak). What overlaps:

- tensor-, context- and expert-parallel collectives and the pipeline's sends
  sit between the matrix multiplies that need their results: none overlaps
  (an upper bound on their cost: asynchronous TP, DualPipe and the like hide some);
- data-parallel gradients (ZeRO 0–2) are reduced while the last micro-batch's
  backward pass runs, 2/3 of its compute (the backward is 4N of a token's 6N):
  only what exceeds that is exposed;
- ZeRO-3's weight gathers are prefetched a layer ahead through the whole step
  (as FSDP does), and counted once per step (weights stay gathered across the
  micro-batches of a step, as torchtitan keeps them under pipelining).

Links have no latency and reach their full bandwidth; routing is even; the
arithmetic of norms, activations and the loss is left out. The prediction is
therefore a ceiling: a real run's MFU lands below it.

Rejected, by reason: TP wider than a scale-up domain; a degree that divides
neither the heads (TP), the layers (PP: whole stages of ⌈L/p⌉ layers, the
first and last sharing the remainder), the sequence (CP), the experts or the
data-parallel GPUs (EP), nor the batch (DP); fewer micro-batches than
stages; and a layout none of whose ZeRO stages and recomputation modes fits.

The enumeration, pruned without losing a best layout: the micro-batch is one
sequence (a larger one only lengthens the bubble, at equal traffic per token,
in this model); a TP degree wider than a scale-up domain or splitting the
heads rejects every layout under it, counted without building one; the other
degrees are checked as whole numbers before any memory is counted; a layout
fits when its lightest choice does (one chunk, the recomputation that keeps
least), and for each recomputation and v only the lowest ZeRO stage that fits
is kept (stages 0–2 take equal time, 3 no less); memory is tried before
traffic, which is counted only for layouts that fit, one layer and one
micro-batch's worth once for every (tp, cp) (the traffic formulas are linear
in both); each layout that fits gets a bound on every choice's step
(its fastest compute, one chunk's sends, its widest interleaving's bubble, the
least exposed data-parallel time), and its choices are counted only when that
bound could come next; and the choices are evaluated in full (their cuts,
through parallelism.layout_traffic) in order of their step time counted from
the same formulas without the cuts, a hair below it, stopping once none can
beat the best few (branch and bound: exact, it never drops a layout that
would rank).
"""

import heapq
import math
from dataclasses import dataclass
from functools import cache

from .errors import EstimatorError
from .memory import (
    FIT_TOLERANCE,
    OPTIMIZERS,
    ZERO_STAGES,
    activation_bytes_per_layer,
    activation_output_bytes,
    memory_fit,
    training_memory_per_gpu,
    zero_breakdown,
)
from .memory_bill import first_stage_params
from .model_size import DecoderConfig, decoder_params, linear_params, mlp_params
from .moe import MoeConfig, moe_params
from .parallelism import (Layout, context_parallel_traffic_bytes, data_parallel_traffic_bytes, expert_parallel_traffic_bytes, kv_width, layout_traffic,
                          link_seconds, pipeline_traffic_bytes, tensor_parallel_traffic_bytes)
from .presets import load_presets
from .provenance import quantity
from .validate import fraction, one_of, positive, positive_int

FLOPS_PER_PARAM_TOKEN = 6  # 2 forward + 4 backward per parameter per token (Kaplan et al. 2020, §2.1)
FORWARD_FLOPS_PER_PARAM_TOKEN = 2  # the forward alone: what full recomputation repeats
TRAINING_PASSES = 3  # forward + backward, the backward twice the forward: 3 forwards' worth
BACKWARD_SHARE = 4 / 6  # the backward's 4N of a token's 6N: the window DP gradients overlap with
CAUSAL_SHARE = 1 / 2  # a causal mask leaves half of the s × s scores to compute
MATMUL_FLOPS_PER_MAC = 2  # one multiply and one add
MICRO_BATCH = 1  # sequences per micro-batch (see the module docstring)
RECOMPUTE_ORDER = ("none", "selective", "full")  # cheapest arithmetic first
BEST = 5  # layouts a plan returns in full
FLOOR_MARGIN = 1 - 1e-12  # a floor's own rounding must never lift it above the step it bounds
REJECTIONS = {
    "tp_crosses_scale_up": "TP crosses a scale-up domain",
    "tp_heads": "TP does not divide the heads",
    "pp_layers": "PP splits the layers into no whole stages",
    "cp_sequence": "CP does not divide the sequence",
    "ep_experts": "EP divides neither the experts nor the data-parallel GPUs",
    "dp_batch": "DP does not divide the batch",
    "micro_batches": "fewer micro-batches than stages",
    "memory": "does not fit in memory",
}
# The degree each structural rejection names when one layout is asked for.
REJECTED_ARGUMENT = {"tp_crosses_scale_up": "tp", "tp_heads": "tp", "pp_layers": "pp", "cp_sequence": "cp",
                     "ep_experts": "ep", "dp_batch": "dp", "micro_batches": "pp"}


@dataclass(frozen=True)
class Cluster:
    """The GPUs a job runs on: how many, how fast, how much memory, and the links between them."""

    gpus: int = quantity("GPUs in the job", "integer")
    peak_flops_per_gpu: float = quantity("dense peak per GPU", "si", unit="FLOP/s")
    memory_bytes: float = quantity("memory per GPU", "bytes", binary=True)
    scale_up_gpus: int = quantity("GPUs per scale-up (NVLink) domain", "integer")
    scale_up_bytes_per_s: float = quantity("scale-up bandwidth per GPU, one direction", "si", unit="B/s")
    scale_out_bytes_per_s: float = quantity("scale-out bandwidth per GPU, one direction", "si", unit="B/s")
    matmul_efficiency: float = quantity("measured matmul ceiling / peak", "percent")

    def __post_init__(self):
        positive_int("gpus", self.gpus)
        positive_int("scale_up_gpus", self.scale_up_gpus)
        for name in ("peak_flops_per_gpu", "memory_bytes", "scale_up_bytes_per_s", "scale_out_bytes_per_s"):
            positive(name, getattr(self, name))
        fraction("matmul_efficiency", self.matmul_efficiency)


def cluster_preset(gpu: str, gpus: int, scale_up: str, scale_out: str, matmul_rate: str, precision: str = "bf16") -> Cluster:
    """A cluster of `gpus` preset GPUs on preset links, its matmul efficiency the measured rate / the peak."""
    presets = load_presets()
    g, rate = presets.gpu(gpu), presets.matmul_rate(matmul_rate)
    peak = g.peak_flops[one_of("precision", precision, tuple(g.peak_flops))]
    if rate.precision != precision:
        raise EstimatorError("matmul_rate", matmul_rate, f"a rate measured in {precision}, the precision of the peak")
    # A GPU that ships in no NVLink domain reaches its neighbours over the scale-out network: a domain of one.
    return Cluster(gpus, peak, g.memory_bytes, g.nvlink_domain_gpus or 1, presets.interconnect(scale_up).bandwidth_bytes_per_s,
                   presets.interconnect(scale_out).bandwidth_bytes_per_s, rate.matmul_flops / peak)


def pipeline_bubble(pp: int, micro_batches: int, chunks: int = 1) -> float:
    """The pipeline's idle share of a step: (p − 1)/(v·m) (1F1B at v = 1; Narayanan et al. 2021, §2.2)."""
    p, m, v = positive_int("pp", pp), positive_int("micro_batches", micro_batches), positive_int("chunks", chunks)
    return (p - 1) / (v * m)


@dataclass(frozen=True)
class _Model:
    layers: int
    heads: int
    kv_heads: int  # of the activations' keys and values (MLA attends over full per-head keys)
    hidden: int
    vocab: int
    attention_width: int  # H·(d_qk + d_v), the attention core's width per token
    active: float
    routed: float  # routed-expert parameters of the whole model
    moe_layers: int
    dense_layers: int
    dense_ffn: int
    moe_ffn: int  # width of the (k + S) experts a token passes through, as one MLP
    mlp: str
    dropout: bool
    experts: int
    top_k: int
    kv_width: float  # G·h, one token's keys (parallelism.kv_width): what context parallelism gathers
    params: float  # every parameter stored, whose gradients data parallelism reduces


def _model(config) -> _Model:
    if isinstance(config, DecoderConfig):
        c = config
        # Q·Kᵀ and ·V each H·(d/H) = d wide: the attention core is 2d wide per token.
        return _Model(c.layers, c.heads, c.kv_heads, c.d_model, c.vocab, 2 * c.d_model, decoder_params(c).total, 0, 0, c.layers,
                      c.ffn_dim, 0, c.mlp, c.dropout, 0, 0, kv_width(c),
                      decoder_params(c).total)
    if isinstance(config, MoeConfig):
        c = config
        p = moe_params(c)
        moe_layers = c.layers - c.dense_layers
        routed = moe_layers * c.routed_experts * mlp_params(c.d_model, c.expert_ffn_dim)
        if c.mla is None:
            # Q·Kᵀ and ·V each H·h wide, h the config's head width (Qwen3's 128 on d/H = 64), d/H when it gives none.
            width, kv = 2 * c.heads * (c.head_dim or c.d_model // c.heads), c.kv_heads
        else:
            width, kv = c.heads * (c.mla.qk_nope_head_dim + c.mla.qk_rope_head_dim + c.mla.v_head_dim), c.heads
        # Each token keeps the activations of the k routed and S shared experts it passes through: one MLP k + S wide.
        moe_ffn = (c.top_k + c.shared_experts) * c.expert_ffn_dim
        return _Model(c.layers, c.heads, kv, c.d_model, c.vocab, width, p.active, routed, moe_layers,
                      c.dense_layers, c.dense_ffn_dim, moe_ffn, "swiglu", False, c.routed_experts, c.top_k, kv_width(c),
                      p.total)
    raise EstimatorError("config", config, "a decoder configuration (DecoderConfig or MoeConfig)")


@cache  # the same for every layout of a plan with this many stages
def _first_stage_shared_params(config, m: _Model, pp: int) -> float:
    """Parameters of the first of pp stages other than the routed experts: its L/p share of the blocks and the embedding.

    A dense model's is memory_bill.first_stage_params; an MoE model's is
    counted the same way from moe_params, its routed experts left out.
    """
    if isinstance(config, DecoderConfig):
        return first_stage_params(config, pp)
    embedding = config.vocab * config.d_model
    head = (0 if config.tied_embeddings else linear_params(config.d_model, config.vocab)) + config.d_model  # + final norm
    blocks = moe_params(config).total - m.routed - embedding - head
    return blocks / pp + embedding + (head if pp == 1 else 0)


@dataclass(frozen=True)
class LayoutPlan:
    """One layout's predicted step: its memory, its arithmetic and traffic, its bubble, step time and MFU."""

    layout: Layout
    recompute: str  # a key of memory.RECOMPUTE
    chunks: int = quantity("v, interleaved model chunks per pipeline stage (1: plain 1F1B)", "integer")
    micro_batches: int = quantity("m, micro-batches per data-parallel replica per step", "integer")
    memory_bytes: float = quantity("the fullest (first) pipeline stage's bill per GPU", "bytes")
    activation_bytes: float = quantity("of it, the activations kept for the backward pass", "bytes")
    fits: bool
    compute_seconds: float = quantity("hardware FLOPs / (GPUs × peak × matmul efficiency)", "duration")
    tp_seconds: float = quantity("tensor-parallel all-reduces on their link, not overlapped", "duration")
    cp_seconds: float = quantity("context-parallel gathers on their link, not overlapped", "duration")
    pp_seconds: float = quantity("pipeline sends × v on their link, not overlapped", "duration")
    ep_seconds: float = quantity("expert-parallel all-to-alls on their link, not overlapped", "duration")
    dp_seconds: float = quantity("data-parallel (or ZeRO-3) traffic on its link", "duration")
    dp_exposed_seconds: float = quantity("the part of dp_seconds that no compute hides", "duration")
    bubble: float = quantity("(p − 1)/(v·m), idle share of a step", "percent")
    step_seconds: float = quantity("(compute + TP + CP + EP + PP) × (1 + bubble) + exposed DP", "duration")
    mfu: float = quantity("model FLOPs / (step × GPUs × peak)", "percent")
    bottleneck: str  # the largest share of the step: "compute", "bubble" or a cut
    cuts: tuple  # parallelism.CutTraffic of each cut: its bytes per step and link (the pipeline's for v = 1)


@cache  # asked again for every (tp, cp) over the same few pipeline depths, and for every plan of one model depth
def _chunk_options(layers: int, pp: int) -> tuple:
    """v values whose chunks hold whole layers: divisors of k = ⌈L/p⌉; () when no split of L layers over p stages works.

    Middle stages hold k layers each and the first and last together the rest,
    between 0 and 2k (Megatron-LM's --decoder-first/last-pipeline-num-layers;
    Llama 3 gives its end stages one layer fewer, §3.3.2): (p − 2)·k ≤ L.
    """
    if pp > layers:
        return ()
    k = -(-layers // pp)
    if pp > 2 and (pp - 2) * k > layers:
        return ()
    return tuple(v for v in range(1, k + 1) if k % v == 0)


def _interleaving(pp: int, chunks: int) -> float:
    """What interleaving multiplies the first stage's activations by: 1 + (p − 1)/(p·v) for v ≥ 2, else 1."""
    return 1 + (pp - 1) / (pp * chunks) if chunks > 1 else 1


@cache  # a plan asks for the same few (tokens, tp, recomputation) again for every pp and dp, and so does every plan of one block
def _layer_activations(hidden: int, heads: int, kv_heads: int, mlp: str, dropout: bool, ffn: int, tokens: int, b: int, tp: int,
                       recompute: str) -> float:
    return activation_bytes_per_layer(tokens, b, hidden, heads, tp, True, recompute, kv_heads=kv_heads, ffn_dim=ffn, mlp=mlp,
                                      dropout=dropout)


def _activations(m: _Model, tp: int, cp: int, pp: int, seq_len: int, recompute: str, b: int = MICRO_BATCH) -> float:
    """1F1B's first stage: p micro-batches in flight, each through its L/p layers (the output layer's only at p = 1)."""
    tokens = seq_len // cp
    stage_layers = m.layers / pp
    dense_here = min(m.dense_layers, stage_layers)  # an MoE model's dense blocks come first
    block = (m.hidden, m.heads, m.kv_heads, m.mlp, m.dropout)
    dense = _layer_activations(*block, m.dense_ffn, tokens, b, tp, recompute) if dense_here else 0
    moe = _layer_activations(*block, m.moe_ffn, tokens, b, tp, recompute) if m.moe_layers else 0
    per_micro_batch = dense_here * dense + (stage_layers - dense_here) * moe
    total = pp * per_micro_batch
    if pp == 1:
        total += _output_activations(m.hidden, m.vocab, tokens, b, tp)
    return total


@cache  # the same for every recomputation mode, and for every plan of one width and vocabulary
def _output_activations(hidden: int, vocab: int, tokens: int, b: int, tp: int) -> float:
    return activation_output_bytes(tokens, b, hidden, vocab, tp, True)


def _state(config, m: _Model, layout: Layout, optimizer: str) -> float:
    """Model-state bytes per GPU on the first stage, under the layout's ZeRO stage."""
    shared = _first_stage_shared_params(config, m, layout.pp)
    bill = training_memory_per_gpu(shared, layout.dp * layout.cp, layout.zero_stage, optimizer, 0.0, layout.tp).total
    if m.routed:
        # Each expert lives on one of ep GPUs; the dp·cp/ep GPUs holding the same experts shard their state.
        experts = m.routed / (layout.pp * layout.tp * layout.ep)
        bill += zero_breakdown(experts, layout.dp * layout.cp // layout.ep, layout.zero_stage, optimizer).total
    return bill


def _flops(m: _Model, seq_len: int, tokens: int, recompute: str) -> tuple:
    """(model FLOPs, hardware FLOPs) of one step of `tokens` tokens."""
    attention = TRAINING_PASSES * MATMUL_FLOPS_PER_MAC * CAUSAL_SHARE * seq_len * m.attention_width * m.layers
    model = (FLOPS_PER_PARAM_TOKEN * m.active + attention) * tokens
    again = {"none": 0, "selective": attention / TRAINING_PASSES,
             "full": FORWARD_FLOPS_PER_PARAM_TOKEN * m.active + attention / TRAINING_PASSES}[recompute]
    return model, model + again * tokens


def _check(m: _Model, layout: Layout, cluster: Cluster, seq_len: int, sequences: int, b: int = MICRO_BATCH) -> "str | None":
    """The structural reason a layout is rejected, or None."""
    if layout.tp > cluster.scale_up_gpus:
        return "tp_crosses_scale_up"
    if m.heads % layout.tp:
        return "tp_heads"
    if not _chunk_options(m.layers, layout.pp):
        return "pp_layers"
    if seq_len % layout.cp:
        return "cp_sequence"
    if layout.ep > 1 and (m.experts % layout.ep or layout.dp % layout.ep):
        return "ep_experts"
    if sequences % (layout.dp * b):
        return "dp_batch"
    if sequences // (layout.dp * b) < layout.pp:
        return "micro_batches"
    return None


def layout_plan(config, layout: Layout, cluster: Cluster, seq_len: int, global_batch_tokens: int, recompute: str,
                chunks: int = 1, optimizer: str = "adam_fp32_grads", micro_batch: int = MICRO_BATCH) -> LayoutPlan:
    """Memory per GPU, step time and MFU of one layout, with the rest of its breakdown (see the module docstring).

    A published run's own layout, at its own micro-batch; plan_layouts asks it of every layout at one sequence.
    """
    b = positive_int("micro_batch", micro_batch)
    m, s, sequences = _one_layout(config, layout, cluster, seq_len, global_batch_tokens, b)
    options = _chunk_options(m.layers, layout.pp) if layout.pp > 1 else (1,)
    if positive_int("chunks", chunks) not in options:
        raise EstimatorError("chunks", chunks, f"one of {options}: chunks of whole layers")
    return _plan(config, m, layout, cluster, s, sequences, one_of("recompute", recompute, RECOMPUTE_ORDER), chunks,
                 one_of("optimizer", optimizer, tuple(OPTIMIZERS)), None, b=b)


def _one_layout(config, layout, cluster, seq_len, global_batch_tokens, b) -> tuple:
    """(model, sequence length, sequences per step) of a layout asked for by name, or the error naming its fault."""
    if not isinstance(cluster, Cluster):
        raise EstimatorError("cluster", cluster, "a planner.Cluster")
    if not isinstance(layout, Layout):
        raise EstimatorError("layout", layout, "a parallelism.Layout")
    m = _model(config)
    s, sequences = _batch(seq_len, global_batch_tokens)
    if layout.gpus != cluster.gpus:
        raise EstimatorError("layout", layout, f"tp × cp × pp × dp = the cluster's {cluster.gpus} GPUs")
    reason = _check(m, layout, cluster, s, sequences, b)
    if reason:
        argument = REJECTED_ARGUMENT[reason]
        raise EstimatorError(argument, getattr(layout, argument), REJECTIONS[reason])
    return m, s, sequences


def fastest_layout_plan(config, layout: Layout, cluster: Cluster, seq_len: int, global_batch_tokens: int,
                        optimizer: str = "adam_fp32_grads") -> "LayoutPlan | None":
    """The fastest fitting ZeRO stage, recomputation and v for the degrees of `layout`, as plan_layouts picks them.

    None when no choice fits; a structural rejection raises, naming the degree.
    """
    m, s, sequences = _one_layout(config, layout, cluster, seq_len, global_batch_tokens, MICRO_BATCH)
    search = _Search(config, m, cluster, s, sequences, one_of("optimizer", optimizer, tuple(OPTIMIZERS)))
    found = _branch_and_bound(search, [layout] if search.fits(layout) else [], 1)
    return found[0] if found else None


def _compute_seconds(m, cluster, s, sequences) -> dict:
    """Seconds of arithmetic per step under each recomputation mode."""
    rate = cluster.gpus * cluster.peak_flops_per_gpu * cluster.matmul_efficiency
    return {r: _flops(m, s, sequences * s, r)[1] / rate for r in RECOMPUTE_ORDER}


def _batch(seq_len: int, global_batch_tokens: int) -> tuple:
    s = positive_int("seq_len", seq_len)
    tokens = positive_int("global_batch_tokens", global_batch_tokens)
    if tokens % s:
        raise EstimatorError("global_batch_tokens", tokens, f"a whole number of sequences of {s} tokens")
    return s, tokens // s


def _plan(config, m, layout, cluster, s, sequences, recompute, chunks, optimizer, traffic, state=None, base=None,
          b: int = MICRO_BATCH) -> LayoutPlan:
    state = _state(config, m, layout, optimizer) if state is None else state
    if base is None:
        base = _activations(m, layout.tp, layout.cp, layout.pp, s, recompute, b)
    act = base * _interleaving(layout.pp, chunks)
    used = state + act
    fits = memory_fit(used, cluster.memory_bytes).fits
    if traffic is None:
        traffic = _traffic(config, layout, cluster, s, sequences, b)
    micro = sequences // (layout.dp * b)
    model, hardware = _flops(m, s, sequences * s, recompute)
    rate = cluster.gpus * cluster.peak_flops_per_gpu
    compute = hardware / (rate * cluster.matmul_efficiency)
    links = {c.cut: c.link_seconds for c in traffic.cuts}
    # ZeRO-3 keeps neither whole weights nor whole gradients between micro-batches: it gathers and scatters for each.
    dp = links.get("dp", 0.0) + links.get("zero", 0.0) * micro
    window = compute if layout.zero_stage == 3 else BACKWARD_SHARE * compute / micro
    exposed = max(0.0, dp - window)
    pp = links.get("pp", 0.0) * chunks
    tp, cp, ep = links.get("tp", 0.0), links.get("cp", 0.0), links.get("ep", 0.0)
    bubble = pipeline_bubble(layout.pp, micro, chunks)
    busy = compute + tp + cp + ep + pp
    step = busy * (1 + bubble) + exposed
    shares = {"compute": compute, "bubble": busy * bubble, "tp": tp, "cp": cp, "pp": pp, "ep": ep, "dp": exposed}
    return LayoutPlan(layout, recompute, chunks, micro, used, act, fits, compute, tp, cp, pp, ep, dp, exposed, bubble,
                      step, model / (step * rate), max(shares, key=shares.get), traffic.cuts)


def _traffic(config, layout, cluster, s, sequences, b: int = MICRO_BATCH):
    return layout_traffic(config, layout, s, b, sequences, cluster.peak_flops_per_gpu, cluster.matmul_efficiency,
                          cluster.scale_up_gpus, cluster.scale_up_bytes_per_s, cluster.scale_out_bytes_per_s)


@dataclass(frozen=True)
class Plan:
    """The layouts that fit, fastest first, and the rejected ones counted by reason."""

    best: tuple  # LayoutPlan of the fastest layouts that fit, fastest first
    rejected: tuple  # (reason text, count), most common first; reasons in REJECTIONS
    layouts: int = quantity("TP × CP × PP × DP × EP degrees whose product is the cluster", "integer")
    fitting: int = quantity("of them, the layouts that fit with some ZeRO stage and recomputation", "integer")


@cache  # asked for the same few numbers again for every degree above
def _divisors(n: int) -> tuple:
    """The divisors of n, smallest first, found in √n steps (16,384 GPUs: 128 of them)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(small + [n // d for d in reversed(small) if d * d != n])


def plan_layouts(config, cluster: Cluster, seq_len: int, global_batch_tokens: int, optimizer: str = "adam_fp32_grads",
                 best: int = BEST) -> Plan:
    """The fastest layouts of `config` on `cluster` by predicted step time, and every rejected one counted by reason.

    Enumerates TP × CP × PP × DP = GPUs (and EP dividing DP, for MoE), keeps for
    each the cheapest ZeRO stage, recomputation and chunk count that fit (see
    the module docstring), and ranks the fitting layouts by step time.
    """
    n = positive_int("best", best)
    search, fitting, rejected, count = _enumerate(config, cluster, seq_len, global_batch_tokens, optimizer)
    top = _branch_and_bound(search, fitting, n)
    reasons = tuple((REJECTIONS[r], c) for r, c in sorted(rejected.items(), key=lambda rc: -rc[1]))
    return Plan(top, reasons, count, len(fitting))


def _enumerate(config, cluster, seq_len, global_batch_tokens, optimizer) -> tuple:
    """(the plan's _Search, every layout that fits in the order met, rejections by reason, layouts).

    Cheapest test first: a TP degree that crosses a scale-up domain or splits
    the heads rejects every layout under it, counted without building one; the
    other degrees are checked as whole numbers, and only a layout that passes
    them has its memory tried (_check's reasons, in _check's order).
    """
    if not isinstance(cluster, Cluster):
        raise EstimatorError("cluster", cluster, "a planner.Cluster")
    m = _model(config)
    s, sequences = _batch(seq_len, global_batch_tokens)
    search = _Search(config, m, cluster, s, sequences, one_of("optimizer", optimizer, tuple(OPTIMIZERS)))
    rejected, fitting, count = {}, [], 0

    def reject(reason, layouts):
        rejected[reason] = rejected.get(reason, 0) + layouts

    n = cluster.gpus
    for tp in _divisors(n):
        if tp > cluster.scale_up_gpus or m.heads % tp:
            layouts = _layouts_under(n // tp, bool(m.routed))
            count += layouts
            reject("tp_crosses_scale_up" if tp > cluster.scale_up_gpus else "tp_heads", layouts)
            continue
        for cp in _divisors(n // tp):
            for pp in _divisors(n // (tp * cp)):
                dp = n // (tp * cp * pp)
                eps = _divisors(dp) if m.routed else (1,)
                count += len(eps)
                reason = ("pp_layers" if not _chunk_options(m.layers, pp) else "cp_sequence" if s % cp else None)
                if reason:
                    reject(reason, len(eps))
                    continue
                after = ("dp_batch" if sequences % (dp * MICRO_BATCH) else
                         "micro_batches" if sequences // (dp * MICRO_BATCH) < pp else None)
                for ep in eps:
                    reason = "ep_experts" if ep > 1 and (m.experts % ep or dp % ep) else after
                    layout = None if reason else Layout(tp, cp, pp, dp, ep)
                    if reason or not search.fits(layout):
                        reject(reason or "memory", 1)
                    else:
                        fitting.append(layout)
    return search, fitting, rejected, count


@cache  # the same few remainders recur for every rejected TP degree and every plan of one cluster
def _layouts_under(gpus: int, routed: bool) -> int:
    """CP × PP × DP (× EP dividing DP, for MoE) products equal to `gpus`: the layouts under one TP degree."""
    return sum(len(_divisors(gpus // (cp * pp))) if routed else 1 for cp in _divisors(gpus) for pp in _divisors(gpus // cp))


class _Search:
    """One plan's model, cluster and batch, and what its layouts share: each piece computed once, keyed by what it
    depends on, whichever layout asks first."""

    def __init__(self, config, m: _Model, cluster: Cluster, s: int, sequences: int, optimizer: str):
        self.config, self.m, self.cluster, self.s, self.sequences, self.optimizer = config, m, cluster, s, sequences, optimizer
        self.compute = _compute_seconds(m, cluster, s, sequences)
        self.limit = cluster.memory_bytes * (1 + FIT_TOLERANCE)  # memory_fit's rule, without its checks, in the inner loop
        self.shared = {}

    def fits(self, layout) -> bool:
        """Whether any choice fits: whether the lightest does, one chunk (interleaving only adds activations) of
        the recomputation that keeps the least, beside ZeRO-3's state (it shards the most, so holds the least)."""
        _, bases = self.pieces(layout.tp, layout.cp, layout.pp)
        return self.state(layout, ZERO_STAGES[-1]) + min(base for _, base in bases) <= self.limit

    def stage(self, layout, activation_bytes: float) -> "int | None":
        """The lowest ZeRO stage whose model state fits beside these activations, or None."""
        return next((stage for stage in ZERO_STAGES if self.state(layout, stage) + activation_bytes <= self.limit), None)

    def state(self, layout, stage: int) -> float:
        """_state at a ZeRO stage: dp·cp is the cluster over tp·pp, whatever cp is, so one figure per (tp, pp, ep)."""
        key = ("state", layout.tp, layout.pp, layout.ep, stage)
        if key not in self.shared:
            self.shared[key] = _state(self.config, self.m, Layout(layout.tp, layout.cp, layout.pp, layout.dp, layout.ep, stage),
                                      self.optimizer)
        return self.shared[key]

    def choices(self, layout) -> list:
        """(a floor on the step time, degrees and ZeRO stage, recomputation, v, state, activations) of every choice
        that fits.

        For each recomputation and v, only the lowest fitting ZeRO stage (stages 0–2 take equal time and 3 no
        less). The floor is _plan's step, (compute + TP + CP + EP + PP) × (1 + bubble) + exposed DP, from the same
        traffic formulas without building the cuts: ZeRO-3's gathers once a micro-batch against the whole
        compute, other stages' gradients once a step against the last micro-batch's backward pass.
        """
        tp, cp, pp, dp, ep = layout.tp, layout.cp, layout.pp, layout.dp, layout.ep
        options, bases = self.pieces(tp, cp, pp)
        micro = self.sequences // (dp * MICRO_BATCH)
        links, pp_seconds = self.links(layout, micro)
        gradients, gathers = self.dp_seconds(layout)
        found = []
        for recompute, base in bases:
            c = self.compute[recompute]
            for chunks in options:
                stage = self.stage(layout, base * _interleaving(pp, chunks))
                if stage is None:
                    continue
                busy = (c + links + pp_seconds * chunks) * (1 + (pp - 1) / (chunks * micro))
                exposed = max(0.0, gathers * micro - c) if stage == 3 else max(0.0, gradients - BACKWARD_SHARE * c / micro)
                # Below the step _plan computes by a rounding's width at most: never above it.
                floor = (busy + exposed) * FLOOR_MARGIN
                found.append((floor, (tp, cp, pp, dp, ep, stage), recompute, chunks, self.state(layout, stage), base))
        return found

    def bound(self, layout) -> float:
        """A floor under the floor of every choice of a layout: the fastest recomputation's compute, one chunk's
        sends, the most chunks' bubble and the data-parallel traffic the slowest compute would hide."""
        options, bases = self.pieces(layout.tp, layout.cp, layout.pp)
        micro = self.sequences // (layout.dp * MICRO_BATCH)
        links, pp_seconds = self.links(layout, micro)
        gradients, gathers = self.dp_seconds(layout)
        fastest, slowest = min(self.compute[r] for r, _ in bases), max(self.compute[r] for r, _ in bases)
        busy = (fastest + links + pp_seconds) * (1 + (layout.pp - 1) / (max(options) * micro))
        exposed = min(max(0.0, gathers * micro - slowest), max(0.0, gradients - BACKWARD_SHARE * slowest / micro))
        return (busy + exposed) * FLOOR_MARGIN

    def pieces(self, tp: int, cp: int, pp: int) -> tuple:
        """(chunk counts, (recompute, activations) pairs) of every layout with these tp, cp and pp: what its memory
        needs, tried before any traffic."""
        key = ("pieces", tp, cp, pp)
        if key not in self.shared:
            options = _chunk_options(self.m.layers, pp) if pp > 1 else (1,)
            # Without recomputation under CP: the s × s scores of s/cp tokens per GPU are not what
            # activation_bytes_per_layer counts.
            self.shared[key] = options, tuple((r, _activations(self.m, tp, cp, pp, self.s, r)) for r in RECOMPUTE_ORDER
                                              if r != "none" or cp == 1)
        return self.shared[key]

    def links(self, layout, micro: int) -> tuple:
        """(TP + CP + EP link seconds, one chunk's pipeline seconds) per step of a layout of `micro` micro-batches.

        Each cut's traffic is a layer's (a MoE layer's, for EP) per micro-batch
        times the stage's layers and the micro-batches (the traffic formulas are
        linear in both), so the figures of one (tp, cp, ep) serve every pp and dp.
        """
        tp, cp, pp, ep = layout.tp, layout.cp, layout.pp, layout.ep
        m, key = self.m, ("links", tp, cp, ep)
        if key not in self.shared:
            self.shared[key] = _per_micro_batch(m.hidden, m.kv_width, m.top_k if m.moe_layers else 0, self.s, self.cluster,
                                                tp, cp, ep)
        layer, moe_layer, pp_up, pp_out = self.shared[key]
        links = micro * (m.layers / pp) * layer + (micro * (m.moe_layers / pp) * moe_layer if moe_layer else 0.0)
        pp_seconds = 0.0 if pp == 1 else micro * (pp_up if tp * cp * pp <= self.cluster.scale_up_gpus else pp_out)
        return links, pp_seconds

    def dp_seconds(self, layout) -> tuple:
        """(ZeRO 0–2's gradients, ZeRO-3's traffic) seconds per step of the data-parallel cut: the GPU's weights,
        experts over ep, reduced over dp·cp GPUs, the cluster over tp·pp; (0, 0) with none."""
        tp, cp, pp, dp, ep = layout.tp, layout.cp, layout.pp, layout.dp, layout.ep
        if dp * cp == 1:
            return 0.0, 0.0
        key = ("dp", tp, pp, ep)
        if key not in self.shared:
            params = (self.m.params - self.m.routed * (1 - 1 / ep)) / (tp * pp)
            self.shared[key] = tuple(link_seconds(data_parallel_traffic_bytes(params, dp * cp, stage), _job_link(self.cluster))
                                     for stage in (0, 3))
        return self.shared[key]


@cache  # a layer's traffic reads neither the depth nor the batch: every plan of one width, sequence and cluster shares it
def _per_micro_batch(hidden: int, kv_width: float, top_k: int, s: int, cluster: Cluster, tp: int, cp: int, ep: int) -> tuple:
    """(TP + CP seconds of one layer, EP seconds of one MoE layer, the pipeline's seconds on scale-up and on scale-out)
    for one micro-batch of s/cp tokens; top_k 0 for a model without MoE layers.

    TP's all-reduces on the scale-up link TP never leaves; CP's gathers on the
    link its span reaches (parallelism.layout_traffic's rule), EP's
    all-to-alls on the job's; the pipeline's link depends on pp, so both.
    """
    tokens = s // cp
    layer = link_seconds(tensor_parallel_traffic_bytes(tokens, MICRO_BATCH, hidden, 1, tp), cluster.scale_up_bytes_per_s)
    if cp > 1:
        within = tp * cp <= cluster.scale_up_gpus
        layer += link_seconds(context_parallel_traffic_bytes(s, MICRO_BATCH, kv_width / tp, 1, cp),
                              cluster.scale_up_bytes_per_s if within else cluster.scale_out_bytes_per_s)
    moe_layer = 0.0
    if top_k and ep > 1:
        moe_layer = link_seconds(expert_parallel_traffic_bytes(tokens / tp, MICRO_BATCH, hidden, 1, top_k, ep),
                                 _job_link(cluster))
    sends = pipeline_traffic_bytes(tokens / tp, MICRO_BATCH, hidden)
    return layer, moe_layer, link_seconds(sends, cluster.scale_up_bytes_per_s), link_seconds(sends, cluster.scale_out_bytes_per_s)


def _job_link(cluster: Cluster) -> float:
    """The bandwidth of the cuts that span the whole job's neighbours or more (EP and DP): scale-up only on one domain."""
    return cluster.scale_up_bytes_per_s if cluster.gpus <= cluster.scale_up_gpus else cluster.scale_out_bytes_per_s


def _branch_and_bound(search: _Search, layouts: list, n: int, below: float = math.inf) -> tuple:
    """The n fastest of `layouts` (each fits), evaluating choices in order of their floor and stopping once no floor
    can beat the n-th.

    A layout's choices are counted only once its bound could be the next
    floor: every layout whose bound is no higher than the lowest floor
    waiting is expanded first, so choices come out in the order of their
    floor (ties in the order the layouts were met). Exact: a choice whose
    floor is no shorter than the n-th best step found cannot enter the best
    n, nor improve a layout already in it.
    """
    bounds = sorted((search.bound(layout), i) for i, layout in enumerate(layouts))
    waiting = []  # (floor, layout's place, choice's place, choice), a heap
    best, traffic, bar, expanded = {}, {}, below, 0
    while True:
        while expanded < len(bounds) and bounds[expanded][0] < bar and (not waiting or bounds[expanded][0] <= waiting[0][0]):
            i = bounds[expanded][1]
            for j, choice in enumerate(search.choices(layouts[i])):
                heapq.heappush(waiting, (choice[0], i, j, choice))
            expanded += 1
        if not waiting or waiting[0][0] >= bar:
            break
        _, degrees, recompute, chunks, state, base = heapq.heappop(waiting)[3]
        layout = Layout(*degrees)
        key = (*degrees[:5], layout.zero_stage == 3)
        if key not in traffic:
            traffic[key] = _traffic(search.config, layout, search.cluster, search.s, search.sequences)
        plan = _plan(search.config, search.m, layout, search.cluster, search.s, search.sequences, recompute, chunks,
                     search.optimizer, traffic[key], state, base)
        cut = key[:5]
        if plan.step_seconds >= below:
            continue
        if cut not in best or plan.step_seconds < best[cut].step_seconds:
            best[cut] = plan
            if len(best) >= n and plan.step_seconds < bar:
                bar = heapq.nsmallest(n, (p.step_seconds for p in best.values()))[-1]
    return tuple(heapq.nsmallest(n, best.values(), key=lambda p: p.step_seconds))


def layout_preset_cluster(key: str) -> Cluster:
    """The cluster of a published layout (a `layouts` preset): its GPUs, their links, the matmul ceiling measured for them."""
    presets = load_presets()
    lay = presets.layout(key)
    rates = [k for k, r in presets.matmul_rates.items() if r.gpu == lay.gpu and r.precision == "bf16"]
    if not rates:
        raise EstimatorError("key", key, "a layout on a GPU with a measured BF16 matmul rate (a matmul_rates preset)")
    return cluster_preset(lay.gpu, lay.tp * lay.cp * lay.pp * lay.dp, lay.scale_up, lay.scale_out, rates[0])


def layout_preset_plan(key: str, best: int = BEST) -> Plan:
    """Every layout ranked for a published layout's model, cluster, sequence length and batch: what the planner would pick there."""
    lay = load_presets().layout(key)
    return plan_layouts(load_presets().model(lay.model).config, layout_preset_cluster(key), lay.seq_len,
                        lay.global_batch * lay.seq_len, best=best)


@dataclass(frozen=True)
class Standing:
    """A published layout as the planner sees it: its own fastest plan, and how many layouts the planner ranks ahead."""

    plan: "LayoutPlan | None"  # its fastest fitting ZeRO stage, recomputation and v; None when none fits
    rank: int = quantity("1 + the layouts whose predicted step is shorter", "integer")
    fitting: int = quantity("layouts that fit with some ZeRO stage and recomputation", "integer")


def layout_preset_standing(key: str) -> Standing:
    """The planner's prediction for a published layout's own degrees, and its rank among every layout that fits.

    Exact without ranking all of them: a layout's floor on its step no shorter
    than the published layout's step cannot be faster (see the module docstring).
    """
    presets = load_presets()
    lay = presets.layout(key)
    config, cluster = presets.model(lay.model).config, layout_preset_cluster(key)
    s, tokens = lay.seq_len, lay.global_batch * lay.seq_len
    own = fastest_layout_plan(config, Layout(lay.tp, lay.cp, lay.pp, lay.dp), cluster, s, tokens)
    search, fitting, _, _ = _enumerate(config, cluster, s, tokens, "adam_fp32_grads")
    if own is None:
        return Standing(None, len(fitting) + 1, len(fitting))
    faster = _branch_and_bound(search, fitting, len(fitting), own.step_seconds)
    return Standing(own, len(faster) + 1, len(fitting))


def step_tokens(sequences: int, seq_len: int) -> int:
    """B·s: the tokens of a step of B sequences of s tokens."""
    return positive_int("sequences", sequences) * positive_int("seq_len", seq_len)


@dataclass(frozen=True)
class Placement:
    """Where one GPU of a job sits in its layout: its rank in each cut and its server, tensor innermost."""

    tp: int = quantity("its rank in its tensor-parallel group, from 0", "integer")
    cp: int = quantity("its rank in its context-parallel group, from 0", "integer")
    pp: int = quantity("its pipeline stage, from 0", "integer")
    dp: int = quantity("its data-parallel replica, from 0", "integer")
    server: int = quantity("its scale-up domain, from 0: neighbouring GPUs share one", "integer")


def gpu_placement(layout: Layout, scale_up_gpus: int, gpu: int) -> Placement:
    """g = t + T·(c + C·(p + P·d)), the server ⌊g / GPUs per scale-up domain⌋ (Megatron-LM's order, tensor innermost)."""
    if not isinstance(layout, Layout):
        raise EstimatorError("layout", layout, "a parallelism.Layout")
    g, per = positive_int("gpu", gpu + 1) - 1, positive_int("scale_up_gpus", scale_up_gpus)
    if g >= layout.gpus:
        raise EstimatorError("gpu", gpu, f"below the layout's {layout.gpus} GPUs")
    tp, rest = g % layout.tp, g // layout.tp
    cp, rest = rest % layout.cp, rest // layout.cp
    return Placement(tp, cp, rest % layout.pp, rest // layout.pp, g // per)


@dataclass(frozen=True)
class Experts:
    """How many experts a model's router chooses among, and how many each token passes through."""

    experts: int = quantity("E, routed experts per block (1: a dense model's one MLP)", "integer")
    top_k: int = quantity("k, the experts each token passes through", "integer")


def model_experts(config) -> Experts:
    """E and k: an MoE configuration's routed experts and top-k; a dense one's single MLP, E = k = 1."""
    if isinstance(config, MoeConfig):
        return Experts(config.routed_experts, config.top_k)
    if isinstance(config, DecoderConfig):
        return Experts(1, 1)
    raise EstimatorError("config", config, "a decoder configuration (DecoderConfig or MoeConfig)")
