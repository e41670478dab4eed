"""What a widget's outputs and errors say: the quantity the prose names, and a bad field's limit
computed from the other inputs, in the units the form and the units policy use.

Each check is on behaviour, not on a sentence: which estimator an output is of and the figure it
prints, which field an error names and the limit it gives (a value at that limit is accepted, one past
it refused), and the unit each figure is written in.
"""

import math
import re

import pytest

import estimators
import pyodide_widgets
from estimators import units

PRESETS = estimators.load_presets()
# A figure and the unit after it, as units writes them: "24 GiB", "4.22×", "77.2 GiB".
FIGURE = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)(?:\s?([A-Za-z×%]+))?")


def default_state(name: str) -> dict:
    return next(iter(pyodide_widgets.module(name).presets().values()))["state"]


def field(name: str, key: str):
    return next(f for f in pyodide_widgets.module(name).FIELDS if f.name == key)


def error_of(name: str, **change) -> estimators.EstimatorError:
    widget = pyodide_widgets.module(name)
    with pytest.raises(estimators.EstimatorError) as error:
        widget.update({**default_state(name), **change})
    return error.value


def accepts(name: str, **change) -> bool:
    pyodide_widgets.module(name).update({**default_state(name), **change})
    return True


def holds(text: str, *figures: str) -> bool:
    """Whether `text` holds each of `figures` whole (not inside a longer number), in that order."""
    at = 0
    for figure in figures:
        found = re.compile(r"(?<![\w.,])" + re.escape(figure) + r"(?!\w|[.,]\d)").search(text, at)
        if not found:
            return False
        at = found.end()
    return True


def test_the_time_widgets_checkpoint_is_the_one_the_frameworks_write_not_the_least_a_resume_needs():
    # The page: a resume needs the master weights and both moments (12 B/param); Megatron-LM and
    # DeepSpeed write the BF16 weights beside them (14 B/param), the figure the widget prints.
    widget = pyodide_widgets.module("training_time")
    output = next(o for o in widget.OUTPUTS if o.key == "checkpoint")
    assert output.of == (estimators.RunEstimate, "checkpoint_bytes")
    params = float(default_state("training_time")["params"]) * field("training_time", "params").scale
    shown = widget.update(default_state("training_time"))["outputs"]["checkpoint"]
    written, least = estimators.checkpoint_bytes(params), estimators.resume_bytes_per_param() * params
    assert shown == units.bytes_(written) != units.bytes_(least)
    assert written / params == estimators.checkpoint_bytes_per_param() == 14


def test_a_micro_batch_that_does_not_divide_a_replicas_share_is_named_on_the_micro_batch():
    # A batch of 16 sequences over 8 data-parallel GPUs: each replica has 2 sequences a step.
    state = default_state("parallel_cuts")
    batch, replicas = int(state["global_batch"]), 8
    each = estimators.replica_sequences(batch, replicas)
    assert each == 2
    error = error_of("parallel_cuts", cut="dp", gpus=str(replicas), micro_batch=str(each + 1))
    assert error.argument == "micro_batch" and error.value == str(each + 1)
    # The limit in the field's unit, and the batch it comes from.
    assert holds(error.allowed, units.noun(each, field("parallel_cuts", "micro_batch").unit), units.integer(batch)), error.allowed
    # The limit is the behaviour: every divisor of the replica's share runs.
    assert all(accepts("parallel_cuts", cut="dp", gpus=str(replicas), micro_batch=str(m)) for m in (1, each))


def test_a_batch_the_replicas_cannot_split_is_named_on_the_batch():
    state = default_state("parallel_cuts")
    micro, replicas = int(state["micro_batch"]), 8
    step = micro * replicas  # whole micro-batches on every replica
    error = error_of("parallel_cuts", cut="dp", gpus=str(replicas), global_batch=str(step + step // 2))
    assert error.argument == "global_batch"
    assert holds(error.allowed, units.integer(step), units.integer(micro), units.integer(replicas)), error.allowed
    assert accepts("parallel_cuts", cut="dp", gpus=str(replicas), global_batch=str(2 * step))


def test_a_tiny_window_is_named_on_the_window_with_the_least_that_keeps_dalys_interval_in_range():
    # Was: on the interval, "at most the window, 1.44e-297 minutes". A hundredth of a day and a half with
    # 419 interruptions and the 2.84 s pause: the window is named, with the least that keeps Daly's interval
    # inside what the lost-work count holds for (a share of the mean time between interruptions, window / n).
    state = default_state("interruptions")
    days = field("interruptions", "window")
    pause, n = float(state["pause"]), int(state["interruptions"])
    least = pause / estimators.checkpoint.DALY_IN_RANGE_SHARE * n / days.scale
    step = 10 ** (math.floor(math.log10(least)) - 2)  # three digits, rounded up: typed back, it is accepted
    least = math.ceil(least / step) * step
    error = error_of("interruptions", window="0.015")
    assert error.argument == "window" and error.value == "0.015"
    assert holds(error.allowed, f"{units.number(least)} {days.unit}"), error.allowed


def test_an_interval_longer_than_the_time_between_interruptions_is_named_on_the_interval():
    state = default_state("interruptions")
    minutes = field("interruptions", "interval")
    mtbf = field("interruptions", "window").scale * float(state["window"]) / int(state["interruptions"])
    error = error_of("interruptions", interval="100000")  # 69 days; one interruption every few hours
    assert error.argument == "interval"
    below = math.floor(mtbf / minutes.scale)
    assert holds(error.allowed, units.duration(mtbf), f"{units.number(below)} {minutes.unit}"), error.allowed
    assert accepts("interruptions", interval=repr(below))


def test_a_fine_tune_that_fits_says_its_room_to_spare_in_the_cards_unit():
    widget, state = pyodide_widgets.module("finetune_fit"), default_state("finetune_fit")
    outputs = widget.update(state)["outputs"]
    gpu, config = PRESETS.gpu(state["gpu"]), PRESETS.model(state["model"]).config
    fits = set()
    for method in ("full", "lora", "qlora"):
        bill = estimators.finetune_bill(method, config, state["rank"], state["modules"], state["quantization"],
                                        state["seq_len"], state["micro_batch"], state["recompute"], gpu.memory_bytes)
        line = outputs[f"{method}_fit"]
        # The card's memory is binary (GiB), so its room to spare, or how far over it a bill is, reads in GiB too.
        capacity = units.bytes_(gpu.memory_bytes, binary=True)
        room = units.bytes_(abs(bill.fit.spare), binary=True)
        assert holds(line, capacity, room) if bill.fit.fits else holds(line, units.times(bill.fit.ratio), capacity, room), line
        assert {unit for _, unit in FIGURE.findall(line) if unit.endswith("B")} == {"GiB"}, line
        fits.add(bill.fit.fits)
    assert fits == {True, False}  # the default state shows both: one bill over the card, one with room to spare
