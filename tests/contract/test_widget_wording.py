"""What a widget's labels and messages say: the quantity the prose names, in words a reader can act on."""

import math

import pytest

import estimators
import pyodide_widgets
from estimators import units


def labels(name: str) -> dict:
    return {o.key: o.label for o in pyodide_widgets.module(name).OUTPUTS}


def test_the_time_widgets_checkpoint_is_the_one_the_frameworks_write_not_the_least_a_resume_needs():
    # The page: a resume needs the master weights and both moments (12 B/param); Megatron-LM and
    # DeepSpeed write the BF16 weights beside them (14 B/param), the figure the widget prints.
    label = labels("training_time")["checkpoint"]
    assert "Megatron-LM and DeepSpeed write" in label and "Resumable" not in label


def error_of(name: str, **change):
    widget = pyodide_widgets.module(name)
    state = {**next(iter(widget.presets().values()))["state"], **change}
    with pytest.raises(estimators.EstimatorError) as error:
        widget.update(state)
    return error.value


def test_a_micro_batch_that_does_not_divide_a_replicas_share_is_named_on_the_micro_batch():
    # Typed 3 with a batch of 16 sequences over 8 data-parallel GPUs: each replica has 2 sequences.
    error = error_of("parallel_cuts", cut="dp", gpus="8", micro_batch="3")
    assert error.argument == "micro_batch"
    assert error.allowed.startswith("a divisor of 2 sequences") and "batch of 16" in error.allowed


def test_a_batch_the_replicas_cannot_split_is_named_on_the_batch():
    error = error_of("parallel_cuts", cut="dp", gpus="8", global_batch="12")
    assert error.argument == "global_batch"
    assert error.allowed == "a multiple of 8 sequences per step: whole micro-batches of 1, for 8 data-parallel replicas"


def test_a_tiny_window_is_named_on_the_window_in_the_units_policys_words():
    # Was: on the interval, "at most the window, 1.44e-297 minutes". A hundredth of a day and a half with
    # 419 interruptions and the 2.84 s pause: the window is named, with the least that keeps Daly's interval
    # inside what the lost-work count holds for (a share of the mean time between interruptions, window / n).
    error = error_of("interruptions", window="0.015")
    assert error.argument == "window"
    state = next(iter(pyodide_widgets.module("interruptions").presets().values()))["state"]
    pause, n = float(state["pause"]), int(state["interruptions"])
    days = pause / estimators.checkpoint.DALY_IN_RANGE_SHARE * n / 86400
    step = 10 ** (math.floor(math.log10(days)) - 2)  # three digits, rounded up: typed back, it is accepted
    assert error.allowed.startswith(f"at least {units.number(math.ceil(days / step) * step)} days with this pause")


def test_an_interval_longer_than_the_time_between_interruptions_is_named_on_the_interval():
    error = error_of("interruptions", interval="100000")  # 69 days; one of the 419 interruptions every 3.09 h
    assert error.argument == "interval"
    mtbf = 54 * 86400 / 419
    assert error.allowed == (f"at most the mean time between interruptions, {units.duration(mtbf)}: "
                             f"{units.number(math.floor(mtbf / 60))} minutes")


def test_a_fine_tune_that_fits_says_its_room_to_spare_in_the_cards_unit():
    out = pyodide_widgets.module("finetune_fit").update(next(iter(pyodide_widgets.module("finetune_fit").presets().values()))["state"])
    fits = [out["outputs"][f"{m}_fit"] for m in ("full", "lora", "qlora")]
    assert any("to spare" in line for line in fits)
    for line in fits:
        assert "GiB" in line and " GB " not in f"{line} "
