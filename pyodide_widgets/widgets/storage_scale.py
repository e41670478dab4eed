"""The storage footprint of a run across model scale.

Dataset, shipped weights, one checkpoint, the checkpoints kept and the total
(estimators.storage_footprint) at the reader's size, and the same parts over a
grid of sizes for the chart, whose x axis is the model size: a drag across it
moves the size continuously, and a click on a point moves it there.
"""

import estimators
from estimators import units
from estimators.storage import TOKEN_ID_WIDTHS

from ..contract import Output, choice, form_text, from_estimate, from_preset, number, preset, read, toggle, whole

TITLE = "Storage footprint across model scale"
CHART = "storage_scale"
DRAG = "params"  # the chart's x axis: a drag on it sets this field

_PRESETS = estimators.load_presets()
BILLION = 1e9
# The chart's sizes: 1 and 3 of each decade from 100M to 10T parameters (few points keep a redraw quick).
# Whole numbers: exact in CPython and in Pyodide alike (a float power may differ in its last bit).
GRID = tuple(m * 10**e for e in range(8, 13) for m in (1, 3)) + (10**13,)
# The breakdown's parts, in the order of the outputs, and how each is named on the chart.
PARTS = {
    "dataset": "dataset",
    "weights": "shipped weights",
    "checkpoint": "one checkpoint",
    "retained": "checkpoints kept",
    "total": "total",
}

FIELDS = (
    # A million parameters at least: the smallest language models trained for study have a few million.
    number("params", "Model size", unit="billion parameters", scale=BILLION, min=0.001, max=1e6),
    # A ten-thousandth at least: about what a short fine-tune of a large model reads per parameter.
    number("tokens_per_param", "Training tokens per parameter", unit="tokens", min=0.0001, max=1e6),
    whole("checkpoints_kept", "Checkpoints kept", max=1e6),
    choice("token_bytes", "Token ids on disk", {str(w): f"{w} B per token" for w in TOKEN_ID_WIDTHS}),
    toggle("gradients", "Checkpoints hold the gradients too"),
)
# Beside the picture (the three that move the picture's lines); the rest under "More inputs".
MAIN = ("params", "tokens_per_param", "checkpoints_kept")

_BREAKDOWN = estimators.StorageBreakdown

OUTPUTS = (
    Output("dataset", "Dataset", detail="dataset_note", of=(_BREAKDOWN, "dataset"),
           uses=("params", "tokens_per_param", "token_bytes")),
    Output("weights", "Shipped weights (BF16)", of=estimators.weights_bytes, uses=("params",)),
    Output("checkpoint", "One checkpoint", note="one of those kept, not added again", of=estimators.checkpoint_bytes,
           uses=("params", "gradients")),
    Output("retained", "Checkpoints kept", of=(_BREAKDOWN, "retained"), uses=("params", "checkpoints_kept", "gradients")),
    Output("total", "Total on disk", detail="dataset_share", of=estimators.storage_footprint, uses=tuple(f.name for f in FIELDS)),
    Output("across", "Across sizes", sentence=True, of=estimators.storage_footprint,
           uses=("tokens_per_param", "checkpoints_kept", "token_bytes", "gradients")),
)


def presets() -> dict:
    """The round 7B worked example first, then each training run at its own ratio and token width."""
    example = _PRESETS.example("round-7b")
    states = {"round-7b": preset(FIELDS, f"A worked example: {example.name}", {
        "params": from_preset(example, "params", BILLION),
        "tokens_per_param": from_preset(example, "tokens_per_param"),
        "checkpoints_kept": from_preset(example, "checkpoints_kept"),
        "token_bytes": from_preset(example, "token_bytes"),
        "gradients": example.checkpoint_gradients,
    })}
    for key, run in _PRESETS.runs.items():
        model = _PRESETS.model(run.model)
        states.setdefault(run.model, preset(FIELDS, model.name, {
            "params": from_preset(run, "params", BILLION),
            "tokens_per_param": from_estimate(estimators.tokens_per_param, run.params, run.tokens, entries=(run,)),
            "checkpoints_kept": from_preset(example, "checkpoints_kept"),
            "token_bytes": from_estimate(estimators.run_preset_estimate, key, attribute="token_bytes", entries=(run, model)),
            "gradients": False,  # frameworks' checkpoints leave the gradients out
        }))
    return states


def _footprint(s: dict, params: float) -> estimators.StorageBreakdown:
    return estimators.storage_footprint(params, s["tokens_per_param"], int(s["token_bytes"]), s["checkpoints_kept"],
                                        include_gradients=s["gradients"])


def _rows(parts: estimators.StorageBreakdown, params: float, pick: str | None) -> list:
    rows = []
    for order, (key, name) in enumerate(PARTS.items()):
        value = getattr(parts, key)
        row = {"part": name, "order": order, "params": params, "bytes": value,
               "label": f"{units.count(params)} parameters, {name}: {units.bytes_(value)}"}
        if pick:
            row["pick"] = pick
        rows.append(row)
    return rows


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    n = s["params"]
    here = _footprint(s, n)
    outputs = {key: units.bytes_(getattr(here, key)) for key in PARTS}
    outputs["total"] = units.bytes_(here.total)  # as the page's table prints it
    outputs["dataset_note"] = f"{units.count(here.tokens)} tokens × {s['token_bytes']} B"
    outputs["dataset_share"] = f"the dataset is {units.percent(here.dataset_share)} of it"
    grid = {size: _footprint(s, size) for size in GRID}
    decades = [size for size in GRID if size in (10**9, 10**10, 10**11, 10**12)]
    outputs["across"] = "Total at " + ", ".join(
        f"{units.count(size)} parameters {units.bytes_(grid[size].total)}" for size in decades
    ) + "."
    outputs["summary"] = (
        f"{units.count(n)} parameters: dataset {outputs['dataset']}, weights {outputs['weights']}, "
        f"one checkpoint {outputs['checkpoint']}, kept {outputs['retained']}, total {outputs['total']}."
    )
    params_field = FIELDS[0]
    lines = [row for size, parts in grid.items()
             for row in _rows(parts, size, f"params={form_text(params_field, size / BILLION)}")]
    return {"outputs": outputs, "data": {"lines": lines, "run": _rows(here, n, None)}}
