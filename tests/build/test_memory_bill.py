"""W3's update() in CPython: the numbers are the estimators', and bad input names its field."""

import math

import pytest

import estimators
from estimators import EstimatorError, units
from pyodide_widgets import memory_bill

PRESETS = estimators.load_presets()
PARTS = ("weights", "gradients", "master", "momentum", "variance", "activations")


def default_state() -> dict:
    return dict(next(iter(memory_bill.presets().values()))["state"])


def expected_bill(state: dict) -> estimators.GpuMemory:
    """The bill computed straight from the estimators, as a reader would by hand."""
    config = PRESETS.model(state["model"]).config
    activations = estimators.activation_bytes(
        int(state["seq_len"]),
        int(state["micro_batch"]),
        config.d_model,
        config.heads,
        config.layers,
        int(state["tp"]),
        sequence_parallel=True,
        recompute=state["recompute"],
    )
    return estimators.training_memory_per_gpu(
        PRESETS.model(state["model"]).params,
        int(state["gpus"]),
        int(state["stage"]),
        state["optimizer"],
        activations,
        int(state["tp"]),
    )


@pytest.mark.parametrize("preset", list(memory_bill.presets()))
def test_outputs_equal_a_direct_computation(preset):
    state = memory_bill.presets()[preset]["state"]
    outputs = memory_bill.update(state)["outputs"]
    bill = expected_bill(state)
    budget = PRESETS.gpu(state["gpu"]).memory_bytes
    for part in PARTS:
        assert outputs[part] == units.bytes_(getattr(bill, part))
    assert outputs["total"] == units.bytes_(bill.total)
    assert outputs["ratio"].startswith(units.times(bill.total / budget, 2))


def test_default_is_one_8b_server_that_does_not_fit_until_sharded():
    state = default_state()
    # Llama 3 8B at 16 B/param on 8 H100s with nothing sharded: 128.5 GB of state alone > 80 GB.
    assert (state["model"], state["stage"], state["gpus"], state["gpu"]) == ("llama3-8b", "0", 8, "h100-sxm")
    bill = expected_bill(state)
    over = units.bytes_(bill.total - PRESETS.gpu("h100-sxm").memory_bytes)
    assert memory_bill.update(state)["outputs"]["verdict"].startswith(f"Does not fit, {over} over.")
    # ZeRO-3 divides all 16 B/param by 8: it fits, and the verdict says so with the same number.
    zero3 = expected_bill({**state, "stage": "3"})
    assert f"ZeRO-3 brings it to {units.bytes_(zero3.total)} (fits)" in memory_bill.update(state)["outputs"]["verdict"]


H100_BYTES = PRESETS.gpu("h100-sxm").memory_bytes  # the datasheet's "80 GB": 80 GiB


def test_verdict_counts_the_gpus_that_would_fit():
    # Two sequences of 8K per GPU: ZeRO-3 over the server's 8 GPUs is still over 80 GiB.
    state = {**default_state(), "stage": "3", "micro_batch": 2}
    bill = expected_bill(state)
    activations = bill.activations
    gpus = estimators.min_data_parallel_gpus(PRESETS.model("llama3-8b").params, 3, H100_BYTES, "adam", activations)
    assert gpus > 8
    assert f"ZeRO-3 fits from {units.integer(gpus)} data-parallel GPUs" in memory_bill.update(state)["outputs"]["verdict"]


def test_a_fitting_bill_says_what_is_spare():
    state = {**default_state(), "stage": "3"}
    bill = expected_bill(state)
    spare = units.bytes_(H100_BYTES - bill.total)
    assert memory_bill.update(state)["outputs"]["verdict"].startswith(f"Fits, with {spare} of the ")


@pytest.mark.parametrize("optimizer", ["adam", "adam8bit", "sgd_momentum", "sgd"])
@pytest.mark.parametrize("stage", ["0", "1", "2", "3"])
def test_the_parts_sum_to_the_total(optimizer, stage):
    result = memory_bill.update({**default_state(), "optimizer": optimizer, "stage": stage})
    rows = result["data"]["bill"]
    assert [row["order"] for row in rows] == list(range(len(PARTS)))
    assert math.isclose(sum(row["bytes"] for row in rows), expected_bill({**default_state(), "optimizer": optimizer, "stage": stage}).total)
    assert result["outputs"]["total"] == units.bytes_(sum(row["bytes"] for row in rows))


def test_chart_rows_carry_preformatted_labels():
    data = memory_bill.update(default_state())["data"]
    assert data["budget"][0]["bytes"] == H100_BYTES
    assert data["budget"][0]["label"].startswith("NVIDIA H100 SXM: ")
    assert data["bill"][0]["label"] == "Weights (BF16): " + units.bytes_(data["bill"][0]["bytes"])


def test_form_text_reads_like_build_time_numbers():
    # The browser sends every value as text.
    text_state = {key: str(value) for key, value in default_state().items()}
    assert memory_bill.update(text_state) == memory_bill.update(default_state())


@pytest.mark.parametrize(
    "field, raw",
    [
        ("gpus", ""),  # empty
        ("gpus", "eight"),  # non-numeric
        ("gpus", "-8"),  # negative
        ("gpus", "0"),  # zero GPUs
        ("gpus", "2.5"),  # not whole
        ("gpus", "1e12"),  # absurdly large
        ("gpus", "nan"),  # NaN
        ("gpus", "inf"),
        ("seq_len", ""),
        ("seq_len", "1e300"),
        ("seq_len", "NaN"),
        ("micro_batch", "0"),
        ("micro_batch", "-1"),
        ("micro_batch", "lots"),
        ("tp", "0"),
        ("tp", "3"),  # not a divisor of Llama 3 8B's 32 heads
        ("tp", "4096"),
        ("model", "gpt-5"),  # unknown option
        ("model", "deepseek-v3"),  # a preset, but MoE: not offered
        ("optimizer", "adamw"),
        ("stage", "4"),
        ("stage", "1.0"),
        ("stage", ""),
        ("gpu", "h100"),
        ("recompute", "some"),
        ("recompute", "<script>"),
    ],
)
def test_bad_input_names_the_field(field, raw):
    with pytest.raises(EstimatorError) as error:
        memory_bill.update({**default_state(), field: raw})
    assert error.value.argument == field


def test_a_missing_field_is_named():
    state = default_state()
    del state["recompute"]
    with pytest.raises(EstimatorError) as error:
        memory_bill.update(state)
    assert error.value.argument == "recompute"


def test_outputs_never_read_nan_or_infinity():
    for preset in memory_bill.presets().values():
        for text in memory_bill.update(preset["state"])["outputs"].values():
            assert not any(bad in text.lower() for bad in ("nan", "inf", "none", "undefined"))
