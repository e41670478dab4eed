"""Audit, logging and reproducibility: which stretch of the pipeline each practice guards.

The stages, their lanes (data, training, evaluation, release) and the practices
are data, pyodide_widgets/data/audit.toml.
"""

from .. import pick_one

TITLE = "Which stretch of the run each practice guards"
CHART = "audit_lanes"
TEMPLATE = pick_one.TEMPLATE
OUTPUTS = pick_one.OUTPUTS

_DATA = pick_one.load("audit")
_STAGES = list(_DATA["stages"])


def _stretch(practice: dict) -> list:
    """The stages from the practice's first to its last, in pipeline order."""
    return _STAGES[_STAGES.index(practice["first"]):_STAGES.index(practice["last"]) + 1]


def _where(practice: dict) -> str:
    stages = [_DATA["stages"][s] for s in _stretch(practice)]
    lanes = dict.fromkeys(_DATA["lanes"][s["lane"]].lower() for s in stages)
    span = stages[0]["name"] if len(stages) == 1 else f"{stages[0]['name']} to {stages[-1]['name']}"
    return f"{span} ({', '.join(lanes)})"


OPTIONS = {
    key: {"name": p["name"], "details": [("Guards", _where(p)), ("What", p["what"]), ("Why", p["why"])]}
    for key, p in _DATA["practices"].items()
}
DIAGRAM = {
    "stages": [{"key": key, "name": s["name"], "lane": _DATA["lanes"][s["lane"]]} for key, s in _DATA["stages"].items()],
    "practices": [{"key": key, "name": p["name"], "stages": _stretch(p)} for key, p in _DATA["practices"].items()],
}

FIELDS, presets, update = pick_one.declare(
    "practice", "Practice", OPTIONS,
    lambda key: f"{OPTIONS[key]['name']} guards {_where(_DATA['practices'][key])}.",
    diagram=DIAGRAM,
)
