"""The composed memory bill: its parts are the ZeRO breakdown plus the model's own activations,
and each remedy is the bill recomputed with one change."""

import math

import pytest

import estimators
from estimators import EstimatorError

PRESETS = estimators.load_presets()
LLAMA3_8B = PRESETS.model("llama3-8b")
H100 = PRESETS.gpu("h100-sxm")


def bill(stage=0, gpus=8, recompute="selective", optimizer="adam", tp=1, micro_batch=1):
    return estimators.memory_bill(LLAMA3_8B.config, gpus, stage, optimizer, 8192, micro_batch, recompute, tp, H100.memory_bytes)


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_parts_are_the_zero_breakdown_plus_the_activations(stage):
    b = bill(stage)
    state = estimators.zero_breakdown(LLAMA3_8B.params, 8, stage)
    activations = estimators.model_activation_bytes(LLAMA3_8B.config, 8192, 1, 1, sequence_parallel=True, recompute="selective")
    assert (b.memory.weights, b.memory.master, b.memory.activations) == (state.weights, state.master, activations)
    assert math.isclose(b.memory.total, state.total + activations)
    assert b.fit == estimators.memory_fit(b.memory.total, H100.memory_bytes)


def test_an_unsharded_8b_does_not_fit_and_each_remedy_is_the_bill_recomputed():
    # 16 B/param × 8.03B = 128.5 GB of state alone, over one 80 GB H100 before any activation.
    b = bill(0)
    assert not b.fit.fits
    remedies = {r.change: r for r in b.remedies}
    assert remedies["zero_stage"].total_bytes == bill(3).memory.total and remedies["zero_stage"].fits
    assert remedies["recompute"].total_bytes == bill(0, recompute="full").memory.total
    assert "gpus" not in remedies  # ZeRO-3 already fits at 8 GPUs: counting GPUs adds nothing


def test_the_gpu_remedy_is_the_fewest_gpus_that_fit_at_that_stage():
    # ZeRO-1 over one server's 8 GPUs shards only the optimizer state: still over the H100's memory.
    b = bill(1)
    gpus = next(r for r in b.remedies if r.change == "gpus")
    assert gpus.value > 8 and gpus.fits
    assert bill(1, gpus=gpus.value).fit.fits and not bill(1, gpus=gpus.value - 1).fit.fits


def test_when_activations_alone_are_over_no_gpu_count_fits():
    # Two sequences of 8K with nothing recomputed: the logits and blocks outweigh any sharded state.
    gpus = next(r for r in bill(3, recompute="none", micro_batch=2).remedies if r.change == "gpus")
    assert gpus.value is None and gpus.total_bytes is None and not gpus.fits


def test_a_fitting_bill_has_no_remedy():
    assert bill(3).fit.fits and bill(3).remedies == ()


def test_tensor_parallelism_must_divide_the_heads():
    with pytest.raises(EstimatorError) as error:
        bill(tp=3)
    assert error.value.argument == "tp"
