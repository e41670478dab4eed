"""The layout planner: every TP × CP × PP × DP × EP cut of a model on a cluster, ranked.

Type a model's configuration (or start from a preset's) and a cluster: the
planner (estimators.plan_layouts) tries every layout that multiplies out to
the GPUs, with each ZeRO stage, recomputation mode and interleaving, and
returns the fastest few by predicted step time, with the rejected ones
counted by reason. The precision, the pipeline schedule and what the
framework overlaps are the reader's choices; layouts whose predicted steps
differ by less than the step model's measured error are shown tied. A model
of one expert is dense. The picture draws the
fastest layout's GPUs (gpu_placement): one data-parallel replica,
its pipeline stages in rows, each stage's tensor- and context-parallel GPUs
in order, the servers they share outlined.
"""

from dataclasses import dataclass, replace
from functools import lru_cache

import estimators
from estimators import memory, planner, step_time, units
from estimators.parallelism import Layout
from estimators.validate import positive_int
from estimators.presets import address_of

from ..contract import Output, choice, from_entry, from_estimate, from_preset, number, preset, read, toggle, typed, whole

TITLE = "Plan a layout: the fastest ways to cut a model over a cluster"
CHART = "planner_nesting"
TEMPLATE = "planner.html"

# Input → outputs at p95 in the browser (make bench): ranking every layout of a 16,384-GPU cluster
# is a search, not a formula, so this widget answers within 50 ms rather than the site's 16 ms.
ANSWER_BUDGET_MS = 50

_PRESETS = estimators.load_presets()
PRECISIONS = {"bf16": "BF16", "fp8": "FP8 (attention in BF16)"}
SCHEDULES = {"interleaved": "1F1B or interleaved, whichever is faster", "1f1b": "1F1B", "dualpipe": "DualPipe"}
GIGA, PER_CENT = 1e9, 1e-2
# The table's rows, one per layout plan_layouts returns in full.
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")[:planner.BEST]
RANKS = len(ORDINALS)
# The picture: stages drawn (the first ones and the last), lines of GPUs a stage, GPUs a line.
DRAWN_STAGES, STAGE_LINES, LINE_GPUS = 4, 2, 16
# Every GPU preset: each gives every field the step model reads (presets.toml requires them).
_GPUS = _PRESETS.gpus
# A typed link has a bandwidth; its latency is the default cluster's links' (Llama 3's NVLink and RoCE).
_LINKS = _PRESETS.layout("llama3-405b-8k")


def _gpu_label(g) -> str:
    return f"{g.name} · {units.bytes_(g.memory_bytes, binary=True)}"


FIELDS = (
    whole("layers", "Layers", unit="blocks", max=1e4),
    whole("d_model", "Width", unit="values per token", max=1e6),
    whole("heads", "Attention heads", unit="heads", max=1e4),
    whole("kv_heads", "Key/value heads", unit="heads", max=1e4),
    whole("head_dim", "Head width", unit="values per head", max=1e5),
    whole("ffn_dim", "MLP width", unit="values per token", max=1e7, note="of one expert in a mixture of experts"),
    whole("vocab", "Vocabulary", unit="tokens", max=1e7),
    whole("experts", "Experts", unit="experts", max=1e4, note="one expert: a dense model"),
    whole("top_k", "Experts per token", unit="experts", max=1e4),
    choice("gpu", "GPU", {key: _gpu_label(g) for key, g in _GPUS.items()}),
    whole("gpus", "GPUs", unit="GPUs", max=1e6),  # a million: past any fleet built
    whole("scale_up_gpus", "GPUs per scale-up domain", unit="GPUs", max=1e5),
    # A tenth of a GB/s at least, about one 1 Gb/s Ethernet port: slower than any network GPUs are built into.
    number("scale_up_bandwidth", "Scale-up bandwidth per GPU", unit="GB/s each way", scale=GIGA, min=0.1, max=1e5),
    number("scale_out_bandwidth", "Scale-out bandwidth per GPU", unit="GB/s each way", scale=GIGA, min=0.1, max=1e5),
    # A thousandth of peak at least: below it the GPUs are idle, not multiplying.
    number("matmul_share", "Matmul efficiency", unit="% of peak", scale=PER_CENT, min=0.1, max=100,
           note="the best BF16 matrix multiply measured on the GPU, over its BF16 peak"),
    whole("seq_len", "Sequence length", unit="tokens", max=1e7),
    whole("batch_tokens", "Global batch", unit="tokens per step", max=1e11),
    choice("precision", "Matrix multiplies in", PRECISIONS, note="FP8 also sends the experts' inputs in FP8"),
    choice("schedule", "Pipeline schedule", SCHEDULES),
    toggle("ep_overlap", "Expert all-to-alls hidden behind another micro-batch's compute"),
    toggle("tp_overlap", "Tensor-parallel traffic hidden behind the matrix multiplies",
           note="all of it: the most such overlap can hide"),
)
# Beside the picture (the cluster and the batch; the model comes from an example); the rest under "More inputs".
MAIN = ("gpu", "gpus", "seq_len", "batch_tokens")

_MODEL = ("layers", "d_model", "heads", "kv_heads", "head_dim", "ffn_dim", "vocab", "experts", "top_k")
_EVERYTHING = tuple(f.name for f in FIELDS)
# At the examples the contract test moves field by field: the fastest two layouts keep their places whatever the head
# count and width (with each of a block's expert all-to-alls paying its own latency across servers, Mixtral's fastest
# stays where it is); the third and fourth whatever the head width, the fifth whatever the head count.
_BEST = tuple(f for f in _EVERYTHING if f not in ("heads", "head_dim"))
_BELOW = tuple(f for f in _EVERYTHING if f != "head_dim")
_FIFTH = tuple(f for f in _EVERYTHING if f != "heads")
# Which of the fastest tie moves with every field but these, at the examples the contract test moves field by field:
# the head count and width shift the fastest five's steps without carrying any gap between them across the model's error,
# and overlapping the expert all-to-alls moves no gap across it either.
_TIED = tuple(f for f in _BEST if f != "ep_overlap")
# What the structural rejections read (at the presets no layout fails on memory): the degrees' divisors.
_REJECTED = ("layers", "experts", "gpus", "scale_up_gpus", "seq_len", "batch_tokens")
P = estimators.LayoutPlan

OUTPUTS = (
    Output("best", "Fastest layout", detail="best_choices", of=estimators.plan_layouts, uses=_BEST),
    Output("memory", "Memory per GPU", detail="memory_share", of=(P, "memory_bytes"), uses=_EVERYTHING),
    Output("step", "Step time", detail="bottleneck", of=(P, "step_seconds"), uses=_EVERYTHING),
    Output("mfu", "MFU", detail="bubble", of=(P, "mfu"), uses=_EVERYTHING),
    *(o for i in range(1, RANKS + 1) for o in (
        Output(f"rank{i}", ORDINALS[i - 1], detail=f"rank{i}_choices", of=estimators.plan_layouts,
               uses=_BEST if i in (1, 2) else _BELOW if i in (3, 4) else _FIFTH),
        Output(f"rank{i}_memory", of=(P, "memory_bytes"), uses=_EVERYTHING),
        Output(f"rank{i}_step", of=(P, "step_seconds"), uses=_EVERYTHING),
        Output(f"rank{i}_mfu", of=(P, "mfu"), uses=_EVERYTHING),
        Output(f"rank{i}_bottleneck"),
        Output(f"rank{i}_place"),
    )),
    Output("ties", "Ties", sentence=True, of=(estimators.Plan, "tie"), uses=_TIED),
    Output("rejected", "Rejected", sentence=True, of=(estimators.Plan, "fitting"), uses=_REJECTED),
)

BOTTLENECKS = {"compute": "arithmetic", "bubble": "the pipeline's bubble", "tp": "TP traffic", "cp": "CP traffic",
               "pp": "pipeline sends", "ep": "expert all-to-alls", "dp": "data-parallel traffic"}


def _model_values(model) -> dict:
    """The typed configuration of a preset model, each value from its entry (a dense model: one expert, top-1)."""
    c = model.config
    values = {name: from_preset(model, f"config.{name}") for name in ("layers", "d_model", "heads", "kv_heads", "vocab")}
    if isinstance(c, estimators.MoeConfig):
        values.update(head_dim=(from_preset(model, "config.head_dim") if c.head_dim else
                                from_estimate(estimators.head_dim, c.d_model, c.heads, entries=(model,))),
                      ffn_dim=from_preset(model, "config.expert_ffn_dim"),
                      experts=from_preset(model, "config.routed_experts"), top_k=from_preset(model, "config.top_k"))
    else:
        values.update(head_dim=from_estimate(estimators.head_dim, c.d_model, c.heads, entries=(model,)),
                      ffn_dim=from_preset(model, "config.ffn_dim"),
                      experts=from_estimate(estimators.model_experts, c, attribute="experts", entries=(model,)),
                      top_k=from_estimate(estimators.model_experts, c, attribute="top_k", entries=(model,)))
    return values


def _cluster_values(lay) -> dict:
    """A published layout's cluster and batch: its GPU, their count and links, the best matmul rate measured for it."""
    g = _PRESETS.gpu(lay.gpu)
    return {
        "gpu": from_entry(g), "gpus": from_estimate(estimators.layout_preset_cluster, address_key(lay), attribute="gpus",
                                                    entries=(lay,)),
        "scale_up_gpus": from_preset(g, "nvlink_domain_gpus"),
        "scale_up_bandwidth": from_preset(_PRESETS.interconnect(lay.scale_up), "bandwidth_bytes_per_s", GIGA),
        "scale_out_bandwidth": from_preset(_PRESETS.interconnect(lay.scale_out), "bandwidth_bytes_per_s", GIGA),
        "matmul_share": from_estimate(estimators.layout_preset_cluster, address_key(lay), attribute="gpu.matmul_share",
                                      scale=PER_CENT, entries=(lay,)),
        "seq_len": from_preset(lay, "seq_len"),
        "batch_tokens": from_estimate(estimators.step_tokens, lay.global_batch, lay.seq_len, entries=(lay,)),
        # Llama 3 trained in BF16 on 1F1B and interleaved stages, nothing overlapped that the step model counts (§3.3.2).
        "precision": "bf16", "schedule": "interleaved", "ep_overlap": False, "tp_overlap": False,
    }


def address_key(entry) -> str:
    """An entry's key in its table: "llama3-405b-8k" of layouts.llama3-405b-8k."""
    return address_of(entry).split(".", 1)[1]


def presets() -> dict:
    """Llama 3 405B on its own cluster at both sequence lengths (the first is the default), then other models there."""
    short, long = _PRESETS.layout("llama3-405b-8k"), _PRESETS.layout("llama3-405b-128k")
    m405 = _PRESETS.model(short.model)
    states = {
        "llama3-405b-8k": (short.name, m405, short),
        "llama3-405b-128k": (long.name, m405, long),
    }
    for key in ("llama3-70b", "llama3-8b", "mixtral-8x7b"):
        model = _PRESETS.model(key)
        states[key] = (f"{model.name} on the same cluster", model, short)
    return {key: preset(FIELDS, label, {**_model_values(model), **_cluster_values(lay)})
            for key, (label, model, lay) in states.items()}


def heads_fault(s: dict, fault, split_width: bool = True) -> "estimators.EstimatorError | None":
    """The typed heads' first fault, or None: a width the heads do not split evenly (`split_width`: a dense model's head
    width is the width over the heads), or heads the key/value heads do not divide; `fault(pair, messages)` names it on
    the field of the pair the reader set."""
    d, h, k = s["d_model"], s["heads"], s["kv_heads"]
    if split_width and d % h:
        return fault(("d_model", "heads"), {
            "d_model": f"a whole number of values per token that the {units.integer(h)} heads split evenly",
            "heads": f"a whole number of heads that splits the width of {units.integer(d)} values per token evenly"})
    if h % k:
        return fault(("kv_heads", "heads"), {
            "kv_heads": f"a whole number of heads that divides the {units.integer(h)} attention heads",
            "heads": f"a whole number of heads that the {units.integer(k)} key/value heads divide"})
    return None


def _shape_error(state: dict, s: dict) -> "estimators.EstimatorError | None":
    """The first fault of the typed configuration, named on the field of the pair the reader set."""
    def fault(pair, messages):
        field = typed(FIELDS, presets(), state, pair)
        return estimators.EstimatorError(field, state[field], messages[field])

    d, h, e = s["d_model"], s["heads"], s["experts"]
    if heads := heads_fault(s, fault, split_width=e == 1):
        return heads
    if s["top_k"] > e:
        return fault(("top_k", "experts"), {
            "top_k": f"a whole number of experts, at most the model's {units.noun(e, 'experts')}",
            "experts": f"a whole number of experts, at least the {units.noun(s['top_k'], 'experts per token')}"})
    if e == 1 and s["head_dim"] != d // h:
        return estimators.EstimatorError("head_dim", state["head_dim"], (
            f"the width over the heads, {units.integer(d // h)} values per head, for a dense model"))
    if s["batch_tokens"] % s["seq_len"]:
        return fault(("batch_tokens", "seq_len"), {
            "batch_tokens": f"a whole number of tokens per step, a multiple of the {units.integer(s['seq_len'])}-token sequences",
            "seq_len": f"a whole number of tokens that divides the batch of {units.integer(s['batch_tokens'])} tokens per step"})
    return None


def _config(s: dict):
    """The typed configuration: a DecoderConfig for one expert, else a MoeConfig of no dense or shared blocks."""
    d, h = s["d_model"], s["heads"]
    if s["experts"] == 1:
        return estimators.DecoderConfig(s["layers"], d, h, s["kv_heads"], ffn_dim=s["ffn_dim"], vocab=s["vocab"])
    # d/H is the configuration's default head width: a typed head width equal to it is that default.
    head = 0 if d % h == 0 and s["head_dim"] == d // h else s["head_dim"]
    return estimators.MoeConfig(s["layers"], d, h, s["kv_heads"], vocab=s["vocab"], dense_layers=0, dense_ffn_dim=0,
                                expert_ffn_dim=s["ffn_dim"], routed_experts=s["experts"], shared_experts=0,
                                top_k=s["top_k"], head_dim=head)


def plan_inputs(state: dict, s: dict) -> tuple:
    """(configuration, cluster, sequence length, batch tokens, practice): what the form asks the planner."""
    error = _shape_error(state, s)
    if error:
        raise error
    # The chosen GPU on the default cluster's links, then the reader's typed fields in place of the preset's. The typed
    # share is BF16's; at another precision the chip's own measured share there moves with it in proportion.
    preset = estimators.gpu_preset(s["gpu"], _LINKS.scale_up, _LINKS.scale_out, s["precision"])
    gpu = replace(preset, scale_up_gpus=s["scale_up_gpus"], scale_up_bytes_per_s=s["scale_up_bandwidth"],
                  scale_out_bytes_per_s=s["scale_out_bandwidth"], bf16_matmul_share=s["matmul_share"],
                  matmul_share=s["matmul_share"] * preset.matmul_share / preset.bf16_matmul_share)
    practice = planner.Practice(schedule=s["schedule"], ep_overlap=s["ep_overlap"],
                                tp_overlap=ALL_HIDDEN if s["tp_overlap"] else 0.0)
    return _config(s), estimators.Cluster(s["gpus"], gpu), s["seq_len"], s["batch_tokens"], practice


def _plan(state: dict, s: dict):
    config, cluster, seq_len, batch_tokens, practice = plan_inputs(state, s)
    return estimators.plan_layouts(config, cluster, seq_len, batch_tokens, practice=practice)


ALL_HIDDEN = 1.0  # the share of tensor-parallel traffic the toggle hides: all of it, overlap's bound


def _places(plan) -> tuple:
    """Each row's place in words: "first", or "tied first" where another of the rows shares its place."""
    return tuple(("tied " if plan.places.count(place) > 1 else "") + ORDINALS[place - 1] for place in plan.places)


def _ties(plan) -> str:
    """Which of the fastest layouts tie: those whose steps differ by less than the step model's measured error."""
    error = f"the step model's mean error on published runs it was not fitted on, {units.percent(plan.tie)}"
    groups = [[ORDINALS[i] for i, p in enumerate(plan.places) if p == place] for place in dict.fromkeys(plan.places)]
    tied = [g for g in groups if len(g) > 1]
    if not tied:
        return f"none: each layout's predicted step is more than {error}, from the next"
    named = "; ".join(f"the {', '.join(g[:-1])} and {g[-1]}" for g in tied)
    return f"{named}: their predicted steps differ by less than {error}"


def layout_text(layout) -> str:
    """"TP 8 × CP 1 × PP 16 × DP 128", with EP where the experts are split."""
    cuts = [f"TP {units.integer(layout.tp)}", f"CP {units.integer(layout.cp)}", f"PP {units.integer(layout.pp)}",
            f"DP {units.integer(layout.dp)}"]
    if layout.ep > 1:
        cuts.append(f"EP {units.integer(layout.ep)}")
    return " × ".join(cuts)


def _choices(p) -> str:
    chunks = "" if p.chunks == 1 else f" · {units.integer(p.chunks)} chunks a stage"
    return f"ZeRO-{units.integer(p.layout.zero_stage)} · recomputation: {memory.RECOMPUTE_LABELS[p.recompute]}{chunks}"


NONE = "—"  # a row of the table no fitting layout fills


def update(state: dict) -> dict:
    """Outputs (text) and the picture's rows for one state of the form."""
    s = read(FIELDS, state)
    plan = _plan(state, s)
    g = _GPUS[s["gpu"]]
    rejected = "; ".join(f"{units.integer(count)} {reason}" for reason, count in plan.rejected) or "none"
    outputs = {"rejected": (f"{units.integer(plan.fitting)} of {units.integer(plan.layouts)} layouts fit. "
                            f"Rejected: {rejected}."), "ties": _ties(plan) if plan.best else NONE}
    places = _places(plan)
    for i in range(1, RANKS + 1):
        p = plan.best[i - 1] if i <= len(plan.best) else None
        outputs.update({
            f"rank{i}_place": places[i - 1] if p else ORDINALS[i - 1],
            f"rank{i}": layout_text(p.layout) if p else NONE, f"rank{i}_choices": _choices(p) if p else NONE,
            f"rank{i}_memory": units.bytes_(p.memory_bytes) if p else NONE,
            f"rank{i}_step": units.duration(p.step_seconds) if p else NONE,
            f"rank{i}_mfu": units.percent(p.mfu) if p else NONE,
            f"rank{i}_bottleneck": BOTTLENECKS[p.bottleneck] if p else NONE,
        })
    if not plan.best:
        outputs.update(best="no layout fits", best_choices="every layout is rejected: see the reasons below",
                       memory=NONE, memory_share=NONE, step=NONE, bottleneck=NONE, mfu=NONE, bubble=NONE)
        outputs["summary"] = f"No layout fits. {outputs['rejected']}"
        return {"outputs": outputs, "data": {"gpus": [], "servers": [], "labels": _labels(None, s)}}
    top = plan.best[0]
    outputs.update(
        best=layout_text(top.layout), best_choices=_choices(top),
        memory=units.bytes_(top.memory_bytes),
        memory_share=f"of {units.bytes_(g.memory_bytes, binary=True)}, {units.bytes_(top.activation_bytes)} of it activations",
        step=units.duration(top.step_seconds), bottleneck=f"its largest cost: {BOTTLENECKS[top.bottleneck]}",
        mfu=units.percent(top.mfu), bubble=f"the pipeline idles {units.percent(top.bubble)} of the step",
    )
    outputs["summary"] = (f"Fastest: {outputs['best']}, {outputs['best_choices']}: {outputs['step']} a step at "
                          f"{outputs['mfu']} MFU, {outputs['memory']} per GPU. Ties: {outputs['ties']}. "
                          f"{outputs['rejected']}")
    gpus, servers = _picture(top.layout, s["scale_up_gpus"])
    return {"outputs": outputs, "data": {"gpus": gpus, "servers": servers, "labels": _labels(top.layout, s)}}


@dataclass(frozen=True)
class Placement:
    """Where the picture puts one GPU of a job: its rank in each cut and its server, tensor innermost."""

    tp: int  # its rank in its tensor-parallel group, from 0
    cp: int  # its rank in its context-parallel group, from 0
    pp: int  # its pipeline stage, from 0
    dp: int  # its data-parallel replica, from 0
    server: int  # its scale-up domain, from 0: neighbouring GPUs share one


def gpu_placement(layout: Layout, scale_up_gpus: int, gpu: int) -> Placement:
    """g = t + T·(c + C·(p + P·d)), the server ⌊g / GPUs per scale-up domain⌋ (Megatron-LM's order, tensor innermost)."""
    g, per = positive_int("gpu", gpu + 1) - 1, positive_int("scale_up_gpus", scale_up_gpus)
    if g >= layout.gpus:
        raise estimators.EstimatorError("gpu", gpu, f"below the layout's {layout.gpus} GPUs")
    tp, rest = g % layout.tp, g // layout.tp
    cp, rest = rest % layout.cp, rest // layout.cp
    return Placement(tp, cp, rest % layout.pp, rest // layout.pp, server=g // per)


def _drawn_stages(pp: int) -> list:
    """The stages the picture draws: all of a short pipeline, else the first ones and the last."""
    return list(range(pp)) if pp <= DRAWN_STAGES else [*range(DRAWN_STAGES - 1), pp - 1]


def _picture(layout, scale_up_gpus: int) -> tuple:
    """Rows of "gpus" (one cell each, at its line and column) and "servers" (one outline per server and line)."""
    gpus, servers = _drawn(layout, scale_up_gpus)
    return [dict(row) for row in gpus], [dict(row) for row in servers]  # the caller's own rows, never the cache's


@lru_cache(maxsize=64)  # one layout's picture is the same whatever else changed: typing seldom moves the fastest layout
def _drawn(layout, scale_up_gpus: int) -> tuple:
    stage_gpus = layout.tp * layout.cp
    shown = min(stage_gpus, STAGE_LINES * LINE_GPUS)
    tp, cp, pp, per_server = (units.integer(n) for n in (layout.tp, layout.cp, layout.pp, scale_up_gpus))
    gpus, servers = [], []
    for row, stage in enumerate(_drawn_stages(layout.pp)):
        for j in range(shown):
            g = stage * stage_gpus + j
            at = gpu_placement(layout, scale_up_gpus, g)
            line = row * (STAGE_LINES + 1) + 1 + j // LINE_GPUS  # a label line above each stage's GPUs
            server = units.integer(at.server + 1)
            gpus.append({"col": j % LINE_GPUS, "line": line, "group": at.cp % 2,
                         "label": (f"GPU {units.integer(g + 1)}: TP rank {units.integer(at.tp + 1)} of {tp}, "
                                   f"CP rank {units.integer(at.cp + 1)} of {cp}, "
                                   f"stage {units.integer(at.pp + 1)} of {pp}, server {server}")})
            edge = servers[-1] if servers else None
            if edge and edge["server"] == at.server and edge["line"] == line:
                edge["end"] = j % LINE_GPUS + 1
            else:
                servers.append({"server": at.server, "line": line, "start": j % LINE_GPUS, "end": j % LINE_GPUS + 1,
                                "label": f"server {server}, {per_server} GPUs on one scale-up link"})
    return tuple(gpus), tuple(servers)


def _labels(layout, s: dict) -> list:
    """Text of the picture: each drawn stage's heading, the pipeline's gap, what one replica stands for."""
    if layout is None:
        return [{"line": 0, "col": 0, "text": "no layout fits"}]
    stage_gpus = layout.tp * layout.cp
    shown = min(stage_gpus, STAGE_LINES * LINE_GPUS)
    more = f", {units.integer(stage_gpus - shown)} more not drawn" if stage_gpus > shown else ""
    rows = []
    stages = _drawn_stages(layout.pp)
    for row, stage in enumerate(stages):
        gap = " (stages between not drawn)" if row and stage != stages[row - 1] + 1 else ""
        rows.append({"line": row * (STAGE_LINES + 1), "col": 0,
                     "text": (f"stage {units.integer(stage + 1)} of {units.integer(layout.pp)}{gap}: "
                              f"TP {units.integer(layout.tp)} × CP {units.integer(layout.cp)}{more}")})
    replicas = layout.dp
    ep = f", experts over {units.integer(layout.ep)} of them" if layout.ep > 1 else ""
    rows.append({"line": DRAWN_STAGES * (STAGE_LINES + 1), "col": 0,
                 "text": f"one replica of {units.integer(replicas)} (DP){ep}; outlined: a server of {units.integer(s['scale_up_gpus'])}"})
    return rows
