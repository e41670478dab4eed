"""The five stages from raw text to a reasoning model.

For each stage (presets.toml, table `stages`: one published run each, more in
`stage_runs`) its objective, budget, output artifact and example, and its range
over its published runs (estimators.stage_span): GPUs, wall-clock time, data and
the bytes it hands on. The chart draws each range as a bar on shared log scales
and each published run as a point (figures/stages.py), the picked stage marked.
"""

import estimators
from estimators import units

from ..contract import Output, choice, from_entry, preset, read

TITLE = "The stages that turn raw text into a reasoning model"
CHART = "stages"
# Under the picked stage's card, folded: each stage's bytes read and handed on.
FOLDED_CHARTS = {"stage_bytes": "What each stage reads and hands on, in bytes"}
TEMPLATE = "stages.html"

_PRESETS = estimators.load_presets()
_STAGES = _PRESETS.stages
_SPANS = {key: estimators.stage_span(key) for key in _STAGES}

FIELDS = (choice("stage", "Stage", {key: s.name for key, s in _STAGES.items()}, play=True),)


def _sources(key: str) -> str:
    """The sources of every published run in the stage's range, each once."""
    entries = [_STAGES[key], *(r for r in _PRESETS.stage_runs.values() if r.stage == key)]
    if _STAGES[key].run is not None:
        entries.append(_PRESETS.run(_STAGES[key].run))
    return " ".join(dict.fromkeys(e.source for e in entries))


# Per stage, in its own option of the page: the objective, its budget, its range, its data and artifact,
# the example. Fixed by the stage's reports, not by the form: the cards cite them. Each card is its own
# quantity's: the budget's GPU-hours, the range's bounds, the artifact's bytes; what a report says in
# words (the objective, the data, the artifact, the example) quotes its report.
OUTPUTS = tuple(
    output
    for key, stage in _STAGES.items()
    for output in (
        Output(key, stage.name, source=stage.source),
        Output(f"{key}_budget", "Budget", of=estimators.gpu_hours, source=stage.source),
        Output(f"{key}_range", "Range of its published runs", of=estimators.stage_span, source=_sources(key)),
        Output(f"{key}_data", "Dataset", source=_sources(key)),
        Output(f"{key}_bytes", "Artifact size", of=estimators.weights_bytes, source=_sources(key)),
        Output(f"{key}_artifact", "Output artifact", source=stage.source),
        Output(f"{key}_example", "Example", source=stage.source),
    )
)


def presets() -> dict:
    """One state per stage, the first (pretraining) the default."""
    return {key: preset(FIELDS, stage.name, {"stage": from_entry(stage)}) for key, stage in _STAGES.items()}


def _between(low, high, text, unit: str = "") -> str:
    """"2,048 to 16,384 GPUs", or one figure when the stage's runs agree (or it has one run)."""
    tail = f" {unit}" if unit else ""
    return f"{text(low)}{tail}" if text(low) == text(high) else f"{text(low)} to {text(high)}{tail}"


def _gpus(span) -> str:
    return units.noun(span.gpus_high, "GPUs", _between(span.gpus_low, span.gpus_high, units.integer))


def _time(span) -> str:
    return _between(span.seconds_low, span.seconds_high, units.duration)


def _computed(run) -> str:
    """What of a run this site computed rather than took from its report, and what the report says instead."""
    published = (f", where its publisher reports {units.count(run.gpu_hours_reported)} GPU-hours"
                 if run.gpu_hours_reported is not None else "")
    return (f"computed here, not published: {run.name}'s {units.duration(run.seconds)} and "
            f"{units.count(run.gpu_hours)} GPU-hours, ideal at {units.percent(run.mfu)} MFU{published}")


def _range(span) -> str:
    runs = len(span.runs)
    which = "its one published run so far" if runs == 1 else f"its {units.integer(runs)} published runs"
    hours = _between(span.gpu_hours_low, span.gpu_hours_high, units.count, "GPU-hours")
    notes = "".join(f"; {_computed(run)}" for run in span.runs if not run.reported)
    return f"{_gpus(span)}, {_time(span)}, {hours} ({which}{notes})"


def _data(span) -> str:
    parts = []
    if span.tokens_low is not None:
        parts.append(_between(span.tokens_low, span.tokens_high, units.count, "tokens"))
    if span.examples_low is not None:
        parts.append(_between(span.examples_low, span.examples_high, units.count, "examples"))
    return "; ".join(parts) if parts else "not published for these runs"


def _bytes(span, stage) -> str:
    """What the stage hands on: an adapter, or weights in the precision each model was released in."""
    if span.artifact_low is None:
        return "not counted: no run names the model it hands on"
    amount = _between(span.artifact_low, span.artifact_high, units.bytes_)
    if stage.finetune is not None:
        return f"{amount} of a 16-bit LoRA adapter"
    released = {run.artifact_model: run.artifact_precision.upper() for run in span.runs if run.artifact_bytes is not None}
    if len(set(released.values())) == 1:
        return f"{amount} of {next(iter(released.values()))} weights, as released"
    each = ", ".join(f"{precision} for {model}" for model, precision in released.items())
    return f"{amount} of weights as released: {each}"


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    outputs, stages, runs = {}, [], []
    for order, (key, stage) in enumerate(_STAGES.items()):
        span, own = _SPANS[key], _SPANS[key].runs[0]
        tokens = f" over {units.count(stage.tokens)} tokens" if stage.tokens is not None else ""
        outputs[key] = stage.objective
        outputs[f"{key}_budget"] = (
            f"{units.integer(stage.gpus)} × {stage.hardware} for {units.duration(own.seconds)}{tokens}: "
            f"{units.count(own.gpu_hours)} GPU-hours (as of {stage.as_of})"
        )
        outputs[f"{key}_range"] = _range(span)
        outputs[f"{key}_data"] = _data(span)
        outputs[f"{key}_bytes"] = _bytes(span, stage)
        outputs[f"{key}_artifact"] = stage.artifact
        outputs[f"{key}_example"] = stage.example
        picked = key == s["stage"]
        stages.append({
            "stage": stage.name, "order": order, "picked": picked,
            "gpus_low": span.gpus_low, "gpus_high": span.gpus_high,
            "seconds_low": span.seconds_low, "seconds_high": span.seconds_high,
            "gpus_label": f"{stage.name}: {_gpus(span)}",
            "time_label": f"{stage.name}: {_time(span)}",
            # What it reads and what it hands on, where its runs name them (None otherwise: not drawn).
            "read_low": span.dataset_low, "read_high": span.dataset_high,
            "read_label": (f"{stage.name} reads {_between(span.dataset_low, span.dataset_high, units.bytes_)} of token ids"
                           if span.dataset_low is not None else f"{stage.name}: dataset bytes not published"),
            "handed_low": span.artifact_low, "handed_high": span.artifact_high,
            "handed_label": f"{stage.name} hands on {outputs[f'{key}_bytes']}",
        })
        runs += [{
            "stage": stage.name, "order": order, "run": run.name, "picked": picked, "gpus": run.gpus, "seconds": run.seconds,
            "gpus_label": f"{run.name}: {units.noun(run.gpus, 'GPUs')}",
            "time_label": f"{run.name}: {units.duration(run.seconds)}{'' if run.reported else ', computed here'}",
        } for run in span.runs]
    picked = _STAGES[s["stage"]]
    outputs["summary"] = (f"{picked.name}. {outputs[s['stage']]} Its range: {outputs[s['stage'] + '_range']}; "
                          f"data: {outputs[s['stage'] + '_data']}; it hands on {outputs[s['stage'] + '_bytes']}.")
    return {"outputs": outputs, "data": {"stages": stages, "runs": runs}}
