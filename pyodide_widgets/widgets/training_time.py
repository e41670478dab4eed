"""How long does a training run take?

C = 6ND, divided by what the fleet delivers (GPUs × dense peak × MFU), gives
the ideal wall-clock time; the same inputs give GPU-hours, the bytes the run
moves, and its place on the N × D plane (estimators.run_estimate). Its GPU-hours,
at a GPU's power, a facility's PUE, a grid's intensity and a price per GPU-hour,
give what the run costs in energy, emissions and money (estimators.run_footprint), drawn under the
outputs beside each published report's largest run (estimators.published_footprint, figures.cost_chain).
"""

from functools import lru_cache

import estimators
from estimators import units

from .planner import layout_text
from ..contract import Output, choice, from_entry, from_estimate, from_preset, model_choice, number, preset, read, whole

TITLE = "How long does a training run take?"
CHART = "compute_plane"
# Under the outputs, folded: the chain from GPU-hours to what they cost.
FOLDED_CHARTS = {"cost_chain": "What the run costs, beside published runs"}

_PRESETS = estimators.load_presets()
BILLION, TRILLION, PER_CENT = 1e9, 1e12, 1e-2
# Every precision some GPU has a dense peak for; a GPU without one is refused by name.
_PRECISIONS = {p: p.upper() for gpu in _PRESETS.gpus.values() for p in gpu.peak_flops}
# The price a GPU no offer lists gets: none, and no cost, rather than another GPU's rate.
UNPRICED = "none"
# The published layout whose links, sequences and batch the step model's MFU is planned on (estimators.fleet_plan).
_PLANNED_ON_KEY = "llama3-405b-8k"

FIELDS = (
    # From a million parameters, the smallest language models trained for study, to 10¹⁵, a typo.
    number("params", "Model size", unit="billion parameters", scale=BILLION, min=0.001, max=1e6),
    # A hundred million tokens at least: a short fine-tune's budget, far below any pretraining run.
    number("tokens", "Training tokens", unit="trillion tokens", scale=TRILLION, min=0.0001, max=1e6),
    choice("gpu", "GPU", {key: gpu.name for key, gpu in _PRESETS.gpus.items()}),
    choice("precision", "Precision", _PRECISIONS, note="the number format the matrix multiplies run in"),
    whole("gpus", "GPUs", unit="GPUs", max=1e7),  # 10 million: past any fleet built
    # A thousandth of peak at least: below it the GPUs are idle, not training.
    number("mfu", "MFU", unit="% of peak", scale=PER_CENT, min=0.1, max=100),
    choice("token_bytes", "Token ids on disk", {w: f"{w} B per token" for w in estimators.storage.TOKEN_ID_WIDTHS}),
    # From a watt, below any GPU that trains, to 100 kW, a whole rack's power and past any one board.
    number("watts", "GPU power", unit="W per GPU", min=1, max=1e5),
    # A facility draws at least what its computers draw (1); past 5 it would spend four times their
    # energy on itself, a typo rather than a data centre.
    number("pue", "Facility overhead (PUE)", unit="× the GPUs' energy", min=1, max=5),
    choice("grid", "Grid", {key: f"{grid.region} ({grid.as_of})" for key, grid in _PRESETS.grids.items()}),
    choice("price", "Price of a GPU-hour", {**{key: f"{price.name} ({price.as_of})" for key, price in _PRESETS.prices.items()},
                                             UNPRICED: "No price: the cost left out"}),
    model_choice("model", "Model's architecture, for the step model's MFU", _PRESETS.models,
                 note="at the planner's fastest layout on these GPUs, with Llama 3's batch and links, its sequences "
                      "cut to a model's learned positions"),
)
# Beside the picture (the compute a run needs and the GPUs that deliver it); the rest under "More inputs".
MAIN = ("params", "tokens", "gpu", "gpus")

_FLEET = ("gpu", "precision", "gpus", "mfu")
_E = estimators.RunEstimate
_F = estimators.Footprint
# What GPU-hours read: not the GPU count, which changes the wall-clock time but not the GPU-hours.
_HOURS = ("params", "tokens", *(u for u in _FLEET if u != "gpus"))
# The facility every run preset is set in: the one published PUE of the footprints the site reproduces.
_FACILITY = _PRESETS.facility("gpt3-datacenter")
_GRID = _PRESETS.grid("us-gpt3")

OUTPUTS = (
    Output("flops", "FLOPs of the run, 6 × N × D", of=(_E, "flops"), uses=("params", "tokens")),
    Output("delivered", "÷ what the fleet delivers (peak × MFU)", detail="fleet", of=(_E, "delivered_flops"), uses=_FLEET),
    Output("duration", "= ideal wall-clock time", of=(_E, "seconds"), uses=("params", "tokens", *_FLEET)),
    Output("gpu_hours", "GPU-hours", note="the same whatever the fleet size", of=(_E, "gpu_hours"), uses=_HOURS),
    Output("energy", "Energy at the GPUs", detail="facility_energy", of=(_F, "gpu_energy_wh"), uses=(*_HOURS, "watts", "pue")),
    Output("emissions", "Emissions", detail="grid_note", of=(_F, "emissions_tonnes"), uses=(*_HOURS, "watts", "pue", "grid")),
    Output("cost", "Cost, renting the GPUs", detail="price_note", of=(_F, "cost_dollars"), uses=(*_HOURS, "price")),
    Output("tokens", "Dataset", detail="dataset", of=(_E, "dataset_bytes"), uses=("tokens", "token_bytes")),
    Output("state_bytes", "Training state (mixed-precision Adam)", note="weights, gradients, master copy, two moments",
           of=(_E, "state_bytes"), uses=("params",)),
    Output("model_mfu", "MFU the step model predicts", detail="model_layout",
           of=(estimators.LayoutPlan, "mfu"), uses=("model", "gpu", "precision", "gpus")),
    Output("checkpoint", "Checkpoint as Megatron-LM and DeepSpeed write it", detail="checkpoint_note", of=(_E, "checkpoint_bytes"), uses=("params",)),
)


def _price_of(gpu_key: str):
    """The first offer listed for the run's GPU, or none (UNPRICED): another GPU's price would give a wrong cost."""
    return next((from_entry(p) for p in _PRESETS.prices.values() if p.gpu == gpu_key), UNPRICED)


def _dollars(value: float) -> str:
    return f"${units.count(value)}"


def _largest_of_each_report() -> list[str]:
    """Each report's largest run by GPU-hours (a report's entries share its date): GPT-3, BLOOM, Llama 2 70B, Llama 3.1 405B."""
    largest = {}
    for key, entry in _PRESETS.footprints.items():
        if entry.as_of not in largest or entry.gpu_hours > _PRESETS.footprint(largest[entry.as_of]).gpu_hours:
            largest[entry.as_of] = key
    return list(largest.values())


def _chain_rows(f: estimators.Footprint, run: str, order: int, yours: bool) -> list[dict]:
    """The chain's rows of one run: its GPU-hours, energy, emissions and (if priced) cost.
    No report gives a cost: a published run's is its GPU-hours at the reader's price, for scale."""
    figures = {
        "gpu_hours": (f.gpu_hours, f"{units.count(f.gpu_hours)} GPU-hours"),
        "energy": (f.facility_energy_wh, units.si(f.facility_energy_wh, "Wh")),
        "emissions": (f.emissions_tonnes, f"{units.number(f.emissions_tonnes)} t CO₂e"),
        "cost": (f.cost_dollars, _dollars(f.cost_dollars) if f.cost_dollars is not None else ""),
    }
    return [{"stage": stage, "run": run, "order": order, "value": value, "label": f"{run}: {text}", "yours": yours}
            for stage, (value, text) in figures.items() if value is not None]


# The published runs drawn beside the reader's for scale, each footprint from its report's own inputs.
_REPORTED = _largest_of_each_report()
_PUBLISHED = {key: estimators.published_footprint(key) for key in _REPORTED}


def presets() -> dict:
    """Named starting states, one per training-run preset (the first is the default)."""
    return {
        key: preset(FIELDS, run.name, {
            "params": from_preset(run, "params", BILLION),
            "tokens": from_preset(run, "tokens", TRILLION),
            "gpu": from_entry(_PRESETS.gpu(run.gpu)),
            "precision": from_preset(run, "precision"),
            "gpus": from_preset(run, "gpus"),
            "mfu": from_preset(run, "mfu", PER_CENT),
            "token_bytes": from_estimate(estimators.run_preset_estimate, key, attribute="token_bytes",
                                         entries=(run, _PRESETS.model(run.model))),
            "watts": from_preset(_PRESETS.gpu(run.gpu), "board_watts"),
            "pue": from_preset(_FACILITY, "pue"),
            "grid": from_entry(_GRID),
            "price": _price_of(run.gpu),
            "model": from_entry(_PRESETS.model(run.model)),
        })
        for key, run in _PRESETS.runs.items()
    }


def _fleet(e: estimators.RunEstimate, gpu, precision: str) -> str:
    """"16,384 × H100 BF16 989 TFLOP/s = 16.2 EFLOP/s peak"; one GPU is its own peak, said once."""
    one = f"{gpu.name} {precision} {units.si(e.peak_flops_per_gpu, 'FLOP/s')}"
    if e.gpus == 1:
        return f"1 × {one} peak"
    return f"{units.integer(e.gpus)} × {one} = {units.si(e.fleet_peak_flops, 'FLOP/s')} peak"


def _price_note(price, gpu_key: str) -> str:
    """The price the cost is at, naming its GPU when that is not the run's; or why there is no cost."""
    if price is None:
        listed = any(p.gpu == gpu_key for p in _PRESETS.prices.values())
        return "pick a price under More inputs" if listed else f"no listed price for the {_PRESETS.gpu(gpu_key).name}"
    rate = f"at ${units.number(price.dollars_per_gpu_hour)} an hour"
    return rate if price.gpu == gpu_key else f"{rate}, the {_PRESETS.gpu(price.gpu).name}'s price"


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = read(FIELDS, state)
    gpu = _PRESETS.gpu(s["gpu"])
    if s["precision"] not in gpu.peak_flops:
        allowed = ", ".join(_PRECISIONS[p] for p in gpu.peak_flops)
        raise estimators.EstimatorError("precision", state["precision"], f"a precision the {gpu.name} has a dense peak for: {allowed}")
    peak = gpu.peak_flops[s["precision"]]
    e = estimators.run_estimate(s["params"], s["tokens"], s["gpus"], peak, mfu=s["mfu"],
                                token_bytes=int(s["token_bytes"]))
    grid = _PRESETS.grid(s["grid"])
    price = None if s["price"] == UNPRICED else _PRESETS.price(s["price"])
    f = estimators.run_footprint(e.gpu_hours, s["watts"], s["pue"], grid.grams_per_kwh,
                                 dollars_per_gpu_hour=price.dollars_per_gpu_hour if price else None)
    flops = f"{units.sci(e.flops)} FLOPs"
    outputs = {
        "flops": flops,
        "delivered": units.si(e.delivered_flops, "FLOP/s"),
        "fleet": _fleet(e, gpu, _PRECISIONS[s["precision"]]),
        "duration": units.duration(e.seconds),
        "gpu_hours": units.count(e.gpu_hours),
        "energy": units.si(f.gpu_energy_wh, "Wh"),
        "facility_energy": f"{units.si(f.facility_energy_wh, 'Wh')} with the facility's",
        "emissions": f"{units.number(f.emissions_tonnes)} t CO₂e",
        "grid_note": f"at {units.number(grid.grams_per_kwh)} g per kWh",
        "cost": _dollars(f.cost_dollars) if price else "not priced",
        "price_note": _price_note(price, s["gpu"]),
        "tokens": f"{units.count(e.tokens)} tokens",
        "dataset": f"≈ {units.bytes_(e.dataset_bytes)} on disk",
        "state_bytes": units.bytes_(e.state_bytes),
        **_model_mfu(s["model"], s["gpu"], s["gpus"], s["precision"]),
        "checkpoint": units.bytes_(e.checkpoint_bytes),
        "checkpoint_note": (
            f"{units.bytes_(e.checkpoint_bytes_with_gradients)} with gradients · "
            f"{units.bytes_(e.weights_bytes)} weights only"
        ),
    }
    outputs["summary"] = (f"{flops} at {outputs['delivered']}: {outputs['duration']}, {outputs['gpu_hours']} GPU-hours, "
                          f"{units.si(f.facility_energy_wh, 'Wh')} with the facility, {outputs['emissions']}, "
                          + (f"{outputs['cost']}." if price else "no cost: no price picked."))
    run_row = {
        "params": e.params,
        "tokens": e.tokens,
        "label": f"{units.count(e.params)} parameters × {units.count(e.tokens)} tokens = {flops}",
    }
    rate = price.dollars_per_gpu_hour if price else None
    published = [row for order, (key, p) in enumerate(_PUBLISHED.items())
                 for row in _chain_rows(estimators.run_footprint(p.gpu_hours, p.watts, p.pue, p.grams_per_kwh, rate),
                                        _PRESETS.footprint(key).name, order, yours=False)]
    chain = published + _chain_rows(f, "this run", len(_PUBLISHED), yours=True)
    return {"outputs": outputs, "data": {"run": [run_row], "footprint": chain}}


@lru_cache(maxsize=32)  # a search over every layout: typing the model size, tokens or prices does not move it
def _fastest_layout(model: str, gpu: str, gpus: int, precision: str):
    """The planner's fastest layout for the model on the reader's GPUs, None where no layout fits."""
    plan = estimators.fleet_plan(model, gpu, gpus, precision, layout=_PLANNED_ON_KEY)
    return plan.best[0] if plan.best else None


def _model_mfu(model: str, gpu: str, gpus: int, precision: str) -> dict:
    """The step model's MFU for the model on the reader's GPUs at the planner's fastest layout, and which layout.
    Formatted at every answer, outside the cache: a pinned state compares the figures each answer prints."""
    best = _fastest_layout(model, gpu, gpus, precision)
    if best is None:
        return {"model_mfu": "no layout fits", "model_layout": "on these GPUs"}
    return {"model_mfu": units.percent(best.mfu), "model_layout": f"fastest layout: {layout_text(best.layout)}"}
