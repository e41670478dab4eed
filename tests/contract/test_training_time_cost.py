"""What a run costs on "How long does a training run take?": its price, and the chain drawn under the plane.

A price is an offer for one GPU: a run whose GPU no offer lists is not priced at another GPU's rate,
its cost is left out and the widget says why. The chain's rows are the estimators' figures: the
reader's run (estimators.run_footprint) and each report's largest published run from its own inputs
(estimators.published_footprint).
"""

import pytest

import estimators
import pyodide_widgets

WIDGET = pyodide_widgets.module("training_time")
PRESETS = estimators.load_presets()
STATES = {key: p["state"] for key, p in WIDGET.presets().items()}


def offers_for(gpu_key: str) -> list[str]:
    return [key for key, price in PRESETS.prices.items() if price.gpu == gpu_key]


@pytest.mark.parametrize("key", STATES)
def test_a_preset_is_priced_at_an_offer_for_its_own_gpu_or_not_at_all(key):
    state = STATES[key]
    offers = offers_for(state["gpu"])
    assert state["price"] == (offers[0] if offers else WIDGET.UNPRICED)


def test_a_gpu_no_offer_lists_gets_no_cost_and_says_why():
    unlisted = [key for key, state in STATES.items() if not offers_for(state["gpu"])]
    assert unlisted, "every run's GPU has an offer: this test would check nothing"
    for key in unlisted:
        result = WIDGET.update(STATES[key])
        assert "$" not in result["outputs"]["cost"] and "$" not in result["outputs"]["summary"]
        assert PRESETS.gpu(STATES[key]["gpu"]).name in result["outputs"]["price_note"]
        assert not [row for row in result["data"]["footprint"] if row["stage"] == "cost"]


def test_another_gpus_offer_is_named_with_its_gpu():
    state = {**STATES["llama3-405b"], "gpu": "a100-sxm", "precision": "bf16"}
    offer = PRESETS.price(state["price"])
    assert offer.gpu != state["gpu"]
    assert PRESETS.gpu(offer.gpu).name in WIDGET.update(state)["outputs"]["price_note"]


def test_the_chain_draws_this_run_and_each_reports_largest_run():
    state = STATES["llama3-405b"]
    rows = WIDGET.update(state)["data"]["footprint"]
    e = estimators.run_preset_estimate("llama3-405b")
    offer = PRESETS.price(state["price"])
    mine = estimators.run_footprint(e.gpu_hours, float(state["watts"]), float(state["pue"]),
                                    PRESETS.grid(state["grid"]).grams_per_kwh, offer.dollars_per_gpu_hour)
    drawn = {(row["run"], row["stage"]): row["value"] for row in rows}
    for stage, figure in (("gpu_hours", mine.gpu_hours), ("energy", mine.facility_energy_wh),
                          ("emissions", mine.emissions_tonnes), ("cost", mine.cost_dollars)):
        assert drawn[("this run", stage)] == pytest.approx(figure)
    # Each report's largest run: Patterson et al.'s GPT-3, BLOOM, and the Llama 2 and 3.1 tables' last rows.
    largest = ("gpt3-175b", "bloom-176b", "llama2-70b", "llama31-405b")
    assert {run for run, _ in drawn} == {PRESETS.footprint(k).name for k in largest} | {"this run"}
    for key in largest:
        f = estimators.published_footprint(key)
        name = PRESETS.footprint(key).name
        assert drawn[(name, "emissions")] == pytest.approx(f.emissions_tonnes)
        assert drawn[(name, "cost")] == pytest.approx(f.gpu_hours * offer.dollars_per_gpu_hour)
