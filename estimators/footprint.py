"""What a run costs: the energy its GPUs draw, the facility's share on top, the emissions and the bill.

The chain the published footprints follow (Patterson et al. 2021, "Carbon Emissions and Large
Neural Network Training", §2; Luccioni, Viguier and Ligozat 2022, "Estimating the Carbon Footprint
of BLOOM"; the Llama 2 paper's table 2 and the Llama 3.1 model card):

- energy at the GPUs = GPU-hours × the power of one GPU (its board power, or a measured average);
- energy at the facility = that × PUE, power usage effectiveness: the facility's energy over the
  energy of the computers in it (cooling, power conversion and lighting are the difference);
- emissions = the facility's energy × the grid's carbon intensity, in CO₂-equivalent;
- cost = GPU-hours × a price per GPU-hour.

Energy is in watt-hours (units print it as MWh or GWh), intensity in grams of CO₂e per kWh as grid
operators and papers publish it, emissions in tonnes of CO₂e (10⁶ g), money in US dollars.
"""

from dataclasses import dataclass

from .errors import EstimatorError
from .presets import load_presets
from .provenance import quantity
from .validate import finite_result, non_negative, positive

WH_PER_KWH = 1000
GRAMS_PER_TONNE = 1e6


def _pue(pue: float) -> float:
    """A PUE of 1 or more: a facility draws at least what the computers in it draw."""
    if positive("pue", pue) < 1:
        raise EstimatorError("pue", pue, "a number of 1 or more: a facility uses at least the energy of its computers")
    return pue


def gpu_energy_wh(gpu_hours: float, watts: float) -> float:
    """Energy at the GPUs = GPU-hours × power per GPU, in watt-hours."""
    return finite_result("gpu_energy_wh", positive("gpu_hours", gpu_hours) * positive("watts", watts))


def facility_energy_wh(energy_wh: float, pue: float) -> float:
    """Energy at the facility = energy at the GPUs × PUE (the facility's energy over its computers'), in watt-hours."""
    return finite_result("facility_energy_wh", positive("energy_wh", energy_wh) * _pue(pue))


def emissions_tonnes(energy_wh: float, grams_per_kwh: float) -> float:
    """Emissions = energy × the grid's carbon intensity, in tonnes of CO₂-equivalent."""
    grams = positive("energy_wh", energy_wh) / WH_PER_KWH * non_negative("grams_per_kwh", grams_per_kwh)
    return finite_result("emissions_tonnes", grams / GRAMS_PER_TONNE)


def training_cost(gpu_hours: float, dollars_per_gpu_hour: float) -> float:
    """Cost = GPU-hours × the price of one GPU-hour, in US dollars."""
    return finite_result("training_cost",
                         positive("gpu_hours", gpu_hours) * non_negative("dollars_per_gpu_hour", dollars_per_gpu_hour))


def implied_grid_intensity(tonnes: float, gpu_hours: float, watts: float, pue: float = 1.0) -> float:
    """The grid intensity a reported footprint implies = tonnes of CO₂e ÷ (GPU-hours × power per GPU × PUE), in g CO₂e per kWh.

    For a report that gives its GPU-hours, power and emissions but not its grid: the intensity
    that, with those figures, gives the emissions it reports.
    """
    energy_wh = facility_energy_wh(gpu_energy_wh(gpu_hours, watts), pue)
    return finite_result("implied_grid_intensity", non_negative("tonnes", tonnes) * GRAMS_PER_TONNE / (energy_wh / WH_PER_KWH))


@dataclass(frozen=True)
class Footprint:
    """A run's energy, emissions and cost from its GPU-hours."""

    gpu_hours: float = quantity("GPU-hours", "count")
    watts: float = quantity("power per GPU", "si", unit="W")
    pue: float = quantity("power usage effectiveness: the facility's energy over its computers'", "number")
    grams_per_kwh: float = quantity("the grid's carbon intensity, g CO₂e per kWh", "number")
    # None where no offer lists the GPU: its cost is then left out, never priced at another GPU's rate.
    dollars_per_gpu_hour: float | None = quantity("price of one GPU-hour, US dollars", "number")
    gpu_energy_wh: float = quantity("energy at the GPUs", "si", unit="Wh", of=gpu_energy_wh)
    facility_energy_wh: float = quantity("energy at the facility, PUE included", "si", unit="Wh", of=facility_energy_wh)
    emissions_tonnes: float = quantity("emissions, tonnes of CO₂e", "number", of=emissions_tonnes)
    cost_dollars: float | None = quantity("cost, US dollars", "count", of=training_cost)


def run_footprint(gpu_hours: float, watts: float, pue: float, grams_per_kwh: float,
                  dollars_per_gpu_hour: float | None = None) -> Footprint:
    """Energy at the GPUs and at the facility, emissions and cost of a run, from its GPU-hours.

    Without a price (`dollars_per_gpu_hour` None: no offer lists the GPU) the cost is None, not 0.
    """
    at_gpus = gpu_energy_wh(gpu_hours, watts)
    at_facility = facility_energy_wh(at_gpus, pue)
    return Footprint(
        gpu_hours=gpu_hours,
        watts=watts,
        pue=pue,
        grams_per_kwh=grams_per_kwh,
        dollars_per_gpu_hour=dollars_per_gpu_hour,
        gpu_energy_wh=at_gpus,
        facility_energy_wh=at_facility,
        emissions_tonnes=emissions_tonnes(at_facility, grams_per_kwh),
        cost_dollars=None if dollars_per_gpu_hour is None else training_cost(gpu_hours, dollars_per_gpu_hour),
    )


def published_footprint(key: str) -> Footprint:
    """The footprint of a published run from its own inputs; where its report states no PUE or grid,
    PUE 1 and the intensity its reported emissions imply (so its emissions are the reported ones)."""
    entry = load_presets().footprint(key)
    pue = entry.pue if entry.pue is not None else 1.0
    intensity = entry.grams_per_kwh
    if intensity is None:
        intensity = implied_grid_intensity(entry.reported_tonnes, entry.gpu_hours, entry.watts, pue)
    return run_footprint(entry.gpu_hours, entry.watts, pue, intensity)
