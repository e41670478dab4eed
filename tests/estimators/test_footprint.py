"""What a run costs: published footprints reproduced from their own inputs, and bad input refused.

Each published figure is reproduced from the inputs its report gives (presets.toml's footprints
table, each entry naming its source) within 1%: the reports round their inputs (14.8 days, 1.46M
GPU-hours) and their results.
"""

import math

import pytest

import estimators
from estimators import EstimatorError, load_presets

PRESETS = load_presets()
# Reports round their inputs and results to three or four digits: within 1% is a reproduction.
WITHIN = 0.01
MWH = 1e6  # watt-hours in a megawatt-hour


def test_gpt3_patterson_table_4():
    """Patterson et al. 2021, table 4: GPT-3 175B, 1,287 MWh and 552 t CO₂e, from 10,000 V100s for
    14.8 days at 330 W, PUE 1.10, 429 g CO₂e per kWh."""
    entry = PRESETS.footprint("gpt3-175b")
    f = estimators.published_footprint("gpt3-175b")
    assert f.facility_energy_wh == pytest.approx(entry.reported_energy_wh, rel=WITHIN)
    assert f.facility_energy_wh == pytest.approx(1287 * MWH, rel=WITHIN)
    assert f.emissions_tonnes == pytest.approx(entry.reported_tonnes, rel=WITHIN)
    assert f.emissions_tonnes == pytest.approx(552, rel=WITHIN)


def test_bloom_luccioni_viguier_ligozat():
    """Luccioni, Viguier and Ligozat 2022, table 1: BLOOM 176B, 1,082,990 A100 GPU-hours at 400 W,
    about 433 MWh at the GPUs, 24.7 t CO₂e on the French grid (57 g per kWh), no PUE applied."""
    f = estimators.published_footprint("bloom-176b")
    assert f.gpu_energy_wh == pytest.approx(433 * MWH, rel=WITHIN)
    assert f.facility_energy_wh == f.gpu_energy_wh  # the paper's 24.7 t counts the GPUs alone
    assert f.emissions_tonnes == pytest.approx(24.7, rel=WITHIN)
    assert f.emissions_tonnes == pytest.approx(PRESETS.footprint("bloom-176b").reported_tonnes, rel=WITHIN)


@pytest.mark.parametrize("report, keys", [
    # Touvron et al. 2023 (Llama 2), table 2: A100s at 400 W "adjusted for power usage efficiency".
    ("llama2", ("llama2-7b", "llama2-13b", "llama2-70b")),
    # The Llama 3.1 model card's training energy table: H100s at 700 W, location-based emissions.
    ("llama31", ("llama31-8b", "llama31-70b", "llama31-405b")),
])
def test_llama_reports_one_intensity_reproduces_every_row(report, keys):
    """Neither Llama report states its PUE or grid: the largest model's row implies an intensity
    (per kWh at the stated power, PUE folded in), and that one intensity reproduces the report's
    other rows within 1%, so each report's table is GPU-hours × power × one intensity."""
    largest = PRESETS.footprint(keys[-1])
    implied = estimators.implied_grid_intensity(largest.reported_tonnes, largest.gpu_hours, largest.watts)
    for key in keys:
        entry = PRESETS.footprint(key)
        assert entry.pue is None and entry.grams_per_kwh is None  # what the report leaves unstated
        f = estimators.run_footprint(entry.gpu_hours, entry.watts, 1.0, implied)
        assert f.emissions_tonnes == pytest.approx(entry.reported_tonnes, rel=WITHIN), key


def test_llama_implied_intensities_lie_between_france_and_gpt3_grids():
    """What the Llama figures imply (about 423 and 414 g per kWh) is a US-like grid: below the 429 g
    Patterson et al. take for GPT-3, far above BLOOM's French 57 g."""
    for key in ("llama2-70b", "llama31-405b"):
        f = estimators.published_footprint(key)
        assert PRESETS.grid("france-bloom").grams_per_kwh < f.grams_per_kwh < PRESETS.grid("us-gpt3").grams_per_kwh


def test_chain_multiplies_through():
    """Energy, emissions and cost follow GPU-hours linearly: twice the hours, twice each."""
    one = estimators.run_footprint(1e6, 700, 1.1, 429, 3.99)
    two = estimators.run_footprint(2e6, 700, 1.1, 429, 3.99)
    for name in ("gpu_energy_wh", "facility_energy_wh", "emissions_tonnes", "cost_dollars"):
        assert getattr(two, name) == pytest.approx(2 * getattr(one, name))
    assert one.cost_dollars == pytest.approx(1e6 * 3.99)
    assert one.facility_energy_wh == pytest.approx(1e6 * 700 * 1.1)


@pytest.mark.parametrize("arguments, argument, limit", [
    ({"watts": -700}, "watts", "greater than 0"),
    ({"pue": 0.9}, "pue", "1 or more"),
    ({"grams_per_kwh": math.nan}, "grams_per_kwh", "finite"),
    ({"dollars_per_gpu_hour": -1}, "dollars_per_gpu_hour", "0 or more"),
    ({"gpu_hours": math.inf}, "gpu_hours", "finite"),
])
def test_bad_input_names_its_argument_and_limit(arguments, argument, limit):
    good = {"gpu_hours": 1e6, "watts": 700, "pue": 1.1, "grams_per_kwh": 429, "dollars_per_gpu_hour": 3.99}
    with pytest.raises(EstimatorError) as raised:
        estimators.run_footprint(**{**good, **arguments})
    assert raised.value.argument == argument
    assert limit in raised.value.allowed


def test_no_price_leaves_the_cost_out():
    """Without a price the cost is unknown (None), never $0 nor another GPU's rate; the rest of the chain stands."""
    unpriced = estimators.run_footprint(1e6, 700, 1.1, 429)
    priced = estimators.run_footprint(1e6, 700, 1.1, 429, 3.99)
    assert unpriced.cost_dollars is None and unpriced.dollars_per_gpu_hour is None
    assert unpriced.emissions_tonnes == priced.emissions_tonnes
