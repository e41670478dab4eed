"""Tokens per parameter, compute-optimal or over-trained.

For a released model picked on the ruler: D/N, the compute multiple over a
compute-optimal run of the same size (estimators.compute_multiple), and what
its FLOPs would have bought spent the Chinchilla way: by the 20-tokens rule
and at the optimum of each fit of the loss law (estimators.chinchilla_optimal).
"""

import estimators
from estimators import units

from ..contract import Output, choice, read

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


def _sources() -> dict:
    """{marker key: the source of its N and D}, each marker's from the preset `_markers` takes it from."""
    sources = {}
    for run in _PRESETS.runs.values():
        sources.setdefault(run.model, run.source)
    return sources | {key: b.source for key, b in _PRESETS.budgets.items()}


MARKERS, SOURCES = _markers(), _sources()
_K = estimators.compute_constants()
_C = f"C = {_K.training} × N × D"
_R = _K.chinchilla_tokens_per_param

FIELDS = (choice("model", "Model on the ruler", {key: name for key, (name, _, _) in MARKERS.items()}),)

OUTPUTS = (
    Output("ratio", "Tokens per parameter", detail="budget", formula="D / N", uses=("model",)),
    Output("multiple", "Compute over a compute-optimal run of its size", detail="flops",
           formula=f"{_C} over C_opt = {_K.training} × N × {_R}N: D / {_R}N",
           uses=("model",)),
    Output("rule", "The same FLOPs at the rule of thumb", detail="rule_ratio",
           formula=f"{_C} spent at D = {_R}N: C = {_K.training * _R}N², N = √(C / {_K.training * _R})",
           uses=("model",)),
    *(Output(fit, f"The same FLOPs at the loss-law optimum, {label}", detail=f"{fit}_ratio",
             formula=f"{_C} spent where L(N, D) is least: N_opt = G·(C/{_K.training})^a, D_opt = (C/{_K.training})^b / G, "
                     f"with {label}",
             uses=("model",))
      for fit, label in FITS.items()),
    Output("ruler", "On the ruler", sentence=True, formula="D / N of every model on the ruler, each from its own preset"),
)


def presets() -> dict:
    """Llama 3 8B first, the page's example, then every other marker."""
    first = "llama3-8b"
    order = [first] + [key for key in MARKERS if key != first]
    return {key: {"label": MARKERS[key][0], "source": SOURCES[key], "state": {"model": key}} for key in order}


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
