"""Where one step's time goes: a published run, or a model of the site's or the reader's own on a reader's GPUs, links,
framework and layout.

The step model (estimators.relaid_run, its waterfall estimators.step_waterfall) times one step of a published run's
sequences and batch, with the run's own model, one of the site's models or one the reader types by its shape (as a
config.json gives it: layers, width, heads, key/value heads, MLP width, vocabulary; the planner's fields), on the GPU
count, GPU, links, framework and layout in the form, and breaks it into the time the model's arithmetic would take at
the GPUs' BF16 peak and one bar for each loss on the way to the step: matrix multiplies below peak, attention,
memory-bound kernels, the FSDP trainer's own costs, recomputation, each cut's exposed traffic, the pipeline's bubble
and the optimizer. Beside the prediction, the run's measured throughput on its own layout, for the run's own model on
its own GPU and links only: no one measured another model or cluster there.
"""

import math
from dataclasses import replace

import estimators
from estimators import step_time, units

from ..contract import Output, choice, from_entry, from_preset, preset, read, typed
from . import planner

TITLE = "Where one step's time goes"
CHART = "mfu_waterfall"

_PRESETS = estimators.load_presets()
_RUNS = estimators.measured_runs()
# The step model's vocabularies, as a reader reads them.
_FRAMEWORK_NAMES = {"megatron": "Megatron-LM (fused kernels)", "fsdp_eager": "PyTorch FSDP, eager",
                    "fsdp_compiled": "PyTorch FSDP, compiled"}
_RECOMPUTE_NAMES = {"none": "none", "selective": "the attention core", "ops": "most operators",
                    "full": "the whole forward pass"}
_DEGREES = ("tp", "cp", "pp", "ep")
# The model field's option for the published run's own model, whose configuration may be none of the site's models.
RUNS_OWN = "run"
# The model field's option for a model the reader types by its shape, under "More inputs".
TYPED = "typed"
# A typed model's shape: the planner's fields for a dense model (its MLP width is the dense block's, so no note of
# experts). The rest of the block is Llama's: a gated MLP, RMSNorm, rotary positions, untied embeddings.
SHAPE = ("layers", "d_model", "heads", "kv_heads", "ffn_dim", "vocab")
_SHAPE_FIELDS = tuple(replace(f, note="") for f in planner.FIELDS if f.name in SHAPE)
# Each link as presets.toml declares its reach: inside a server, or a network card between servers.
_LINKS = {scope: {key: link.name for key, link in _PRESETS.interconnects.items() if link.scope == scope}
          for scope in ("scale-up", "scale-out")}


def _options(name: str, most: int) -> dict:
    """A count's options: every power of two up to `most`, and every count a published run used."""
    values = {2 ** i for i in range(most.bit_length())} | {getattr(run.setup, name) for run in _RUNS.values()}
    return {str(v): units.integer(v) for v in sorted(values)}


def _model_label(m) -> str:
    return f"{m.name} · {units.count(m.params)} parameters"


# Degrees offered up to a fleet of 16,384 GPUs, Llama 3's: TP inside an 8-GPU server, as many stages as blocks, EP over
# as many GPUs as DeepSeek-V3's 64.
FIELDS = (
    choice("run", "Published run", {key: run.name for key, run in _RUNS.items()},
           note="its sequences, batch, precision and measurement"),
    choice("framework", "Framework", {f: _FRAMEWORK_NAMES[f] for f in step_time.FRAMEWORKS}),
    choice("model", "Model", {RUNS_OWN: "the run's own", **{key: _model_label(m) for key, m in _PRESETS.models.items()},
                              TYPED: "your own, by its shape (under More inputs)"}),
    choice("gpus", "GPUs", _options("gpus", 16384), note="data-parallel replicas: the GPUs over TP × CP × PP"),
    choice("tp", "Tensor parallelism (GPUs)", _options("tp", 8)),
    choice("pp", "Pipeline stages", _options("pp", 128)),
    choice("cp", "Context parallelism (GPUs)", _options("cp", 32)),
    choice("ep", "Expert parallelism (GPUs)", _options("ep", 64), note="for a mixture of experts"),
    choice("recompute", "Recomputation", {r: _RECOMPUTE_NAMES[r] for r in step_time.RECOMPUTE_MODES}),
    choice("gpu", "GPU", {key: gpu.name for key, gpu in _PRESETS.gpus.items()}),
    choice("scale_up", "Link inside a server", _LINKS["scale-up"]),
    choice("scale_out", "Network card between servers", _LINKS["scale-out"]),
    *_SHAPE_FIELDS,
)
# Beside the picture: the run, its framework, the model and how many GPUs; the layout under "More inputs".
MAIN = ("run", "framework", "model", "gpus")

_ALL = tuple(f.name for f in FIELDS)
_W = estimators.StepWaterfall
_R = estimators.RelaidRun

OUTPUTS = (
    Output("predicted", "Predicted throughput", detail="ratio", of=(_W, "tokens_per_second_per_gpu"), uses=_ALL),
    Output("measured", "Measured, as published", detail="measured_layout", of=(_R, "measured"),
           uses=("run", "model", "gpu", "scale_up", "scale_out", *SHAPE)),
    Output("mfu", "MFU of the step", detail="step", of=(_W, "mfu"), uses=_ALL),
    Output("largest", "Largest loss", of=estimators.step_waterfall, uses=_ALL),
)


def _layout(setup: step_time.Setup, framework: str, gpu_name: str) -> str:
    """"16,384 GPUs: TP 8 · CP 1 · PP 16 · DP 128, Megatron-LM (fused kernels), H100 SXM"."""
    degrees = " · ".join(f"{d.upper()} {units.integer(getattr(setup, d))}" for d in ("tp", "cp", "pp", "dp"))
    experts = f" · EP {units.integer(setup.ep)}" if setup.ep > 1 else ""
    return f"{units.integer(setup.gpus)} GPUs: {degrees}{experts}, {_FRAMEWORK_NAMES[framework]}, {gpu_name}"


_DENSE = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.DecoderConfig)}


def _shape_model(run):
    """The site's model whose shape a typed model starts from: the run's own where the site has it, else the dense model
    nearest it in parameters (the runs' configurations are no presets.toml entries, so none can supply a field)."""
    own = [m for m in _DENSE.values() if m.config == run.config]
    params = step_time.shape_of(run.config).params
    return own[0] if own else min(_DENSE.values(), key=lambda m: abs(math.log(m.params / params)))


def presets() -> dict:
    """One starting state per published run, on its own model, GPU, links and layout (the first is the default); then
    the first run of a site's model over data parallelism alone with that model typed by its shape (torchtitan's Llama
    3.1 8B on one server): its measurement beside it until a field of the shape moves."""
    def values(key, run, model=RUNS_OWN):
        degrees = {d: str(getattr(run.setup, d)) for d in _DEGREES}
        shape = _shape_model(run)
        return {"run": key, "model": model, "gpus": str(run.setup.gpus), "framework": run.setup.framework,
                **degrees, "recompute": run.setup.recompute, "gpu": from_entry(_PRESETS.gpu(run.gpu)),
                "scale_up": from_entry(_PRESETS.interconnect(run.scale_up)),
                "scale_out": from_entry(_PRESETS.interconnect(run.scale_out)),
                **{name: from_preset(shape, f"config.{name}") for name in SHAPE}}
    states = {key: preset(FIELDS, run.name, values(key, run)) for key, run in _RUNS.items()}
    key, run = next((key, run) for key, run in _RUNS.items()
                    if run.setup.gpus == run.setup.dp and _shape_model(run).config == run.config)
    states[TYPED] = preset(FIELDS, f"Typed by its shape: {run.name}", values(key, run, TYPED))
    return states


def _config(state: dict, s: dict):
    """The form's model: the run's own, a site model's, or the typed shape, each fault of which is named on the field
    of the pair the reader set."""
    if s["model"] != TYPED:
        return _RUNS[s["run"]].config if s["model"] == RUNS_OWN else _PRESETS.model(s["model"]).config

    def fault(pair, messages):
        field = typed(FIELDS, presets(), state, pair)
        return estimators.EstimatorError(field, state[field], messages[field])

    if error := planner.heads_fault(s, fault):
        raise error
    return estimators.DecoderConfig(s["layers"], s["d_model"], s["heads"], s["kv_heads"], ffn_dim=s["ffn_dim"],
                                    vocab=s["vocab"])


def _setup(s: dict, run, config) -> step_time.Setup:
    """The run's setup on the form's GPUs and degrees: DP = GPUs / (TP × CP × PP), refused by the GPU count when it
    does not divide; EP only over a mixture of experts' experts."""
    tp, cp, pp, ep, gpus = (int(s[d]) for d in (*_DEGREES, "gpus"))
    if gpus % (tp * cp * pp):
        raise estimators.EstimatorError("gpus", s["gpus"], f"a GPU count that TP × CP × PP = "
                                        f"{units.integer(tp * cp * pp)} GPUs divides")
    experts = estimators.model_experts(config).experts
    if experts % ep:
        raise estimators.EstimatorError("ep", s["ep"], f"a number of GPUs that divides the model's "
                                        f"{units.noun(experts, 'experts')}" if experts > 1 else
                                        "1: a dense model has no experts to split")
    return replace(run.setup, tp=tp, cp=cp, pp=pp, dp=gpus // (tp * cp * pp), ep=ep, framework=s["framework"],
                   recompute=s["recompute"])


def _relaid(state: dict, s: dict) -> estimators.RelaidRun:
    """The run's sequences and batch with the form's model on its layout; a layout the batch, sequence or model cannot
    take is refused by the field that sets it, the batch's data-parallel split by the GPU count and a precision by the
    GPU."""
    run = _RUNS[s["run"]]
    config = _config(state, s)
    setup = _setup(s, run, config)
    try:
        return estimators.relaid_run(s["run"], setup, s["gpu"], model=config, scale_up=s["scale_up"],
                                     scale_out=s["scale_out"])
    except estimators.EstimatorError as error:
        if error.argument in ("global_batch", "dp"):
            raise estimators.EstimatorError("gpus", s["gpus"], f"a GPU count whose {units.integer(setup.dp)} "
                                            f"data-parallel replicas split the run's batch of "
                                            f"{units.integer(run.global_batch)} sequences evenly") from None
        if s["model"] == TYPED and error.argument in _SPLITS:
            shape, allowed = _SPLITS[error.argument]
            if typed(FIELDS, presets(), state, (error.argument, shape)) == shape:
                raise estimators.EstimatorError(shape, state[shape], allowed.format(units.integer(int(s[error.argument]))))
        named = "gpu" if error.argument == "precision" else error.argument
        raise estimators.EstimatorError(named if named in _ALL else "pp", error.value, error.allowed) from None


# A degree a typed shape cannot take, the step model refuses by the degree: named instead on the shape's field when the
# reader typed that, in its units.
_SPLITS = {"pp": ("layers", "a whole number of blocks that {} pipeline stages split into whole stages"),
           "tp": ("heads", "a whole number of heads that {} tensor-parallel GPUs split evenly")}


NONE = "—"  # what a slot shows with no published measurement to show


def update(state: dict) -> dict:
    """Outputs (text) and the waterfall's rows for one state of the form."""
    s = read(FIELDS, state)
    relaid = _relaid(state, s)
    w, run = relaid.waterfall, _RUNS[s["run"]]
    losses = sorted(w.losses, key=lambda bar: -bar.seconds)
    said = "the run's own layout" if relaid.own_layout else "this layout"
    predicted = f"{units.si(w.tokens_per_second_per_gpu, 'tokens/s')} per GPU"
    if relaid.measured is None:
        own_cluster = (s["gpu"], s["scale_up"], s["scale_out"]) == (run.gpu, run.scale_up, run.scale_out)
        why = "the run trained another model" if own_cluster else "the run was measured on its own GPU and links"
        measured = {"ratio": f"no measurement to compare: {why}", "measured": NONE,
                    "measured_layout": "published for the run's own model on its own GPU and links only"}
    else:
        measured = {"ratio": f"{units.times(relaid.ratio)} the measured, on {said}",
                    "measured": f"{units.si(relaid.measured, 'tokens/s')} per GPU",
                    "measured_layout": f"on {_layout(run.setup, run.setup.framework, _PRESETS.gpu(run.gpu).name)}"}
    outputs = {
        "predicted": predicted, **measured,
        "mfu": units.percent(w.mfu),
        "step": f"one step: {units.duration(w.step_seconds)}",
        "largest": f"{losses[0].label}: {units.percent(losses[0].share)} of the step",
    }
    outputs["summary"] = (f"{run.name}: predicted {outputs['predicted']}, {outputs['ratio']}; MFU {outputs['mfu']}; "
                          f"largest loss {outputs['largest']}.")
    return {"outputs": outputs, "data": {"bars": _rows(w)}}


def _rows(w: estimators.StepWaterfall) -> list:
    """The waterfall's rows: the peak, each loss stepping down from it by its share, and the MFU left."""
    rows = [{"order": 0, "label": "the GPUs' peak", "start": 0.0, "end": 1.0, "kind": "peak", "value": units.percent(1)}]
    level = 1.0
    # A loss the layout does not have (a cut it does not make) is no row: the picture keeps to what the step spends.
    for order, bar in enumerate((bar for bar in w.losses if bar.seconds), start=1):
        rows.append({"order": order, "label": bar.label, "start": min(level, level - bar.share),
                     "end": max(level, level - bar.share), "kind": "loss" if bar.share >= 0 else "gain",
                     "value": units.percent(bar.share)})
        level -= bar.share
    rows.append({"order": len(rows), "label": "MFU", "start": 0.0, "end": w.mfu, "kind": "MFU",
                 "value": units.percent(w.mfu)})
    return rows
