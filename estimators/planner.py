"""Planning a job's layout: every TP × CP × PP × DP × EP cut of a cluster, its memory, step time and MFU, ranked.

For each layout that divides the cluster and the model, with a ZeRO stage, a
recomputation mode and a number of interleaved pipeline chunks v per stage:

- memory per GPU: the fullest of the first two pipeline stages' bills (the
  first holds the embedding and p micro-batches of its end-stage share of
  blocks, the second ⌈L/p⌉ blocks and p − 1 micro-batches; each counted at its
  own worst, after Megatron-LM's theoretical memory): its share of the
  weights under ZeRO (memory.training_memory_per_gpu), experts split over ep
  GPUs and their state sharded over the dp·cp/ep GPUs that hold the same
  experts, plus the activations in flight (memory.block_activation_bytes,
  FlashAttention and fused kernels, with sequence parallelism, over the s/cp
  tokens each GPU holds; FlashAttention keeps no s × s scores, so selective
  recomputation saves nothing over none). Interleaving keeps more in flight: × (1 + (p − 1)/(p·v))
  (Megatron-LM's theoretical_memory_usage.py, its interleaved_schedule_memory_penalty).
- step time: the step model (estimators/step_time.py, validated against
  published measured runs), on the framework a planner can assume
  (planned_setup): one sequence per micro-batch, sequence parallelism,
  FlashAttention, data-parallel gradients reduced in FP32 behind the backward
  pass, ZeRO-3's gathers prefetched, tensor-, context- and expert-parallel
  collectives exposed, 1F1B or the interleaved schedule; or what the reader
  chooses instead (Practice): 1F1B alone or DualPipe, the expert all-to-alls
  or a share of the tensor-parallel traffic hidden, node-limited routing; the
  GEMMs in FP8 when the cluster's GPU is given at its FP8 peak, the experts'
  inputs then dispatched in FP8. DualPipe holds two copies of a stage's
  weights and one micro-batch's activations more (DeepSeek-V3, table 2) and
  needs an even number of stages.
Step time = busy × (1 + x) + exposed data-parallel time + the optimizer step,
x = (p − 1)/(v·m) the bubble over the busy time, x/(1 + x) its share of the
step (step_time.pipeline_bubble_share); MFU = model FLOPs / (step × GPUs × peak).

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
(step_time.LayoutTerms.floor: the same terms at
the least any choice gives each, from the terms its choices are then timed
from), and its choices are timed only when that bound could come next (an
MoE model's layouts first get a floor shared by every EP degree of a tp and
cp, step_time.block_floor_seconds, before their own block terms; every
layout, before its memory and other terms, a floor with the least
data-parallel time any ZeRO stage leaves exposed,
step_time.busy_and_exposed_floor_seconds); each
choice's step is the step model's, a hair below it as its floor, and the
search stops once none can beat the best few (branch and bound: exact, it
never drops a layout that would rank).

Ties: layouts whose predicted steps differ by less than the step model's
mean error on the published runs its constants were not fitted on share a
place (tied_places): the model cannot order them.
"""

import heapq
import math
from dataclasses import dataclass
from functools import cache, lru_cache

from .errors import EstimatorError
from .memory import (
    FIT_TOLERANCE,
    OPTIMIZERS,
    ZERO_STAGES,
    activation_output_bytes,
    block_activation_bytes,
    memory_fit,
    training_memory_per_gpu,
    zero_breakdown,
)
from .model_size import DecoderConfig, decoder_params, linear_params, mlp_params
from .moe import MoeConfig, moe_params
from .parallelism import Layout
from .presets import load_presets
from .provenance import quantity
from .step_time import (BYTES_BF16, SCHEDULES, Gpu, LayoutTerms, Setup, block_floor_seconds, block_terms,
                        busy_and_exposed_floor_seconds, data_parallel_collectives, gpu_preset, members_per_server,
                        shape_of, splits_into_stages, stage_blocks, step_seconds)
from .validate import non_negative, non_negative_int, one_of, positive_int

GRADIENT_BYTES = 4  # gradients reduced in FP32 over the data-parallel GPUs, as Llama 3 does (§3.3.2)
MICRO_BATCH = 1  # sequences per micro-batch (see the module docstring)
RECOMPUTE_ORDER = ("none", "selective", "full")  # cheapest arithmetic first
# What the search tries: under FlashAttention selective recomputation keeps what none keeps and repeats the attention
# core's forward, so it is never faster than none (layout_plan still times it when asked).
SEARCHED = ("none", "full")
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
    "pp_dualpipe": "DualPipe needs an even number of stages",
    "memory": "does not fit in memory",
}
# The degree each structural rejection names when one layout is asked for.
REJECTED_ARGUMENT = {"tp_crosses_scale_up": "tp", "tp_heads": "tp", "pp_layers": "pp", "cp_sequence": "cp",
                     "ep_experts": "ep", "dp_batch": "dp", "micro_batches": "pp", "pp_dualpipe": "pp"}
FP8_DISPATCH_BYTES = 1  # DeepSeek-V3 §3.3.2: the experts' inputs quantised to FP8 before they are dispatched


@dataclass(frozen=True)
class Practice:
    """What a run's framework does besides its degrees, as the reader chooses it: the pipeline schedule, what it
    overlaps, how far a token's experts may spread. The GEMMs' precision is the cluster's (its GPU's peak)."""

    # "1f1b": one chunk a stage; "interleaved": v chunks searched, 1F1B at v = 1; "dualpipe": DeepSeek-V3's (§3.2.1)
    schedule: str = "interleaved"
    ep_overlap: bool = False  # expert all-to-alls hidden behind another micro-batch's compute (DualPipe's pairing)
    tp_overlap: float = quantity("share of the tensor-parallel traffic hidden behind GEMMs", "percent", default=0.0)
    nodes_per_token: int = quantity("servers a token's experts may span (node-limited routing; 0: no limit)",
                                    "integer", default=0)

    def __post_init__(self):
        one_of("schedule", self.schedule, SCHEDULES)
        if type(self.ep_overlap) is not bool:
            raise EstimatorError("ep_overlap", self.ep_overlap, "true or false")
        if not 0 <= non_negative("tp_overlap", self.tp_overlap) <= 1:
            raise EstimatorError("tp_overlap", self.tp_overlap, "a share from 0 to 1")
        non_negative_int("nodes_per_token", self.nodes_per_token)


PLANNED = Practice()  # what the planner assumes unless told: 1F1B or interleaved, nothing overlapped, any routing


def run_practice(run) -> Practice:
    """A published run's own overlaps and routing, as the planner takes them, and its schedule: DualPipe if it ran
    DualPipe, else 1F1B or interleaved, searched (v = 1 is 1F1B)."""
    su = run.setup
    return Practice(schedule="dualpipe" if su.schedule == "dualpipe" else "interleaved", ep_overlap=su.ep_overlap,
                    tp_overlap=su.tp_overlap, nodes_per_token=su.nodes_per_token)


@dataclass(frozen=True)
class Cluster:
    """The GPUs a job runs on: how many, and one of them with its links, as the step model reads it."""

    gpus: int = quantity("GPUs in the job", "integer")
    gpu: Gpu  # every GPU of the job alike: its rates, memory and links

    def __post_init__(self):
        positive_int("gpus", self.gpus)
        if not isinstance(self.gpu, Gpu):
            raise EstimatorError("gpu", self.gpu, "a step_time.Gpu (gpu_preset builds one)")


def cluster_preset(gpu: str, gpus: int, scale_up: str, scale_out: str, precision: str = "bf16") -> Cluster:
    """A number of preset GPUs on preset links, each the GPU the step model times, built from the same presets."""
    return Cluster(gpus, gpu_preset(gpu, scale_up, scale_out, precision))


def planned_setup(layout: Layout, recompute: str = "none", chunks: int = 1, micro_batch: int = MICRO_BATCH,
                  practice: Practice = PLANNED, gpu: "Gpu | None" = None) -> Setup:
    """What the planner assumes of a framework for a layout: sequence parallelism, FlashAttention, FP32 gradients
    reduced behind the backward pass; the practice's schedule (interleaved for v ≥ 2 chunks, else 1F1B, unless
    DualPipe), overlaps and routing; the experts' inputs dispatched in FP8 when the GEMMs run in FP8 on `gpu`."""
    return Setup(tp=layout.tp, cp=layout.cp, pp=layout.pp, dp=layout.dp, ep=layout.ep, zero_stage=layout.zero_stage,
                 micro_batch=micro_batch, chunks=chunks, schedule=_schedule(chunks, practice), recompute=recompute,
                 grad_bytes=GRADIENT_BYTES, ep_overlap=practice.ep_overlap, tp_overlap=practice.tp_overlap,
                 nodes_per_token=practice.nodes_per_token,
                 dispatch_bytes=FP8_DISPATCH_BYTES if gpu is not None and _fp8(gpu) else BYTES_BF16)


def _fp8(gpu: Gpu) -> bool:
    """Whether the GEMMs run in FP8: a peak above BF16's, the attention's (step_time.gpu_preset)."""
    return gpu.peak_flops != gpu.attention_peak_flops


def _schedule(chunks: int, practice: Practice = PLANNED) -> str:
    """The pipeline schedule of v chunks a stage: DualPipe when chosen, else interleaved for v ≥ 2, 1F1B for one."""
    return "dualpipe" if practice.schedule == "dualpipe" else "interleaved" if chunks > 1 else "1f1b"


@dataclass(frozen=True)
class _Model:
    """What the planner's checks and model-state count read of a model (its time and activations are the step
    model's, step_time.Shape)."""

    layers: int
    heads: int
    routed: float  # routed-expert parameters of the whole model
    experts: int


def _model(config) -> _Model:
    if isinstance(config, DecoderConfig):
        return _Model(layers=config.layers, heads=config.heads, routed=0, experts=0)
    if isinstance(config, MoeConfig):
        c = config
        routed = (c.layers - c.dense_layers) * c.routed_experts * mlp_params(c.d_model, c.expert_ffn_dim)
        return _Model(layers=c.layers, heads=c.heads, routed=routed, experts=c.routed_experts)
    raise EstimatorError("config", config, "a decoder configuration (DecoderConfig or MoeConfig)")


@cache  # the same for every layout of a plan with this many stages
def _first_stage_shared_params(config, m: _Model, pp: int) -> float:
    """Parameters other than the routed experts on the fuller of the first two stages: the first stage's end share of
    the blocks (stage_blocks) and the embedding, or a middle stage's ⌈L/p⌉ blocks; the whole model at p = 1.

    A dense model's blocks are decoder_params' attention, MLPs and norms; an
    MoE model's are counted the same way from moe_params, its routed experts left out.
    """
    if isinstance(config, DecoderConfig):
        b = decoder_params(config)
        blocks, embedding, head = b.attention + b.mlp + b.norms, b.embeddings, b.head
    else:
        embedding = config.vocab * config.d_model
        head = (0 if config.tied_embeddings else linear_params(config.d_model, config.vocab)) + config.d_model  # + final norm
        blocks = moe_params(config).total - m.routed - embedding - head
    if pp == 1:
        return blocks + embedding + head
    full, end = stage_blocks(m.layers, pp)
    return max(end * blocks / m.layers + embedding, full * blocks / m.layers)


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
    compute_seconds: float = quantity("GEMMs at their shapes' rates, attention, memory-bound kernels and recomputation",
                                      "duration")
    tp_seconds: float = quantity("tensor-parallel collectives, α–β on the scale-up link, not overlapped", "duration")
    cp_seconds: float = quantity("context-parallel gathers, α–β on their link, not overlapped", "duration")
    pp_seconds: float = quantity("pipeline sends × v, α–β on their link", "duration")
    ep_seconds: float = quantity("expert-parallel all-to-alls on their links, not overlapped", "duration")
    dp_seconds: float = quantity("data-parallel (or ZeRO-3) traffic, α–β on its link", "duration")
    dp_exposed_seconds: float = quantity("the part of the data-parallel traffic that no compute hides", "duration")
    optimizer_seconds: float = quantity("the optimizer step: the training state read and written once", "duration")
    bubble: float = quantity("x/(1 + x), x = (p − 1)/(v·m): the pipeline's idle share of the step", "percent")
    bubble_seconds: float = quantity("busy × x, the pipeline's fill and drain", "duration")
    step_seconds: float = quantity("busy × (1 + x) + exposed DP + optimizer, the step model's", "duration",
                                   of=step_seconds)
    mfu: float = quantity("model FLOPs / (step × GPUs × peak)", "percent")
    bottleneck: str  # the largest share of the step: "compute", "bubble" or a cut


@cache  # asked again for every (tp, cp) over the same few pipeline depths, and for every plan of one model depth
def _chunk_options(layers: int, pp: int) -> tuple:
    """v values whose chunks hold whole layers: divisors of k = ⌈L/p⌉; () when no split of L layers over p stages works.

    Middle stages hold k layers each and the first and last together the rest,
    between 0 and 2k (Megatron-LM's --decoder-first/last-pipeline-num-layers;
    Llama 3 gives its end stages one layer fewer, §3.3.2): (p − 2)·k ≤ L.
    """
    if not splits_into_stages(layers, pp):
        return ()
    k, _ = stage_blocks(layers, pp)
    return tuple(v for v in range(1, k + 1) if k % v == 0)


def _interleaving(pp: int, chunks: int, schedule: str = "1f1b") -> float:
    """What the schedule multiplies 1F1B's first-stage activations by: interleaving's 1 + (p − 1)/(p·v) for v ≥ 2;
    DualPipe's (p + 1)/p, its p + 1 micro-batches in flight against 1F1B's p (DeepSeek-V3 §3.2.1, table 2); else 1."""
    if schedule == "dualpipe":
        return (pp + 1) / pp
    return 1 + (pp - 1) / (pp * chunks) if chunks > 1 else 1


def _weight_copies(pp: int, schedule: str) -> int:
    """Copies of its stage's parameters (and their gradients and optimizer state) a GPU holds: DualPipe's two, one
    for each direction of its pipeline (DeepSeek-V3 §3.2.1, table 2), for a pipeline of more than one stage; else one."""
    return 2 if schedule == "dualpipe" and pp > 1 else 1


@cache  # a plan asks for the same few (tokens, tp, recomputation) again for every pp and dp, and so does every plan of one block
def _activations(config, tp: int, cp: int, pp: int, seq_len: int, recompute: str, b: int = MICRO_BATCH) -> float:
    """1F1B's fuller of the first two stages: the first keeps p micro-batches of its end share of blocks, the second
    p − 1 of ⌈L/p⌉ (stage_blocks), each block what memory.block_activation_bytes counts (FlashAttention and fused
    kernels, with sequence parallelism); the output layer's only at p = 1."""
    per_block = _block_activations(config, tp, cp, seq_len, recompute=recompute, b=b)
    return _stage_activations(_shape(config), tp, cp, pp, seq_len, per_block, b)


def _stage_activations(shape, tp: int, cp: int, pp: int, seq_len: int, per_block: float, b: int) -> float:
    """_activations from one block's (_block_activations): a plan's search keeps the block's per (tp, cp) and
    recomputation, and asks this for every pipeline depth."""
    if pp == 1:
        return shape.layers * per_block + _output_activations(shape.d, shape.vocab, seq_len // cp, b, tp=tp)
    full, end = stage_blocks(shape.layers, pp)
    return max(pp * end, (pp - 1) * full) * per_block


@cache  # the same for every pipeline depth: a plan asks it once per (tp, cp) and recomputation
def _block_activations(config, tp: int, cp: int, seq_len: int, recompute: str, b: int) -> float:
    """What one block keeps for the backward pass, averaged over the model's dense and MoE blocks
    (memory.block_activation_bytes, FlashAttention's)."""
    shape, tokens = _shape(config), b * seq_len // cp

    def kept(moe: bool) -> float:
        return block_activation_bytes(shape, tokens, seq_len, tp=tp, sequence_parallel=True, attention="flash",
                                      recompute=recompute, moe=moe)

    # A kind no block is (a model whose every block is MoE, or none) weighs 0: not counted.
    dense = kept(False) if shape.layers > shape.moe_layers else 0.0
    moe = kept(True) if shape.moe_layers else 0.0
    return ((shape.layers - shape.moe_layers) * dense + shape.moe_layers * moe) / shape.layers


@cache  # the same for every recomputation mode, and for every plan of one width and vocabulary
def _output_activations(hidden: int, vocab: int, tokens: int, b: int, tp: int) -> float:
    return activation_output_bytes(tokens, b, hidden, vocab, tp=tp, sequence_parallel=True)


def _state(config, m: _Model, layout: Layout, optimizer: str, schedule: str = "1f1b") -> float:
    """Model-state bytes per GPU on the first stage, under the layout's ZeRO stage, × DualPipe's copies."""
    shards = layout.dp * layout.cp
    shared = _shared_state(config, m, layout.tp, layout.pp, shards, layout.zero_stage, optimizer)
    experts = (_expert_state(m, layout.pp * layout.tp * layout.ep, shards // layout.ep, layout.zero_stage, optimizer)
               if m.routed else 0.0)
    return _state_total(shared, experts, layout.pp, schedule)


def _state_total(shared: float, experts: float, pp: int, schedule: str) -> float:
    """The first stage's shared and routed-expert state (none for a dense model) × DualPipe's copies."""
    return (shared + experts) * _weight_copies(pp, schedule)


def _expert_state(m: _Model, split: int, shards: int, zero_stage: int, optimizer: str) -> float:
    """Model-state bytes per GPU of the routed experts: each expert lives on one of ep GPUs, so a GPU holds the
    routed parameters over pp·tp·ep (`split`), and the dp·cp/ep GPUs holding the same experts (`shards`) shard their
    state; both depend on the layout only through pp·tp·ep."""
    return zero_breakdown(m.routed / split, shards, zero_stage, optimizer).total


@cache  # the same for every EP degree of a (tp, pp) and ZeRO stage: an MoE plan asks it once per expert split
def _shared_state(config, m: _Model, tp: int, pp: int, shards: int, zero_stage: int, optimizer: str) -> float:
    """Model-state bytes per GPU of the first stage's parameters other than the routed experts, sharded over the dp·cp
    GPUs under the ZeRO stage (memory.training_memory_per_gpu)."""
    return training_memory_per_gpu(_first_stage_shared_params(config, m, pp), shards, zero_stage, optimizer,
                                   activations=0.0, tp=tp).total


def _check(m: _Model, layout: Layout, cluster: Cluster, seq_len: int, sequences: int, b: int = MICRO_BATCH,
           practice: Practice = PLANNED) -> "str | None":
    """The structural reason a layout is rejected, or None."""
    if layout.tp > cluster.gpu.scale_up_gpus:
        return "tp_crosses_scale_up"
    if m.heads % layout.tp:
        return "tp_heads"
    if not _chunk_options(m.layers, layout.pp):
        return "pp_layers"
    if _odd_for_dualpipe(layout.pp, practice.schedule):
        return "pp_dualpipe"
    if seq_len % layout.cp:
        return "cp_sequence"
    if layout.ep > 1 and (m.experts % layout.ep or layout.dp % layout.ep):
        return "ep_experts"
    if sequences % (layout.dp * b):
        return "dp_batch"
    if sequences // (layout.dp * b) < layout.pp:
        return "micro_batches"
    return None


def _odd_for_dualpipe(pp: int, schedule: str) -> bool:
    """DualPipe pairs stage i with stage p − 1 − i, the two directions' halves: it needs an even p (DeepSeek-V3 §3.2.1)."""
    return schedule == "dualpipe" and pp % 2 == 1 and pp > 1


def _practice(practice) -> Practice:
    if not isinstance(practice, Practice):
        raise EstimatorError("practice", practice, "a planner.Practice")
    return practice


def _chunks_of(layers: int, pp: int, practice: Practice) -> tuple:
    """The v a schedule tries: divisors of ⌈L/p⌉ when interleaved (_chunk_options), one chunk otherwise."""
    return _chunk_options(layers, pp) if pp > 1 and practice.schedule == "interleaved" else (1,)


def layout_plan(config, layout: Layout, cluster: Cluster, seq_len: int, global_batch_tokens: int, recompute: str,
                chunks: int = 1, optimizer: str = "adam_fp32_grads", micro_batch: int = MICRO_BATCH,
                practice: Practice = PLANNED) -> LayoutPlan:
    """Memory per GPU, step time and MFU of one layout, with the rest of its breakdown (see the module docstring).

    A published run's own layout, at its own micro-batch; plan_layouts asks it of every layout at one sequence.
    """
    b = positive_int("micro_batch", micro_batch)
    practice = _practice(practice)
    m, s, sequences = _one_layout(config, layout, cluster, seq_len, global_batch_tokens=global_batch_tokens, b=b,
                                  practice=practice)
    options = _chunks_of(m.layers, layout.pp, practice)
    if positive_int("chunks", chunks) not in options:
        raise EstimatorError("chunks", chunks, f"one of {options}: chunks of whole layers the schedule runs")
    return _plan(config, m, layout, cluster, s=s, sequences=sequences,
                 recompute=one_of("recompute", recompute, RECOMPUTE_ORDER), chunks=chunks,
                 optimizer=one_of("optimizer", optimizer, tuple(OPTIMIZERS)), state=None, b=b, practice=practice)


def _one_layout(config, layout, cluster, seq_len, global_batch_tokens, b, practice=PLANNED) -> tuple:
    """(model, sequence length, sequences per step) of a layout asked for by name, or the error naming its fault."""
    if not isinstance(cluster, Cluster):
        raise EstimatorError("cluster", cluster, "a planner.Cluster")
    if not isinstance(layout, Layout):
        raise EstimatorError("layout", layout, "a parallelism.Layout")
    m = _model(config)
    s, sequences = _batch(seq_len, global_batch_tokens)
    if layout.gpus != cluster.gpus:
        raise EstimatorError("layout", layout, f"tp × cp × pp × dp = the cluster's {cluster.gpus} GPUs")
    reason = _check(m, layout, cluster, s, sequences=sequences, b=b, practice=practice)
    if reason:
        argument = REJECTED_ARGUMENT[reason]
        raise EstimatorError(argument, getattr(layout, argument), REJECTIONS[reason])
    return m, s, sequences


def fastest_layout_plan(config, layout: Layout, cluster: Cluster, seq_len: int, global_batch_tokens: int,
                        optimizer: str = "adam_fp32_grads", practice: Practice = PLANNED) -> "LayoutPlan | None":
    """The fastest fitting ZeRO stage, recomputation and v for the degrees of one layout, as the planner's search picks them.

    None when no choice fits; a structural rejection raises, naming the degree.
    """
    practice = _practice(practice)
    m, s, sequences = _one_layout(config, layout, cluster, seq_len, global_batch_tokens=global_batch_tokens,
                                  b=MICRO_BATCH, practice=practice)
    search = _Search(config, m, cluster, s, sequences=sequences,
                     optimizer=one_of("optimizer", optimizer, tuple(OPTIMIZERS)), practice=practice)
    found = _branch_and_bound(search, [layout] if search.fits(layout) else [], 1)
    return found[0] if found else None


def _batch(seq_len: int, global_batch_tokens: int) -> tuple:
    s = positive_int("seq_len", seq_len)
    tokens = positive_int("global_batch_tokens", global_batch_tokens)
    if tokens % s:
        raise EstimatorError("global_batch_tokens", tokens, f"a whole number of sequences of {s} tokens")
    return s, tokens // s


def _plan(config, m, layout, cluster, s, sequences, recompute, chunks, optimizer, state=None, base=None,
          b: int = MICRO_BATCH, practice: Practice = PLANNED) -> LayoutPlan:
    state = _state(config, m, layout, optimizer, practice.schedule) if state is None else state
    if base is None:
        base = _activations(config, layout.tp, layout.cp, layout.pp, seq_len=s, recompute=recompute, b=b)
    act = base * _interleaving(layout.pp, chunks, practice.schedule)
    used = state + act
    fits = memory_fit(used, cluster.gpu.memory_bytes).fits
    step = layout_step(config, layout, cluster, s, global_batch_tokens=sequences * s, recompute=recompute,
                       chunks=chunks, micro_batch=b, practice=practice)
    compute = step.gemm_seconds + step.attention_seconds + step.memory_bound_seconds + step.recompute_seconds
    shares = {"compute": compute, "bubble": step.bubble_seconds, "tp": step.tp_seconds, "cp": step.cp_seconds,
              "pp": step.pp_seconds, "ep": step.ep_seconds, "dp": step.dp_exposed_seconds}
    return LayoutPlan(layout=layout, recompute=recompute, chunks=chunks, micro_batches=step.micro_batches,
                      memory_bytes=used, activation_bytes=act, fits=fits, compute_seconds=compute,
                      tp_seconds=step.tp_seconds, cp_seconds=step.cp_seconds, pp_seconds=step.pp_seconds,
                      ep_seconds=step.ep_seconds, dp_seconds=step.dp_seconds, dp_exposed_seconds=step.dp_exposed_seconds,
                      optimizer_seconds=step.optimizer_seconds, bubble=step.bubble_share,
                      bubble_seconds=step.bubble_seconds, step_seconds=step.step_seconds,
                      mfu=step.mfu, bottleneck=max(shares, key=shares.get))


def layout_step(config, layout: Layout, cluster: Cluster, seq_len: int, global_batch_tokens: int, recompute: str = "none",
                chunks: int = 1, micro_batch: int = MICRO_BATCH, practice: Practice = PLANNED):
    """The step time of one layout and choice on a cluster, busy × (1 + x) + exposed DP + optimizer, on the framework
    the planner assumes (sequence parallelism, FlashAttention, FP32 gradients reduced behind the backward pass) with
    the practice's schedule, overlaps and routing."""
    s, sequences = _batch(seq_len, global_batch_tokens)
    setup = planned_setup(layout, recompute, chunks, micro_batch, practice=_practice(practice), gpu=cluster.gpu)
    return step_seconds(_shape(config), setup, cluster.gpu, s, global_batch=sequences)


@cache  # one per model: every layout of every plan of it reads the same
def _shape(config):
    return shape_of(config)


@dataclass(frozen=True)
class Plan:
    """The layouts that fit, fastest first, and the rejected ones counted by reason."""

    best: tuple[LayoutPlan, ...]  # the fastest layouts that fit, fastest first
    rejected: tuple  # (reason text, count), most common first; reasons in REJECTIONS
    layouts: int = quantity("TP × CP × PP × DP × EP degrees whose product is the cluster", "integer")
    fitting: int = quantity("of them, the layouts that fit with some ZeRO stage and recomputation", "integer")
    tie: float = quantity("steps closer than this share tie: the step model's mean error on runs it was not fitted on",
                          "percent")
    places: tuple  # each of `best`'s place: 1 + the layouts of `best` faster than it by more than `tie`


@cache  # the published runs are timed once: every plan reads the same figure
def model_error() -> float:
    """The step model's mean |predicted / measured − 1| over the published runs its constants were not fitted on: how
    far apart two predicted steps must be before one layout is faster (the validation summary's held-out error)."""
    from .step_runs import validation_summary  # step_runs reads the planner's neighbours; imported when first asked
    return validation_summary(fit=False).mean_abs_error


def tied_places(steps: tuple, tie: float) -> tuple:
    """Each step's place: 1 + the steps shorter than it by more than the share `tie` (step × (1 + tie) < its own);
    steps closer than that share a place."""
    return tuple(1 + sum(other * (1 + tie) < step for other in steps) for step in steps)


@cache  # asked for the same few numbers again for every degree above
def _divisors(n: int) -> tuple:
    """The divisors of n, smallest first, found in √n steps (16,384 GPUs: 128 of them)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(small + [n // d for d in reversed(small) if d * d != n])


def plan_layouts(config, cluster: Cluster, seq_len: int, global_batch_tokens: int, optimizer: str = "adam_fp32_grads",
                 best: int = BEST, practice: Practice = PLANNED) -> Plan:
    """The fastest layouts of a model on a cluster by predicted step time, and every rejected one counted by reason.

    Enumerates TP × CP × PP × DP = GPUs (and EP dividing DP, for MoE), keeps for
    each the cheapest ZeRO stage, recomputation and chunk count that fit (see
    the module docstring), and ranks the fitting layouts by step time; those
    whose steps differ by less than the step model's measured error share a
    place (tied_places).
    """
    n = positive_int("best", best)
    search, fitting, rejected, count = _enumerate(config, cluster, seq_len, global_batch_tokens, optimizer=optimizer,
                                                  practice=_practice(practice))
    top = _branch_and_bound(search, fitting, n)
    reasons = tuple((REJECTIONS[r], c) for r, c in sorted(rejected.items(), key=lambda rc: -rc[1]))
    tie = model_error()
    return Plan(top, reasons, count, len(fitting), tie=tie, places=tied_places(tuple(p.step_seconds for p in top), tie))


def _enumerate(config, cluster, seq_len, global_batch_tokens, optimizer, practice=PLANNED) -> tuple:
    """(the plan's _Search, every layout that fits in the order met, rejections by reason, layouts).

    The degrees' structural checks come from _structure, kept for every plan
    of the same cluster, depth, heads, experts and batch (a reader typing a
    width or a GPU's rates re-uses them); only memory is tried here, for each
    layout that passes them, in the order they were met. Rejections are
    counted in the order each reason was first met, as a walk over every
    layout in turn would count them.
    """
    if not isinstance(cluster, Cluster):
        raise EstimatorError("cluster", cluster, "a planner.Cluster")
    m = _model(config)
    s, sequences = _batch(seq_len, global_batch_tokens)
    search = _Search(config, m, cluster, s, sequences=sequences,
                     optimizer=one_of("optimizer", optimizer, tuple(OPTIMIZERS)), practice=practice)
    groups, structural, count = _structure(cluster.gpus, cluster.gpu.scale_up_gpus, m.heads, m.layers, m.experts,
                                           bool(m.routed), s, sequences, practice.schedule)
    fitting, first_memory, memory = [], None, 0
    for (tp, cp, pp), layouts in groups:
        lightest = search.lightest(tp, cp, pp)
        for place, layout in layouts:
            if search.state(layout, ZERO_STAGES[-1]) + lightest <= search.limit:  # search.fits
                fitting.append(layout)
            else:
                memory += 1
                first_memory = place if first_memory is None else first_memory
    firsts = dict(structural)
    if memory:
        firsts["memory"] = (first_memory, memory)
    rejected = {reason: c for reason, (_, c) in sorted(firsts.items(), key=lambda item: item[1][0])}
    return search, fitting, rejected, count


@lru_cache(maxsize=64)  # typing a width, a GPU's rates, memory or links keeps the same structure
def _structure(gpus: int, scale_up_gpus: int, heads: int, layers: int, experts: int, routed: bool, seq_len: int,
               sequences: int, schedule: str) -> tuple:
    """(((tp, cp, pp), ((place, layout), …)), …) of every layout that passes the structural checks, grouped by (tp, cp,
    pp) in the order met and each with its place in that order; {reason: (first place, count)} of those rejected;
    the layouts counted.

    Cheapest test first: a TP degree that crosses a scale-up domain or splits
    the heads rejects every layout under it, counted without building one; the
    other degrees are checked as whole numbers (_check's reasons, in _check's
    order); DualPipe needs an even number of stages.
    """
    rejected, groups, count = {}, [], 0

    def reject(reason, layouts):
        first, before = rejected.get(reason, (count, 0))
        rejected[reason] = (first, before + layouts)

    for tp in _divisors(gpus):
        if tp > scale_up_gpus or heads % tp:
            layouts = _layouts_under(gpus // tp, routed)
            reject("tp_crosses_scale_up" if tp > scale_up_gpus else "tp_heads", layouts)
            count += layouts
            continue
        for cp in _divisors(gpus // tp):
            for pp in _divisors(gpus // (tp * cp)):
                dp = gpus // (tp * cp * pp)
                eps = _divisors(dp) if routed else (1,)
                reason = ("pp_layers" if not _chunk_options(layers, pp) else
                          "pp_dualpipe" if _odd_for_dualpipe(pp, schedule) else
                          "cp_sequence" if seq_len % cp else None)
                if reason:
                    reject(reason, len(eps))
                    count += len(eps)
                    continue
                after = ("dp_batch" if sequences % (dp * MICRO_BATCH) else
                         "micro_batches" if sequences // (dp * MICRO_BATCH) < pp else None)
                passed = []
                for ep in eps:
                    reason = "ep_experts" if ep > 1 and (experts % ep or dp % ep) else after
                    if reason:
                        reject(reason, 1)
                    else:
                        passed.append((count, Layout(tp, cp, pp, dp, ep=ep)))
                    count += 1
                if passed:
                    groups.append(((tp, cp, pp), tuple(passed)))
    return tuple(groups), tuple(rejected.items()), count


@cache  # the same few remainders recur for every rejected TP degree and every plan of one cluster
def _layouts_under(gpus: int, routed: bool) -> int:
    """CP × PP × DP (× EP dividing DP, for MoE) products equal to `gpus`: the layouts under one TP degree."""
    return sum(len(_divisors(gpus // (cp * pp))) if routed else 1 for cp in _divisors(gpus) for pp in _divisors(gpus // cp))


class _Search:
    """One plan's model, cluster and batch, and what its layouts share: each piece computed once, keyed by what it
    depends on, whichever layout asks first."""

    def __init__(self, config, m: _Model, cluster: Cluster, s: int, sequences: int, optimizer: str,
                 practice: Practice = PLANNED):
        self.config, self.m, self.cluster, self.s, self.sequences, self.optimizer = config, m, cluster, s, sequences, optimizer
        self.shape, self.gpu, self.practice = _shape(config), cluster.gpu, practice
        # What every layout's setup holds besides its degrees.
        self.framework = planned_setup(Layout(), practice=practice, gpu=cluster.gpu)
        self.limit = cluster.gpu.memory_bytes * (1 + FIT_TOLERANCE)  # memory_fit's rule, without its checks, in the inner loop
        self.shared, self.states = {}, {}

    def fits(self, layout) -> bool:
        """Whether any choice fits: whether the lightest does, one chunk (interleaving only adds activations) of
        the recomputation that keeps the least, beside ZeRO-3's state (it shards the most, so holds the least)."""
        return self.state(layout, ZERO_STAGES[-1]) + self.lightest(layout.tp, layout.cp, layout.pp) <= self.limit

    def lightest(self, tp: int, cp: int, pp: int) -> float:
        """The least activations any choice of these tp, cp and pp keeps: one chunk of the recomputation that keeps
        the least, on the practice's schedule (the same for every DP and EP degree)."""
        return self.pieces(tp, cp, pp)[2] * _interleaving(pp, 1, self.practice.schedule)

    def stage(self, layout, activation_bytes: float) -> "int | None":
        """The lowest ZeRO stage whose model state fits beside these activations, or None."""
        room = self.limit - activation_bytes
        for stage in ZERO_STAGES:
            if self.state(layout, stage) <= room:
                return stage
        return None

    def state(self, layout, stage: int) -> float:
        """_state at a ZeRO stage: dp·cp is the cluster over tp·pp, whatever cp is, so one figure per (tp, pp, ep)."""
        key = (layout.tp, layout.pp, layout.ep, stage)
        bill = self.states.get(key)  # asked thousands of times a plan: one look-up each
        if bill is None:
            bill = self.states[key] = self._state(layout.tp, layout.pp, layout.ep, stage)
        return bill

    def _state(self, tp: int, pp: int, ep: int, stage: int) -> float:
        """_state from its two parts, each kept once a plan by what it depends on: the shared state by (tp, pp), the
        routed experts' by pp·tp·ep, the GPUs over tp·pp holding each part of them (many (tp, pp, ep) share it)."""
        shards = self.cluster.gpus // (tp * pp)
        shared = self.states.get(("shared", tp, pp, stage))
        if shared is None:
            shared = self.states[("shared", tp, pp, stage)] = _shared_state(self.config, self.m, tp, pp, shards, stage,
                                                                             self.optimizer)
        experts = 0.0
        if self.m.routed:
            split = pp * tp * ep
            experts = self.states.get(("experts", split, stage))
            if experts is None:
                experts = self.states[("experts", split, stage)] = _expert_state(self.m, split, shards // ep, stage,
                                                                                 self.optimizer)
        return _state_total(shared, experts, pp, self.practice.schedule)

    def choices(self, layout) -> list:
        """(a floor on the step time, degrees and ZeRO stage, recomputation, v, state, activations) of every choice
        that fits.

        For each recomputation and v, only the lowest fitting ZeRO stage (the
        stages above it shard more state and gather weights for every
        micro-batch, never faster). The floor is the step model's step
        (step_time.step_seconds, what _plan reports), a rounding's width below it.
        """
        tp, cp, pp, dp, ep = layout.tp, layout.cp, layout.pp, layout.dp, layout.ep
        options, bases, _ = self.pieces(tp, cp, pp)
        found = []
        lighter, picked = {}, []  # chunks: the ZeRO stage a cheaper recomputation fits with
        for recompute, base in bases:
            for chunks in options:
                stage = self.stage(layout, base * _interleaving(pp, chunks, self.practice.schedule))
                # More recomputation at the same ZeRO stage only adds arithmetic: never faster (step_time).
                if stage is None or lighter.get(chunks) == stage:
                    continue
                lighter.setdefault(chunks, stage)
                picked.append((stage, recompute, chunks, base))
        terms = self.terms(layout)
        return [(terms.choice(stage, recompute, chunks).step_seconds * FLOOR_MARGIN, (tp, cp, pp, dp, ep, stage), recompute,
                 chunks, self.state(layout, stage), base) for stage, recompute, chunks, base in picked]

    def block(self, layout) -> object:
        """step_time.block_terms of a layout's tp, cp and ep: one per (tp, cp, ep) of a plan."""
        key = ("block", layout.tp, layout.cp, layout.ep)
        if key not in self.shared:
            self.shared[key] = block_terms(self.shape,
                                           planned_setup(Layout(layout.tp, layout.cp, 1, layout.ep, ep=layout.ep),
                                                         practice=self.practice, gpu=self.gpu),
                                           self.gpu, self.s)
        return self.shared[key]

    def terms(self, layout) -> LayoutTerms:
        """step_time.LayoutTerms of a layout, what its bound and its choices share: one per layout of a plan."""
        key = ("terms", layout.tp, layout.cp, layout.pp, layout.dp, layout.ep)
        if key not in self.shared:
            self.shared[key] = LayoutTerms(self.shape, self.framework, self.gpu, self.s, global_batch=self.sequences,
                                           block=self.block(layout),
                                           degrees=key[1:])
        return self.shared[key]

    def floors(self) -> tuple:
        """The floors _branch_and_bound tries a layout's choices against, cheapest first, each a floor under every
        choice: for an MoE model one per (tp, cp) before its (tp, cp, ep) block terms (an MoE plan has several EP
        degrees of each); `exposed` before `bound`, whose memory and terms it spares most layouts of many GPUs."""
        return ((self.cheap, self.quick, self.exposed, self.bound, self.tight) if self.m.routed else
                (self.quick, self.exposed, self.bound, self.tight))

    def cheap(self, layout) -> float:
        """A floor under `quick` from tp and cp alone: m micro-batches × ⌈L/p⌉ blocks of step_time.block_floor_seconds,
        its rounding kept under quick's (FLOOR_MARGIN five times)."""
        key = ("cheap", layout.tp, layout.cp)
        if key not in self.shared:
            self.shared[key] = block_floor_seconds(self.shape, planned_setup(Layout(layout.tp, layout.cp, 1, 1),
                                                                             practice=self.practice, gpu=self.gpu),
                                                   self.gpu, self.s)
        # The same for every EP degree of a (tp, cp, pp, dp): one product per such layout.
        floor = self.shared.get(("cheap", layout.tp, layout.cp, layout.pp, layout.dp))
        if floor is None:
            micro_batches = self.sequences // (layout.dp * self.framework.micro_batch)
            full = stage_blocks(self.m.layers, layout.pp)[0]
            floor = self.shared[("cheap", layout.tp, layout.cp, layout.pp, layout.dp)] = (
                micro_batches * full * self.shared[key] * FLOOR_MARGIN ** 5)
        return floor

    def quick(self, layout) -> float:
        """A floor from the (tp, cp, ep) block terms alone: m micro-batches × the busiest stage's
        ⌈L/p⌉ blocks of compute with their tensor- and context-parallel traffic, what every choice's step holds at
        least (step_time.LayoutTerms.floor adds the output layer, recomputation, sends, the bubble and the optimizer),
        its rounding kept under the bound's (FLOOR_MARGIN four times)."""
        micro_batches = self.sequences // (layout.dp * self.framework.micro_batch)
        return micro_batches * self.micro(layout) * FLOOR_MARGIN ** 4

    def micro(self, layout) -> float:
        """The busiest stage's ⌈L/p⌉ blocks of compute with their tensor- and context-parallel traffic: a floor under
        any choice's micro-batch."""
        block = self.block(layout)
        return stage_blocks(self.m.layers, layout.pp)[0] * (block.compute_seconds + block.tp_seconds + block.cp_seconds)

    def exposed(self, layout) -> float:
        """`quick` with the least data-parallel time any ZeRO stage leaves exposed behind its micro-batches
        (step_time.busy_and_exposed_floor_seconds), before the layout's memory or its other terms are counted: on a
        large cluster many layouts only `tight` would otherwise drop are dropped here, for the price of the cut's
        collectives. Its rounding kept under the choices' floors (FLOOR_MARGIN four times)."""
        micro_batches = self.sequences // (layout.dp * self.framework.micro_batch)
        floor = busy_and_exposed_floor_seconds(self.micro(layout), micro_batches, *self.collectives(layout),
                                               self.framework.dp_overlap, stage_blocks(self.m.layers, layout.pp)[0])
        return floor * FLOOR_MARGIN ** 4

    def collectives(self, layout) -> tuple:
        """The data-parallel cut's (gradient reduction, weight gathering) seconds unsharded (ZeRO-0) and sharded
        (step_time.data_parallel_collectives): they depend on the layout only through tp·pp, ep and the group's members
        in a server, which many layouts share, so kept once a plan by those."""
        per_server = members_per_server(layout.tp, layout.cp, layout.pp, self.gpu)
        key = ("collectives", layout.tp * layout.pp, layout.ep, per_server)
        found = self.shared.get(key)
        if found is None:
            degrees = layout.tp, layout.cp, layout.pp, layout.dp, layout.ep
            found = self.shared[key] = tuple(data_parallel_collectives(self.shape, self.framework, degrees, stage,
                                                                       self.gpu) for stage in (0, 1))
        return found

    def bound(self, layout) -> float:
        """A floor under `tight`: step_time.LayoutTerms.floor at the same choices without the exposed data-parallel
        time (unless every choice is ZeRO-3), its rounding kept under tight's (FLOOR_MARGIN three times)."""
        return self.terms(layout).floor(*self.least(layout), data_parallel=False) * FLOOR_MARGIN ** 3

    def tight(self, layout) -> float:
        """A floor under the floor of every choice of a layout: step_time.LayoutTerms.floor with the cheapest
        recomputation that fits, the most chunks that fit and the lowest ZeRO stage any choice fits with, the least
        exposed data-parallel time of the stages from it (memory is known before time; ZeRO-3's state is the least any
        stage holds). Twice FLOOR_MARGIN: its own rounding kept under the choices' floors, each the step a rounding's
        width below it."""
        return self.terms(layout).floor(*self.least(layout)) * FLOOR_MARGIN ** 2

    def least(self, layout) -> tuple:
        """(lowest ZeRO stage, cheapest recomputation, most chunks, their schedule) any choice of a layout fits with:
        the arguments of its floors, kept once per layout."""
        key = ("least", layout.tp, layout.cp, layout.pp, layout.dp, layout.ep)
        found = self.shared.get(key)
        if found is None:
            options, bases, lightest = self.pieces(layout.tp, layout.cp, layout.pp)
            room = self.limit - self.state(layout, ZERO_STAGES[-1])
            cheapest = next(r for r, base in bases if base <= room)  # SEARCHED: least arithmetic first
            # The most chunks any choice fits with: those that fit beside the lightest activations, the largest first.
            schedule = self.practice.schedule
            most = next(v for v in reversed(options) if lightest * _interleaving(layout.pp, v, schedule) <= room)
            lowest = self.stage(layout, lightest * _interleaving(layout.pp, 1, schedule))  # DualPipe's extra micro-batch
            found = self.shared[key] = lowest, cheapest, most, _schedule(most, self.practice)
        return found

    def block_activations(self, tp: int, cp: int, recompute: str) -> float:
        """_block_activations of one (tp, cp) and recomputation: the same for every pipeline depth of a plan."""
        key = ("block activations", tp, cp, recompute)
        per_block = self.shared.get(key)
        if per_block is None:
            per_block = self.shared[key] = _block_activations(self.config, tp, cp, self.s, recompute=recompute,
                                                              b=MICRO_BATCH)
        return per_block

    def pieces(self, tp: int, cp: int, pp: int) -> tuple:
        """(chunk counts, (recompute, activations) pairs of each searched recomputation, the least activations of
        them) of every layout with these tp, cp and pp: what its memory needs, tried before any time is counted."""
        key = ("pieces", tp, cp, pp)
        if key not in self.shared:
            options = _chunks_of(self.m.layers, pp, self.practice)
            bases = tuple((r, _stage_activations(self.shape, tp, cp, pp, self.s, self.block_activations(tp, cp, r),
                                                 MICRO_BATCH)) for r in SEARCHED)
            self.shared[key] = options, bases, min(base for _, base in bases)
        return self.shared[key]


def _branch_and_bound(search: _Search, layouts: list, n: int, below: float = math.inf) -> tuple:
    """The n fastest of `layouts` (each fits), evaluating choices in order of their floor and stopping once no floor
    can beat the n-th.

    A layout's choices are counted only once its bound could be the next
    floor: every layout whose bound is no higher than the lowest floor
    waiting is expanded first, so choices come out in the order of their
    floor (ties in the order the layouts were met). A layout's next floor
    (_Search.floors, cheapest first) is computed only once the one before
    could be the next, and it stands at the highest of them so far: each is
    a floor under every choice of the layout, so a layout whose floor
    already reaches the n-th best step is never bounded further, and the
    choices timed, and their order, are those their own floors give. Exact: a choice whose floor is no shorter than
    the n-th best step found cannot enter the best n, nor improve a layout
    already in it.
    """
    floors = search.floors()
    pending = [(floors[0](layout), i, 0) for i, layout in enumerate(layouts)]  # (floor, place, which floor), a heap
    heapq.heapify(pending)
    waiting = []  # (floor, layout's place, choice's place, choice), a heap
    best, bar = {}, below
    while True:
        while pending and pending[0][0] < bar and (not waiting or pending[0][0] <= waiting[0][0]):
            floor, i, level = heapq.heappop(pending)
            if level + 1 < len(floors):
                # Each floor bounds the same choices: the higher of two is one too, and keeps the heap's order.
                heapq.heappush(pending, (max(floor, floors[level + 1](layouts[i])), i, level + 1))
                continue
            for j, choice in enumerate(search.choices(layouts[i])):
                heapq.heappush(waiting, (choice[0], i, j, choice))
        if not waiting or waiting[0][0] >= bar:
            break
        _, degrees, recompute, chunks, state, base = heapq.heappop(waiting)[3]
        layout = Layout(*degrees)
        plan = _plan(search.config, search.m, layout, search.cluster, s=search.s, sequences=search.sequences,
                     recompute=recompute, chunks=chunks,
                     optimizer=search.optimizer, state=state, base=base, practice=search.practice)
        cut = degrees[:5]
        if plan.step_seconds >= below:
            continue
        if cut not in best or plan.step_seconds < best[cut].step_seconds:
            best[cut] = plan
            if len(best) >= n and plan.step_seconds < bar:
                bar = heapq.nsmallest(n, (p.step_seconds for p in best.values()))[-1]
    return tuple(heapq.nsmallest(n, best.values(), key=lambda p: p.step_seconds))


def layout_preset_cluster(key: str) -> Cluster:
    """The cluster of a published layout (a `layouts` preset): its GPUs, their links, the best matmul rate measured for them."""
    lay = load_presets().layout(key)
    return cluster_preset(lay.gpu, lay.tp * lay.cp * lay.pp * lay.dp, lay.scale_up, lay.scale_out)


def layout_preset_plan(key: str, best: int = BEST) -> Plan:
    """Every layout ranked for a published layout's model, cluster, sequence length and batch: what the planner would pick there."""
    lay = load_presets().layout(key)
    return plan_layouts(load_presets().model(lay.model).config, layout_preset_cluster(key), lay.seq_len,
                        lay.global_batch * lay.seq_len, best=best)


def model_sequence_length(config, seq_len: int) -> int:
    """min(s, P): a sequence of s tokens, cut to the P rows of a model's learned position table where it has one
    (GPT-2's 1,024); a model with rotary positions (P = 0) takes any length."""
    s = positive_int("seq_len", seq_len)
    positions = getattr(config, "max_positions", 0)
    return min(s, positions) if positions else s


def fleet_plan(model: str, gpu: str, gpus: int, precision: str = "bf16", layout: str = "llama3-405b-8k") -> Plan:
    """The planner's fastest layout of a preset model on a count of preset GPUs, ranked on a published layout's links,
    its batch of B·s tokens and its sequence length s, cut to the model's learned positions where it has them, the
    matrix multiplies at the chosen precision's peak: what a run of that model on those GPUs would reach, laid out as
    the planner would lay it out, rather than another model's run.

    plan_layouts with model_sequence_length; best=1."""
    lay = load_presets().layout(layout)
    config = load_presets().model(model).config
    cluster = cluster_preset(gpu, positive_int("gpus", gpus), lay.scale_up, lay.scale_out, precision)
    s = model_sequence_length(config, lay.seq_len)
    return plan_layouts(config, cluster, s, step_tokens(lay.global_batch, lay.seq_len) // s * s, best=1)


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
    own = fastest_layout_plan(config, Layout(lay.tp, lay.cp, lay.pp, lay.dp), cluster, s, global_batch_tokens=tokens)
    search, fitting, _, _ = _enumerate(config, cluster, s, tokens, optimizer="adam_fp32_grads")
    if own is None:
        return Standing(None, len(fitting) + 1, len(fitting))
    faster = _branch_and_bound(search, fitting, len(fitting), own.step_seconds)
    return Standing(own, len(faster) + 1, len(fitting))


# A step's parts, each a LayoutPlan field in seconds, as the step model adds them: busy (compute and the exposed
# traffic of each cut) + bubble + exposed data-parallel time + optimizer.
STEP_PARTS = {"compute_seconds": "arithmetic", "tp_seconds": "TP traffic", "cp_seconds": "CP traffic",
              "pp_seconds": "pipeline sends", "ep_seconds": "expert all-to-alls", "bubble_seconds": "the pipeline's bubble",
              "dp_exposed_seconds": "data-parallel traffic", "optimizer_seconds": "the optimizer step"}


@dataclass(frozen=True)
class StepPart:
    """One part of a step on two layouts: what it is, and its seconds on each."""

    name: str  # the LayoutPlan field it reads (STEP_PARTS)
    label: str  # what a reader reads
    own_seconds: float = quantity("on the published layout", "duration")
    best_seconds: float = quantity("on the planner's best", "duration")


@dataclass(frozen=True)
class RunStanding:
    """A published run's own layout beside the planner's best on the same cluster and batch."""

    own: LayoutPlan  # the run's degrees at their fastest fitting choice
    best: LayoutPlan
    ratio: float = quantity("the published layout's predicted step / the planner's best step", "times")
    parts: tuple = ()  # StepPart of each part of the step, the one the published layout loses most on first

    @property
    def why(self) -> StepPart:
        """The part of the step the published layout spends most more seconds on than the planner's best."""
        return self.parts[0]


def measured_run_standing(key: str) -> RunStanding:
    """A published run's layout, timed by the planner on its own cluster and batch, over the planner's best there:
    own step / best step (both on the framework the planner assumes, in the run's precision, with its overlaps, routing
    and schedule)."""
    from .step_runs import measured_runs
    run = measured_runs()[one_of("key", key, tuple(measured_runs()))]
    cluster = cluster_preset(run.gpu, run.setup.gpus, run.scale_up, run.scale_out, run.precision)
    s, tokens = run.seq_len, run.global_batch * run.seq_len
    su, practice = run.setup, run_practice(run)
    own = fastest_layout_plan(run.config, Layout(su.tp, su.cp, su.pp, su.dp, ep=su.ep), cluster, s,
                              global_batch_tokens=tokens, practice=practice)
    if own is None:
        raise EstimatorError("key", key, "a run whose own layout fits under the planner's memory count")
    best = plan_layouts(run.config, cluster, s, tokens, best=1, practice=practice).best[0]
    return RunStanding(own, best, own.step_seconds / best.step_seconds, parts=step_parts(own, best))


def step_parts(own: LayoutPlan, best: LayoutPlan) -> tuple:
    """Each part of two layouts' steps (STEP_PARTS, which add up to each step), the one the first spends most seconds
    more on first: where a published layout's step is longer than the planner's best, and by how much."""
    parts = (StepPart(name, label, getattr(own, name), getattr(best, name)) for name, label in STEP_PARTS.items())
    return tuple(sorted(parts, key=lambda part: part.best_seconds - part.own_seconds))


def step_tokens(sequences: int, seq_len: int) -> int:
    """B·s: the tokens of a step of B sequences of s tokens."""
    return positive_int("sequences", sequences) * positive_int("seq_len", seq_len)


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
