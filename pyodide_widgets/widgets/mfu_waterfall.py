"""Where one step's time goes: a published run, or the same model on a reader's layout, framework and GPU.

The step model (estimators.relaid_run, its waterfall estimators.step_waterfall) times one step of the run's model,
sequence and batch on the layout in the form, and breaks it into the time the model's arithmetic would take at the
GPUs' BF16 peak and one bar for each loss on the way to the step: matrix multiplies below peak, attention,
memory-bound kernels, the FSDP trainer's own costs, recomputation, each cut's exposed traffic, the pipeline's
bubble and the optimizer. Beside the prediction, the run's measured throughput on its own layout.
"""

from dataclasses import replace

import estimators
from estimators import step_time, units

from ..contract import Output, choice, from_entry, preset, read

TITLE = "Where one step's time goes"
CHART = "mfu_waterfall"

_PRESETS = estimators.load_presets()
_RUNS = estimators.measured_runs()
# The step model's vocabularies, as a reader reads them.
_FRAMEWORK_NAMES = {"megatron": "Megatron-LM (fused kernels)", "fsdp_eager": "PyTorch FSDP, eager",
                    "fsdp_compiled": "PyTorch FSDP, compiled"}
_RECOMPUTE_NAMES = {"none": "none", "selective": "the attention core", "ops": "most operators",
                    "full": "the whole forward pass"}
_DEGREES = ("tp", "cp", "pp", "dp")


def _degrees(name: str, most: int) -> dict:
    """A degree's options: every power of two up to `most`, and every degree a published run used."""
    values = {2 ** i for i in range(most.bit_length())} | {getattr(run.setup, name) for run in _RUNS.values()}
    return {str(v): units.integer(v) for v in sorted(values)}


# Degrees offered up to a fleet of 16,384 GPUs, Llama 3's: TP inside an 8-GPU server, as many stages as blocks.
FIELDS = (
    choice("run", "Published run", {key: run.name for key, run in _RUNS.items()},
           note="its model, sequences, batch, links and measurement"),
    choice("framework", "Framework", {f: _FRAMEWORK_NAMES[f] for f in step_time.FRAMEWORKS}),
    choice("tp", "Tensor parallelism (GPUs)", _degrees("tp", 8)),
    choice("pp", "Pipeline stages", _degrees("pp", 128)),
    choice("cp", "Context parallelism (GPUs)", _degrees("cp", 32)),
    choice("dp", "Data-parallel replicas", _degrees("dp", 2048)),
    choice("recompute", "Recomputation", {r: _RECOMPUTE_NAMES[r] for r in step_time.RECOMPUTE_MODES}),
    choice("gpu", "GPU", {key: gpu.name for key, gpu in _PRESETS.gpus.items()}),
)
# Beside the picture: the run, its framework and its two deepest cuts; the rest under "More inputs".
MAIN = ("run", "framework", "tp", "pp")

_ALL = tuple(f.name for f in FIELDS)
_W = estimators.StepWaterfall
_R = estimators.RelaidRun

OUTPUTS = (
    Output("predicted", "Predicted throughput", detail="ratio", of=(_W, "tokens_per_second_per_gpu"), uses=_ALL),
    Output("measured", "Measured, as published", detail="measured_layout", of=(_R, "measured"), uses=("run",)),
    Output("mfu", "MFU of the step", detail="step", of=(_W, "mfu"), uses=_ALL),
    Output("largest", "Largest loss", of=estimators.step_waterfall, uses=_ALL),
)


def _layout(setup: step_time.Setup, framework: str, gpu_name: str) -> str:
    """"TP 8 · CP 1 · PP 16 · DP 128, Megatron-LM (fused kernels), H100 SXM"."""
    degrees = " · ".join(f"{d.upper()} {units.integer(getattr(setup, d))}" for d in _DEGREES)
    return f"{degrees}, {_FRAMEWORK_NAMES[framework]}, {gpu_name}"


def presets() -> dict:
    """One starting state per published run, on its own layout (the first is the default)."""
    def values(key, run):
        degrees = {d: str(getattr(run.setup, d)) for d in _DEGREES}
        return {"run": key, "framework": run.setup.framework, **degrees, "recompute": run.setup.recompute,
                "gpu": from_entry(_PRESETS.gpu(run.gpu))}
    return {key: preset(FIELDS, run.name, values(key, run)) for key, run in _RUNS.items()}


def _relaid(s: dict) -> estimators.RelaidRun:
    """The run on the form's layout; a layout the run's batch, sequence or model cannot take is refused by the field
    that sets it, the batch's data-parallel split by the data-parallel degree and a precision by the GPU."""
    run = _RUNS[s["run"]]
    try:
        setup = replace(run.setup, **{d: int(s[d]) for d in _DEGREES}, framework=s["framework"],
                        recompute=s["recompute"])
        return estimators.relaid_run(s["run"], setup, s["gpu"])
    except estimators.EstimatorError as error:
        if error.argument == "global_batch":
            raise estimators.EstimatorError("dp", s["dp"], f"a number of replicas that splits the run's batch of "
                                            f"{units.integer(run.global_batch)} sequences evenly") from None
        if error.argument == "ep":
            raise estimators.EstimatorError("dp", s["dp"], f"a number of replicas that its "
                                            f"{units.integer(run.setup.ep)} expert-parallel GPUs divide") from None
        named = "gpu" if error.argument == "precision" else error.argument
        raise estimators.EstimatorError(named if named in _ALL else "pp", error.value, error.allowed) from None


def update(state: dict) -> dict:
    """Outputs (text) and the waterfall's rows for one state of the form."""
    s = read(FIELDS, state)
    relaid = _relaid(s)
    w, run = relaid.waterfall, _RUNS[s["run"]]
    losses = sorted(w.losses, key=lambda bar: -bar.seconds)
    said = "the run's own layout" if relaid.own_layout else "this layout"
    outputs = {
        "predicted": f"{units.si(w.tokens_per_second_per_gpu, 'tokens/s')} per GPU",
        "ratio": f"{units.times(relaid.ratio)} the measured, on {said}",
        "measured": f"{units.si(relaid.measured, 'tokens/s')} per GPU",
        "measured_layout": f"on {_layout(run.setup, run.setup.framework, _PRESETS.gpu(run.gpu).name)}",
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
