"""Six ways to cut one training job, and the traffic each cut creates.

Pick a cut, a model and how many GPUs share it: what each GPU holds
(estimators.gpu_share), the collective the cut runs every step, the bytes each
GPU sends, and their time on the link they cross (NVLink when the group fits in
one server's NVLink domain, the network otherwise) next to the step's
arithmetic, both as the step model times them (estimators.layout_traffic:
its α–β collectives on group_link's link, its matrix multiplies, attention and
memory-bound kernels), and whether each GPU's training state
fits its memory (estimators.memory_fit). Two pictures: what each of four GPUs
holds under every cut (estimators.cut_slices, drawn once by figures.cut_holdings,
the picked cut shown live), and the picked cut's collective between four of the
GPUs (estimators.cut_sends) above their state against their memory
(figures.parallel_cuts, redrawn with every answer).
"""

import estimators
from estimators import parallelism, units

from ..contract import Output, choice, from_entry, from_estimate, from_preset, model_choice, preset, read, typed, whole

TITLE = "Six ways to cut one training job"
CHART = "parallel_cuts"
TEMPLATE = "parallel_cuts.html"

_PRESETS = estimators.load_presets()
DIAGRAM_GPUS = 4  # the seed's picture: four GPUs under each cut


def _links(scope: str) -> dict:
    return {key: f"{link.name} · {units.si(link.bandwidth_bytes_per_s, 'B/s')}"
            for key, link in _PRESETS.interconnects.items() if link.scope == scope}


FIELDS = (
    choice("cut", "Cut", parallelism.CUTS, play=True,
           note="one cut alone over all the GPUs below; the table above nests them as Llama 3 does"),
    model_choice("model", "Model", _PRESETS.models),
    whole("gpus", "GPUs sharing the cut", unit="GPUs", max=1e6),  # a million: past any fleet built
    choice("gpu", "GPU", {key: gpu.name for key, gpu in _PRESETS.gpus.items()}),
    choice("scale_up", "Link inside a server", _links("scale-up")),
    choice("scale_out", "Network between servers", _links("scale-out")),
    whole("seq_len", "Sequence length", unit="tokens", max=1e7),  # past any context window
    whole("global_batch", "Batch", unit="sequences per step", max=1e7),
    whole("micro_batch", "Micro-batch", unit="sequences", max=1e5),
)
# Beside the picture (the cut, and what it cuts over how many GPUs); the rest under "More inputs".
MAIN = ("cut", "model", "gpus")

_TRAFFIC = ("cut", "model", "gpus", "seq_len", "global_batch", "micro_batch")
# The α–β model pays each collective's latency once per micro-batch: the micro-batch moves the time, not the bytes.
_LINK = (*_TRAFFIC, "gpu", "scale_up", "scale_out")
# The step model times the arithmetic from the shapes the cut leaves each GPU.
_COMPUTE = ("cut", "model", "gpus", "gpu", "seq_len", "global_batch", "micro_batch")

OUTPUTS = (
    Output("holds", "Each GPU holds", detail="holds_detail", of=estimators.gpu_share,
           uses=("cut", "model", "gpus", "seq_len", "global_batch")),
    Output("collective", "Traffic it creates", detail="group", of=estimators.layout_traffic, uses=("cut", "gpus")),
    Output("fit", "Against one GPU's memory", detail="fit_detail", of=estimators.memory_fit, uses=("cut", "model", "gpus", "gpu")),
    Output("traffic", "Bytes each GPU sends per step", detail="per_micro_batch", of=(estimators.CutTraffic, "traffic_bytes"),
           uses=_TRAFFIC),
    Output("link_time", "Time on the link", detail="link", of=(estimators.CutTraffic, "link_seconds"), uses=_LINK),
    Output("compute", "The step's arithmetic", detail="compute_detail", of=(estimators.LayoutTraffic, "compute_seconds"),
           uses=_COMPUTE),
    Output("verdict", sentence=True, of=(estimators.CutTraffic, "comm_ratio"), uses=tuple(dict.fromkeys((*_LINK, *_COMPUTE)))),
)


def presets() -> dict:
    """Each cut at the degree Llama 3 405B gives it (its 8K stage; context parallelism from its 128K stage),
    then cuts the paper does not use, at the degree of one server. A cut inside one data-parallel replica
    works on that replica's share of the batch; data parallelism on the whole batch."""
    short, long = _PRESETS.layout("llama3-405b-8k"), _PRESETS.layout("llama3-405b-128k")

    def state(cut: str, gpus, layout, model=None) -> dict:
        batch = (from_preset(layout, "global_batch") if cut == "dp" else
                 from_estimate(estimators.replica_sequences, layout.global_batch, layout.dp, entries=(layout,)))
        return {
            "cut": cut, "model": model or from_preset(layout, "model"), "gpus": gpus, "gpu": from_entry(_PRESETS.gpu(layout.gpu)),
            "scale_up": from_entry(_PRESETS.interconnect(layout.scale_up)),
            "scale_out": from_entry(_PRESETS.interconnect(layout.scale_out)), "seq_len": from_preset(layout, "seq_len"),
            "global_batch": batch, "micro_batch": from_preset(layout, "micro_batch"),
        }

    server = from_preset(_PRESETS.gpu(short.gpu), "nvlink_domain_gpus")
    return {
        "llama3-405b-tp": preset(FIELDS, f"Llama 3 405B: TP {short.tp}", state("tp", from_preset(short, "tp"), short)),
        "llama3-405b-pp": preset(FIELDS, f"Llama 3 405B: PP {short.pp}", state("pp", from_preset(short, "pp"), short)),
        "llama3-405b-dp": preset(FIELDS, f"Llama 3 405B: DP {short.dp}", state("dp", from_preset(short, "dp"), short)),
        "llama3-405b-cp": preset(FIELDS, f"Llama 3 405B, 128K: CP {long.cp}", state("cp", from_preset(long, "cp"), long)),
        "zero-8b": preset(FIELDS, "Llama 3 8B: FSDP over one server",
                          state("zero", server, short, from_entry(_PRESETS.model("llama3-8b")))),
        "ep-deepseek-v3": preset(FIELDS, "DeepSeek-V3: experts over one server",
                                 state("ep", server, short, from_entry(_PRESETS.model("deepseek-v3")))),
    }


def _batch_error(state: dict, s: dict, dp: int) -> estimators.EstimatorError:
    """A batch that the replicas cannot split into whole micro-batches, named on the field the reader
    set, with the other field's part said in words."""
    batch, micro = s["global_batch"], s["micro_batch"]
    field = typed(FIELDS, presets(), state, ("micro_batch", "global_batch"))
    if field == "micro_batch" and batch % dp == 0:
        each = batch // dp
        share = (f"the batch of {units.integer(batch)}" if dp == 1 else
                 f"each data-parallel replica's share of the batch of {units.integer(batch)}, split {units.integer(dp)} ways")
        return estimators.EstimatorError("micro_batch", state["micro_batch"], (
            f"a divisor of {units.noun(each, 'sequences')}, {share}, so that it runs in whole micro-batches"))
    replicas = "" if dp == 1 else f", for {units.integer(dp)} data-parallel replicas"
    return estimators.EstimatorError("global_batch", state["global_batch"], (
        f"a multiple of {units.integer(dp * micro)} sequences per step: whole micro-batches of {units.integer(micro)}{replicas}"))


def _link_text(link, cut) -> str:
    """The link a cut's collective crosses and the bandwidth per GPU the step model gives it there."""
    if not link:
        return "no link crossed"
    text = f"on {link.name}, {units.si(cut.bytes_per_s, 'B/s')} each way"
    if cut.bytes_per_s > link.bandwidth_bytes_per_s:
        # Rings and trees between servers run on every card of a server whose GPUs are in the group.
        text += f": the cards of its GPUs in each server together, {units.si(link.bandwidth_bytes_per_s, 'B/s')} each"
    return text


def update(state: dict) -> dict:
    """Outputs (text) and the diagram's rows for one state of the form."""
    s = read(FIELDS, state)
    model, gpu = _PRESETS.model(s["model"]), _PRESETS.gpu(s["gpu"])
    if "bf16" not in gpu.peak_flops:
        raise estimators.EstimatorError("gpu", s["gpu"], "a GPU with a BF16 peak")
    timed = estimators.gpu_preset(s["gpu"], s["scale_up"], s["scale_out"], parallelism.PRECISION)
    if s["cut"] == "ep" and s["gpus"] > 1 and isinstance(model.config, estimators.DecoderConfig):
        raise estimators.EstimatorError("model", state["model"], "a mixture-of-experts model: a dense one has no experts")
    layout = estimators.single_cut_layout(s["cut"], s["gpus"])
    up, out = _PRESETS.interconnect(s["scale_up"]), _PRESETS.interconnect(s["scale_out"])
    try:
        t = estimators.layout_traffic(model.config, layout, s["seq_len"], s["micro_batch"],
                                      global_batch=s["global_batch"], gpu=timed)
    except estimators.EstimatorError as error:
        # The layout's own degrees (tp, pp, cp, ep) are the GPU count the reader typed.
        if error.argument in ("tp", "pp", "cp", "ep", "dp"):
            raise estimators.EstimatorError("gpus", state["gpus"], error.allowed) from None
        if error.argument == "global_batch":
            raise _batch_error(state, s, layout.dp) from None
        raise
    share = estimators.gpu_share(model.config, layout, s["seq_len"], s["global_batch"])
    fit = estimators.memory_fit(share.state_bytes, gpu.memory_bytes)
    cut = next(c for c in t.cuts if c.cut == s["cut"]) if s["gpus"] > 1 else None
    link = (up if cut.scale_up else out) if cut else None
    # One GPU alone has no cut: it sends nothing and waits on no link.
    traffic = cut.traffic_bytes if cut else 0.0
    seconds = cut.link_seconds if cut else 0.0
    ratio = cut.comm_ratio if cut else 0.0
    # A GPU's memory as its vendor means it: "80 GiB" (presets store the binary capacity).
    memory = f"the {units.bytes_(gpu.memory_bytes, binary=True)} of one {gpu.name}"
    layers = f"{units.number(share.layers)} layers"
    if not cut:
        per_micro_batch = "none: one GPU sends nothing"
    elif cut.every_micro_batch:
        # FSDP gathers every weight twice and reduces every gradient for each micro-batch; the other cuts send per layer.
        what = "the weights gathered twice, the gradients reduced" if s["cut"] == "zero" else f"over the {layers} each GPU holds"
        per_micro_batch = (f"{units.bytes_(cut.micro_batch_bytes)} per micro-batch × {units.integer(t.micro_batches)} "
                           f"micro-batches of {units.integer(s['micro_batch'])}, {what}")
    else:
        per_micro_batch = f"once a step, after all {units.integer(t.micro_batches)} micro-batches of {units.integer(s['micro_batch'])}"
    outputs = {
        "holds": f"{units.count(share.params)} parameters, {units.bytes_(share.state_bytes)} of training state",
        "holds_detail": (
            f"{units.number(share.layers)} of {units.integer(model.config.layers)} layers · "
            f"{units.number(share.sequences)} of {units.integer(s['global_batch'])} sequences · "
            f"{units.integer(share.tokens_per_sequence)} tokens of each"
        ),
        "fit": f"{units.percent(fit.ratio)}: fits" if fit.fits else f"{units.times(fit.ratio)}: does not fit",
        "fit_detail": f"{units.bytes_(share.state_bytes)} of training state against {memory}, before activations",
        "collective": parallelism.COLLECTIVES[s["cut"]],
        "group": f"among {units.integer(cut.group_gpus)} GPUs" if cut else "none: one GPU talks to no one",
        "traffic": units.bytes_(traffic),
        "per_micro_batch": per_micro_batch,
        "link_time": units.duration(seconds),
        "link": _link_text(link, cut),
        "compute": units.duration(t.compute_seconds),
        "compute_detail": (
            f"matrix multiplies, attention and memory-bound kernels of {units.count(s['global_batch'] * s['seq_len'])} "
            f"tokens on {units.integer(layout.gpus)} × {gpu.name}, at the shapes the cut leaves"
        ),
    }
    if ratio > 1:
        outputs["verdict"] = (
            f"Communication-bound: the link needs {units.times(ratio)} the step's arithmetic, "
            "unless the traffic is hidden behind it."
        )
    else:
        outputs["verdict"] = f"Compute-bound: the traffic takes {units.percent(ratio)} of the step's arithmetic time."
    outputs["summary"] = (
        f"{parallelism.CUTS[s['cut']]} over {units.integer(s['gpus'])} GPUs: each sends {outputs['traffic']} per step, "
        f"{outputs['link_time']} on its link against {outputs['compute']} of arithmetic. {outputs['verdict']} "
        f"Each GPU's state against its memory: {outputs['fit']}, {outputs['fit_detail']}."
    )
    drawn = min(DIAGRAM_GPUS, s["gpus"])
    of_all = "" if drawn == s["gpus"] else f" of {units.integer(s['gpus'])}"
    sends = estimators.cut_sends(s["cut"], drawn)
    each = f"each sends {outputs['traffic']} a step" if cut else "one GPU alone sends nothing"
    # What one arrow carries: what the GPU sends a step, to one neighbour, each way, or to each of the others.
    each_send = units.bytes_(estimators.send_bytes(s["cut"], traffic, s["gpus"]))
    data = {
        "gpus": [{"gpu": i, "bytes": share.state_bytes,
                  "label": f"GPU {i + 1}: {outputs['holds']}; {'fits' if fit.fits else 'does not fit'} in {memory}"}
                 for i in range(drawn)],
        "memory": [{"bytes": gpu.memory_bytes, "label": f"red line: {memory}"}],
        "sends": [{"source": c.source, "target": c.target, "carries": f"{c.carries}, {each_send} a step",
                   "label": f"GPU {c.source + 1} sends {c.carries} to GPU {c.target + 1}, {each_send} a step"} for c in sends],
        # Lines short enough for the picture's width at a phone's (the collective's name is an output above).
        "note": [{"text": f"{units.integer(drawn)}{of_all} GPUs; {each}"}],
    }
    return {"outputs": outputs, "data": data}


def slices() -> list:
    """What each of four GPUs holds under every cut, for the holdings diagram (figures.cut_holdings)."""
    return [
        {"cut": key, "title": title, "gpu": i, **{f: list(getattr(sl, f)) for f in
                                                   ("layers", "width", "state", "batch", "tokens", "experts")}}
        for key, title in parallelism.CUTS.items()
        for i, sl in enumerate(estimators.cut_slices(key, DIAGRAM_GPUS))
    ]
