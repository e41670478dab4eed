"""The composed run estimate: the seed article's training-time figures for Llama 3 405B come out of one call,
and each field is the topic estimator's own figure (so pages, CLI and widgets share one arithmetic)."""

import pytest

import estimators
from estimators import units

PRESETS = estimators.load_presets()


def test_llama3_405b_preset_gives_the_published_figures():
    # The Llama 3 paper's run at the configuration's 405,853,388,800 parameters × 15.6T tokens on 16,384
    # H100 at 989 TFLOP/s, 40% MFU: the paper's own 3.8 × 10²⁵ FLOPs (§3.3).
    e = estimators.run_preset_estimate("llama3-405b")
    shown = (
        units.sci(e.flops), units.si(e.fleet_peak_flops, "FLOP/s"), units.si(e.delivered_flops, "FLOP/s"),
        units.duration(e.seconds), units.count(e.gpu_hours), units.bytes_(e.dataset_bytes),
        units.bytes_(e.state_bytes), units.bytes_(e.weights_bytes),
    )
    assert shown == ("3.8e25", "16.2 EFLOP/s", "6.48 EFLOP/s", "67.8 days", "26.7M", "62.4 TB", "6.49 TB", "812 GB")
    assert e.token_bytes == 4  # a vocabulary of 128,256 ids needs uint32


@pytest.mark.parametrize("key", list(PRESETS.runs))
def test_each_field_is_the_topic_estimators_figure(key):
    run = PRESETS.run(key)
    e = estimators.run_preset_estimate(key)
    peak = PRESETS.gpu(run.gpu).peak_flops[run.precision]
    flops = estimators.training_flops(run.params, run.tokens)
    seconds = estimators.training_seconds(flops, run.gpus, peak, run.mfu)
    assert (e.flops, e.seconds, e.peak_flops_per_gpu) == (flops, seconds, peak)
    assert e.gpu_hours == estimators.gpu_hours(seconds, run.gpus)
    assert e.token_bytes == estimators.token_id_bytes(PRESETS.model(run.model).config.vocab)
    assert e.checkpoint_bytes == estimators.checkpoint_bytes(run.params)


def test_bad_input_names_the_argument():
    with pytest.raises(estimators.EstimatorError) as error:
        estimators.run_estimate(405e9, 15.6e12, 0, 989e12, 0.4)
    assert error.value.argument == "gpus"
