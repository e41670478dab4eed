"""The ten steps of a training run, and which of them need real attention at each scale.

The steps, the rung each starts to need attention from and who does them come
from pyodide_widgets/ten_steps.toml; the rungs from the presets' scale ladder.
A step's reason is computed where an estimator can say it: the training state
against one GPU's memory (memory.model_state_bytes, memory.memory_fit), what
a job on the rung crosses (ladder.CROSSES), how often a job of the rung's size
is interrupted (checkpoint.fleet_mtbf_seconds); otherwise it is the data
file's sentence, with its source there.
"""

from dataclasses import dataclass

import estimators
from estimators import data_file, units, validate
from estimators.ladder import CROSSES

from ..contract import Output, choice, from_entry, preset, read

TITLE = "The ten steps at one scale"
TEMPLATE = "ten_steps.html"

_PRESETS = estimators.load_presets()
SCALES = _PRESETS.scales  # the ladder, smallest rung first
REASONS = ("always", "memory", "network", "failures")


@dataclass(frozen=True)
class Step:
    number: int  # 1 to 10, in pipeline order
    title: str
    rung: str  # key of the lowest rung of SCALES at which the step needs real attention
    reason: str  # one of REASONS: what the widget computes for it
    why: str  # the rest of the reason, in words
    source: str
    examples: dict  # {kind: (names...)}, in KINDS order; examples, not a ranking
    model: str | None = None  # "memory": the model whose training state is weighed
    gpu: str | None = None  # "memory": the GPU it is weighed against
    failures: str | None = None  # "failures": the failure log (presets' failures)
    run: str | None = None  # "failures": the run it was logged on, for its GPU count


def _steps(data: dict) -> tuple:
    """(as_of, kinds, steps) of ten_steps.toml, each step checked against the presets it names."""
    kinds = data["kinds"]
    steps = {}
    for number, (key, raw) in enumerate(data["steps"].items(), start=1):
        examples = {kind: tuple(raw.pop(kind)) for kind in kinds}
        step = Step(number=number, examples=examples, **raw)
        where = f"steps.{key}"
        validate.one_of(f"{where}.rung", step.rung, SCALES)
        validate.one_of(f"{where}.reason", step.reason, REASONS)
        if step.reason == "memory":
            validate.one_of(f"{where}.model", step.model, _PRESETS.models)
            validate.one_of(f"{where}.gpu", step.gpu, _PRESETS.gpus)
        if step.reason == "failures":
            validate.one_of(f"{where}.failures", step.failures, _PRESETS.failures)
            validate.one_of(f"{where}.run", step.run, _PRESETS.runs)
        steps[key] = step
    return data["as_of"], kinds, steps


AS_OF, KINDS, STEPS = data_file.load(__package__.rpartition(".")[0], "ten_steps.toml", _steps)
_ORDER = {key: i for i, key in enumerate(SCALES)}
# The step whose failure log the "interruptions" output scales, at every rung.
_FAILURE_STEP = next(key for key, step in STEPS.items() if step.reason == "failures")

FIELDS = (
    choice("scale", "Scale", {key: scale.name for key, scale in SCALES.items()}),
    choice("step", "Step", {key: f"{step.number}. {step.title}" for key, step in STEPS.items()}),
)

def needs_attention(step: str, scale: str) -> bool:
    """Whether a step needs real attention at a scale: from its own rung of the ladder upwards.

    `step` and `scale` are keys of the step and the rung."""
    return _ORDER[scale] >= _ORDER[STEPS[step].rung]


def _gpu_counts(scale: str, run) -> tuple:
    """The fewest and most GPUs of a rung; the open top rung ends at the logged run's count."""
    rung = SCALES[scale]
    return rung.min_gpus, rung.max_gpus or max(run.gpus, rung.min_gpus)


def interruptions(scale: str, failures_key: str, run_key: str) -> str:
    """"8.1 days at 73 GPUs to 5.1 h at 9,999": the failure log scaled to the rung's ends."""
    failures, run = _PRESETS.failure(failures_key), _PRESETS.run(run_key)
    ends = [
        f"{units.duration(estimators.fleet_mtbf_seconds(failures.unexpected, failures.window_seconds, run.gpus, n))}"
        f" at {units.integer(n)} {'GPU' if n == 1 else 'GPUs'}"
        for n in sorted(set(_gpu_counts(scale, run)))
    ]
    return " to ".join(ends)


def reason(step_key: str, scale: str) -> str:
    """Why `step_key` needs real attention on `scale`, computed where an estimator can say it."""
    step = STEPS[step_key]
    if step.reason == "memory":
        model, gpu = _PRESETS.model(step.model), _PRESETS.gpu(step.gpu)
        state = estimators.model_state_bytes(model.params)
        fit = estimators.memory_fit(state, gpu.memory_bytes)
        computed = (f"{model.name}'s training state, {units.bytes_(state)}, is {units.times(fit.ratio)} "
                    f"the {units.bytes_(gpu.memory_bytes, binary=True)} of one {gpu.name}")
    elif step.reason == "network":
        computed = f"a job here crosses {CROSSES[SCALES[scale].crosses]}"
    elif step.reason == "failures":
        computed = f"an unexpected interruption comes about every {interruptions(scale, step.failures, step.run)}"
    else:
        return step.why[0].upper() + step.why[1:]
    return f"{computed[0].upper()}{computed[1:]}: {step.why}"


def attention(scale: str) -> list:
    """[(step key, reason)] for every step that needs real attention on `scale`, in pipeline order."""
    return [(key, reason(key, scale)) for key in STEPS if needs_attention(key, scale)]


OUTPUTS = (
    Output("count", "Steps that need real attention", of=needs_attention, uses=("scale",)),
    Output("crosses", "A job's traffic crosses", of=estimators.scale_rung, uses=("scale",)),
    Output("interruptions", "An unexpected interruption about every", note="Llama 3's failure rate, scaled by GPU count",
           of=estimators.fleet_mtbf_seconds, uses=("scale",), source=_PRESETS.failure(STEPS[_FAILURE_STEP].failures).source),
    Output("steps", "Needs real attention", sentence=True, of=needs_attention, uses=("scale",)),
    Output("verdict", sentence=True, of=needs_attention, uses=("scale", "step")),
)


def presets() -> dict:
    """The first rung, showing the first step that starts to need attention there. The reader picks a
    scale in the grid's header and a step in its rows, each keeping the other: a preset per rung
    would set the step too, and drop the one the reader had picked."""
    first = next(iter(SCALES))
    step = next((key for key, s in STEPS.items() if s.rung == first), _FAILURE_STEP)
    return {first: preset(FIELDS, SCALES[first].name, {"scale": from_entry(SCALES[first]), "step": step})}


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    scale, step = SCALES[s["scale"]], STEPS[s["step"]]
    needed = attention(s["scale"])
    failure = STEPS[_FAILURE_STEP]
    outputs = {
        "count": f"{units.integer(len(needed))} of {units.integer(len(STEPS))}",
        "crosses": CROSSES[scale.crosses],
        "interruptions": interruptions(s["scale"], failure.failures, failure.run),
        "steps": ", ".join(f"{STEPS[key].number}. {STEPS[key].title}" for key, _ in needed) + ".",
    }
    if needs_attention(s["step"], s["scale"]):
        outputs["verdict"] = f"At {scale.name}, step {step.number}, {step.title}, needs real attention. {reason(s['step'], s['scale'])}."
    else:
        outputs["verdict"] = (f"At {scale.name}, step {step.number}, {step.title}, runs on defaults and off-the-shelf "
                              f"tools; it needs real attention from {SCALES[step.rung].name}.")
    outputs["summary"] = f"{outputs['count']} steps need real attention at {scale.name}. {outputs['verdict']}"
    return {"outputs": outputs, "data": {}}
