"""The memory_bill widget's texts: every figure is estimators.memory_bill's, formatted by units; its own refusals name their field."""

import pytest

import estimators
from estimators import EstimatorError, units
from pyodide_widgets.widgets import memory_bill

PRESETS = estimators.load_presets()


def default_state() -> dict:
    return dict(next(iter(memory_bill.presets().values()))["state"])


def bill_of(state: dict) -> estimators.MemoryBill:
    return estimators.memory_bill(
        PRESETS.model(state["model"]).config, int(state["gpus"]), int(state["stage"]), state["optimizer"],
        int(state["seq_len"]), int(state["micro_batch"]), state["recompute"], int(state["tp"]),
        PRESETS.gpu(state["gpu"]).memory_bytes, int(state["pp"]),
    )


@pytest.mark.parametrize("preset", list(memory_bill.presets()))
def test_every_figure_is_the_estimators(preset):
    state = memory_bill.presets()[preset]["state"]
    result = memory_bill.update(state)
    bill = bill_of(state)
    for part in memory_bill.COMPONENTS:
        assert result["outputs"][part] == units.bytes_(getattr(bill.memory, part))
    assert result["outputs"]["total"] == units.bytes_(bill.memory.total)
    assert result["outputs"]["ratio"].startswith(units.times(bill.fit.ratio))
    assert result["outputs"]["inference"] == units.bytes_(bill.inference)
    # One column per data-parallel GPU the estimator draws, each stacking the bill's parts; then serving's weights.
    rows = result["data"]["bill"]
    columns = memory_bill.data_parallel_columns(int(state["gpus"]))
    for i, column in enumerate(columns):
        assert [row["bytes"] for row in rows if row["column_order"] == i] == [
            getattr(bill.memory, p) for p in memory_bill.COMPONENTS]
    assert [row["bytes"] for row in rows if row["column_order"] == len(columns)] == [bill.inference]


def test_the_columns_say_which_slice_each_gpu_holds():
    state = {**default_state(), "stage": "2", "gpus": "12"}
    labels = [row["label"] for row in memory_bill.update(state)["data"]["bill"]]
    assert "GPU 3: Momentum, slice 3 of 12, " in " | ".join(labels)
    assert any(label.startswith("GPU 3: Weights (BF16), a whole copy, ") for label in labels)
    assert any(label.startswith("× 4 more: Gradients, one slice of 12 each, ") for label in labels)
    assert any(label.startswith("GPU 1: Activations, its own micro-batch's, ") for label in labels)


def test_the_verdict_prints_each_remedy_with_its_computed_figure():
    for state in (default_state(), {**default_state(), "stage": "1"}, {**default_state(), "stage": "3", "micro_batch": 2}):
        bill = bill_of(state)
        verdict = memory_bill.update(state)["outputs"]["verdict"]
        assert verdict.startswith(f"Does not fit, {units.bytes_(-bill.fit.spare)} over.")
        assert bill.remedies
        for remedy in bill.remedies:
            if remedy.change == "gpus" and remedy.value is None:
                assert f"at ZeRO-{remedy.zero_stage} no count of GPUs fits" in verdict
            elif remedy.change == "gpus":
                assert f"ZeRO-{remedy.zero_stage} fits from {units.integer(remedy.value)} data-parallel GPUs" in verdict
            else:
                assert f"to {units.bytes_(remedy.total_bytes)} ({'fits' if remedy.fits else 'still over'})" in verdict


def test_a_fitting_bill_says_what_is_spare():
    state = {**default_state(), "stage": "3"}
    bill = bill_of(state)
    assert bill.fit.fits
    assert memory_bill.update(state)["outputs"]["verdict"] == (
        f"Fits, with {units.bytes_(bill.fit.spare)} of the {units.bytes_(bill.fit.budget, binary=True)} to spare."
    )


@pytest.mark.parametrize("field, raw", [("tp", "3"), ("model", "deepseek-v3")])
def test_inputs_the_model_cannot_take_name_their_field(field, raw):
    # tp = 3 does not divide Llama 3 8B's 32 heads; DeepSeek-V3 is a preset, but an MoE the estimate does not cover.
    with pytest.raises(EstimatorError) as error:
        memory_bill.update({**default_state(), field: raw})
    assert error.value.argument == field
