"""Tokens per parameter, compute-optimal or over-trained.

For a released model picked on the ruler: D/N, the compute multiple over a
compute-optimal run of the same size (estimators.compute_multiple), and what
its FLOPs would have bought spent the Chinchilla way: by the 20-tokens rule
and at the optimum of each fit of the loss law (estimators.chinchilla_optimal).
"""

import estimators
from estimators import units

from ..contract import Output, choice, from_entry, preset, read

TITLE = "Compute-optimal or over-trained"
CHART = "tokens_ruler"

_PRESETS = estimators.load_presets()
# The fits the page compares: Hoffmann's own and the refit (its rounded print is a footnote there).
FITS = {"hoffmann2022": "Hoffmann et al.'s fit", "besiroglu2024": "the refit of Besiroglu et al."}


def _markers() -> dict:
    """{key: (name, N, D)}: each released model's budget, and the runs' models once each."""
    markers = {}
    for run in _PRESETS.runs.values():  # a what-if run of the same model (on other GPUs) is not a second marker
        markers.setdefault(run.model, (_PRESETS.model(run.model).name, run.params, run.tokens))
    markers.update({key: (b.name, b.params, b.tokens) for key, b in _PRESETS.budgets.items()})
    return dict(sorted(markers.items(), key=lambda item: estimators.tokens_per_param(item[1][1], item[1][2])))


def _entries() -> dict:
    """{marker key: the presets.toml entry its N and D come from}, as `_markers` takes them."""
    entries = {}
    for run in _PRESETS.runs.values():
        entries.setdefault(run.model, run)
    return entries | dict(_PRESETS.budgets)


MARKERS, ENTRIES = _markers(), _entries()
FIELDS = (choice("model", "Model on the ruler", {key: name for key, (name, _, _) in MARKERS.items()}),)

OUTPUTS = (
    Output("ratio", "Tokens per parameter", detail="budget", of=estimators.tokens_per_param, uses=("model",)),
    Output("multiple", "Compute over a compute-optimal run of its size", detail="flops", of=estimators.compute_multiple,
           uses=("model",)),
    Output("rule", "The same FLOPs at the rule of thumb", detail="rule_ratio", of=estimators.compute_optimal, uses=("model",)),
    *(Output(fit, f"The same FLOPs at the loss-law optimum, {label}", detail=f"{fit}_ratio", of=estimators.chinchilla_optimal,
             uses=("model",))
      for fit, label in FITS.items()),
    Output("ruler", "On the ruler", sentence=True, of=estimators.tokens_per_param),
)


def presets() -> dict:
    """Llama 3 8B first, the page's example, then every other marker."""
    first = "llama3-8b"
    order = [first] + [key for key in MARKERS if key != first]
    return {key: preset(FIELDS, MARKERS[key][0], {"model": from_entry(ENTRIES[key], key)}) for key in order}


def _ratio(value: float) -> str:
    """Whole above ten (1875, as the page prints it), one decimal below (1.7): the ruler spans four decades."""
    return units.number(value)


def _multiple(value: float) -> str:
    return units.times(value)


def _split(key: str, n: float, d: float) -> dict:
    """The outputs `key` ("77B on 1.5T tokens") and its detail ("20 tokens per parameter")."""
    return {
        key: f"{units.count(n)} on {units.count(d)} tokens",
        f"{key}_ratio": f"{_ratio(estimators.tokens_per_param(n, d))} tokens per parameter",
    }


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    name, n, d = MARKERS[s["model"]]
    flops = estimators.training_flops(n, d)
    ratios = {key: estimators.tokens_per_param(mn, md) for key, (_, mn, md) in MARKERS.items()}
    outputs = {
        "ratio": _ratio(ratios[s["model"]]),
        "budget": f"{units.count(n)} parameters, {units.count(d)} tokens",
        "multiple": _multiple(estimators.compute_multiple(n, d)),
        "flops": f"{units.sci(flops)} FLOPs against {units.sci(estimators.optimal_training_flops(n))}",
        **_split("rule", *estimators.compute_optimal(flops)),
        **{k: v for fit in FITS for k, v in _split(fit, *estimators.chinchilla_optimal(flops, fit)).items()},
        "ruler": "; ".join(f"{MARKERS[k][0]} {_ratio(r)}" for k, r in ratios.items()) + ".",
    }
    outputs["summary"] = (
        f"{name}: {outputs['ratio']} tokens per parameter, {outputs['multiple']} the compute of a "
        f"compute-optimal run of its size; spent by the rule, the same FLOPs buy {outputs['rule']}, "
        f"{outputs['rule_ratio']}."
    )
    rows = [
        {"name": MARKERS[k][0], "ratio": r, "label": f"{MARKERS[k][0]}: {_ratio(r)} tokens per parameter",
         "picked": k == s["model"], "pick": f"model={k}"}
        for k, r in ratios.items()
    ]
    return {"outputs": outputs, "data": {"markers": rows}}
