"""The five stages from raw text to a reasoning model.

For each stage (presets.toml, table `stages`: one published run each) its
objective, budget, output artifact and example; all stages' GPU counts and
durations on shared log scales (figures/stages.py), the picked one marked.
"""

import estimators
from estimators import units

from ..contract import Output, choice, from_entry, preset, read

TITLE = "The stages that turn raw text into a reasoning model"
CHART = "stages"
TEMPLATE = "stages.html"

_STAGES = estimators.load_presets().stages

FIELDS = (choice("stage", "Stage", {key: s.name for key, s in _STAGES.items()}, play=True),)

# Per stage, in its own option of the page: the objective (with the budget under it), the artifact, the example.
OUTPUTS = tuple(
    output
    for key, stage in _STAGES.items()
    for output in (
        # Fixed by the stage's report, not by the form: the card cites the report.
        Output(key, stage.name, detail=f"{key}_budget", of=estimators.gpu_hours, source=stage.source),
        Output(f"{key}_artifact", "Output artifact", source=stage.source),
        Output(f"{key}_example", "Example", source=stage.source),
    )
)


def presets() -> dict:
    """One state per stage, the first (pretraining) the default."""
    return {key: preset(FIELDS, stage.name, {"stage": from_entry(stage)}) for key, stage in _STAGES.items()}


def _time(stage) -> tuple:
    """(seconds, GPU-hours) of a stage, from whichever of the two its report gives."""
    if stage.seconds is not None:
        return stage.seconds, estimators.gpu_hours(stage.seconds, stage.gpus)
    return estimators.seconds_for_gpu_hours(stage.gpu_hours, stage.gpus), stage.gpu_hours


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    outputs, rows = {}, []
    for order, (key, stage) in enumerate(_STAGES.items()):
        seconds, hours = _time(stage)
        tokens = f" over {units.count(stage.tokens)} tokens" if stage.tokens is not None else ""
        outputs[key] = stage.objective
        outputs[f"{key}_budget"] = (
            f"{units.integer(stage.gpus)} × {stage.hardware} for {units.duration(seconds)}{tokens}: "
            f"{units.count(hours)} GPU-hours (as of {stage.as_of})"
        )
        outputs[f"{key}_artifact"] = stage.artifact
        outputs[f"{key}_example"] = stage.example
        rows.append({
            "stage": stage.name, "order": order, "gpus": stage.gpus, "seconds": seconds,
            "picked": key == s["stage"],
            "gpus_label": f"{stage.name}: {units.integer(stage.gpus)} GPUs",
            "time_label": f"{stage.name}: {units.duration(seconds)}",
        })
    picked = _STAGES[s["stage"]]
    outputs["summary"] = f"{picked.name}. {outputs[s['stage']]} {outputs[s['stage'] + '_budget']}."
    return {"outputs": outputs, "data": {"stages": rows}}
