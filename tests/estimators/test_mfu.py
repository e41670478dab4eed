"""A step's waterfall from peak to MFU adds up to the step model's step, and a run's losses outside the step."""

import dataclasses
import math

import pytest

from estimators import EstimatorError, units
from estimators.checkpoint import effective_training_time
from estimators.mfu import BAR_FIELDS, published_run_waterfall, relaid_run, run_time_losses, step_waterfall
from estimators.presets import load_presets
from estimators.step_runs import measured_runs, predict_run
from estimators.step_time import Setup, gpu_preset, shape_of, step_seconds

RUNS = measured_runs()


@pytest.mark.parametrize("key", RUNS)
def test_the_bars_add_up_to_the_step_the_step_model_predicts(key):
    waterfall, step = published_run_waterfall(key), predict_run(key).step
    assert math.isclose(sum(bar.seconds for bar in waterfall.bars), step.step_seconds, rel_tol=1e-12)
    assert math.isclose(sum(bar.share for bar in waterfall.bars), 1, rel_tol=1e-12)
    # The first bar, the model's arithmetic at peak, is the step's MFU.
    assert math.isclose(waterfall.bars[0].share, step.mfu, rel_tol=1e-12)
    assert [bar.name for bar in waterfall.bars] == list(BAR_FIELDS)


@pytest.mark.parametrize("key", RUNS)
def test_no_loss_is_negative_but_fp8_matrix_multiplies_which_beat_the_bf16_peak(key):
    waterfall, run = published_run_waterfall(key), RUNS[key]
    for bar in waterfall.losses:
        if bar.name == "matmul_seconds" and run.precision == "fp8":
            continue
        assert bar.seconds >= -1e-12 * waterfall.step_seconds, f"{key}: {bar.name} = {bar.seconds}"


def test_only_an_fsdp_trainer_pays_the_framework_bar_and_only_a_pipeline_the_bubble():
    for key, run in RUNS.items():
        waterfall = published_run_waterfall(key)
        assert (waterfall.framework_seconds > 0) == (run.setup.framework != "megatron"), key
        assert (waterfall.bubble_seconds > 0) == (run.setup.pp > 1), key
        if run.setup.pp == 1:
            assert waterfall.stage_imbalance_seconds == pytest.approx(0, abs=1e-12 * waterfall.step_seconds), key


def test_recomputing_the_whole_forward_shows_as_its_own_bar_and_moves_no_other_compute_bar():
    run = RUNS["korthikanti-175b-selective"]
    gpu, shape = gpu_preset(run.gpu, run.scale_up, run.scale_out), shape_of(run.config)
    selective = step_waterfall(shape, run.setup, gpu, run.seq_len, run.global_batch)
    full = step_waterfall(shape, dataclasses.replace(run.setup, recompute="full"), gpu, run.seq_len, run.global_batch)
    assert full.recompute_seconds > 3 * selective.recompute_seconds
    for name in ("peak_seconds", "matmul_seconds", "attention_seconds", "memory_bound_seconds"):
        assert getattr(full, name) == pytest.approx(getattr(selective, name), rel=1e-9), name
    assert full.mfu < selective.mfu


def test_a_waterfall_refuses_what_the_step_model_refuses():
    run = RUNS["llama3-405b-8k-16384"]
    gpu, shape = gpu_preset(run.gpu, run.scale_up, run.scale_out), shape_of(run.config)
    with pytest.raises(EstimatorError, match="cp"):
        step_waterfall(shape, Setup(tp=8, cp=3, pp=16, dp=128), gpu, run.seq_len, run.global_batch)
    with pytest.raises(EstimatorError, match="key"):
        published_run_waterfall("no-such-run")


def _llama3_losses(**changed):
    f = load_presets().failure("llama3-405b")
    step = predict_run("llama3-405b-8k-16384").step
    arguments = dict(step_seconds=step.step_seconds, step_mfu=step.mfu, batch_bytes=1e9, read_bytes_per_s=2e12,
                     window_s=f.window_seconds, interruptions=f.interruptions,
                     checkpoint_interval_s=f.checkpoint_interval_seconds, checkpoint_stall_s=3.0)
    return run_time_losses(**{**arguments, **changed}), arguments


def test_a_prefetched_read_shorter_than_the_step_costs_nothing_and_the_shares_add_up():
    losses, a = _llama3_losses()
    kept = effective_training_time(a["window_s"], a["interruptions"], a["checkpoint_interval_s"],
                                   checkpoint_stall_s=a["checkpoint_stall_s"])
    assert losses.data_wait_seconds == 0 and losses.data_share == 0
    assert losses.effective_share == pytest.approx(kept.effective_share)
    assert losses.run_mfu == pytest.approx(a["step_mfu"] * kept.effective_share)
    assert (losses.effective_share + losses.data_share + losses.checkpoint_share + losses.lost_work_share
            + losses.restart_share) == pytest.approx(1)


def test_a_read_longer_than_the_step_waits_the_difference_every_step():
    _, a = _llama3_losses()
    read_seconds = 2 * a["step_seconds"]
    losses, _ = _llama3_losses(batch_bytes=read_seconds * a["read_bytes_per_s"], restart_s=600)
    assert losses.data_wait_seconds == pytest.approx(a["step_seconds"])
    assert losses.data_share > 0 and losses.restart_share > 0
    assert losses.effective_share + losses.data_share + losses.checkpoint_share + losses.lost_work_share \
        + losses.restart_share == pytest.approx(1)


@pytest.mark.parametrize("name, value", [("step_mfu", 1.5), ("step_mfu", 0), ("read_bytes_per_s", 0),
                                         ("batch_bytes", -1), ("step_seconds", float("nan"))])
def test_run_time_losses_refuse_bad_input_by_name(name, value):
    with pytest.raises(EstimatorError, match=name):
        _llama3_losses(**{name: value})


@pytest.mark.parametrize("key", ["llama3-405b-8k-16384", "mpt-7b-2k-8", "bloom-176b"])
def test_a_run_on_its_own_layout_reads_the_validations_ratio(key):
    run = RUNS[key]
    relaid = relaid_run(key, run.setup, run.gpu)
    assert relaid.own_layout
    assert relaid.ratio == pytest.approx(predict_run(key).ratio, rel=1e-12)
    other = relaid_run(key, dataclasses.replace(run.setup, recompute="ops" if run.setup.recompute != "ops" else "full"), run.gpu)
    assert not other.own_layout and other.measured == relaid.measured and other.ratio != relaid.ratio


def test_another_model_on_a_runs_sequences_and_batch_is_timed_but_never_set_beside_the_runs_measurement():
    # The Llama 3 405B run (Llama 3 §3.3.2) with the 70B model on the same layout: a prediction, and no measurement to
    # compare it with; the run's own model named as a preset reads the run's measurement as before.
    key = "llama3-405b-8k-16384"
    run = RUNS[key]
    other = relaid_run(key, run.setup, run.gpu, model="llama3-70b")
    assert other.measured is None and other.ratio is None and not other.own_layout
    own = relaid_run(key, run.setup, run.gpu)
    assert other.waterfall.tokens_per_second_per_gpu > own.waterfall.tokens_per_second_per_gpu  # a fifth the arithmetic
    named = relaid_run(key, run.setup, run.gpu, model="llama3-405b")
    assert named == own
    with pytest.raises(EstimatorError):
        relaid_run(key, run.setup, run.gpu, model="no-such-model")


def test_the_waterfall_widget_shows_a_measurement_only_for_the_runs_own_model():
    from pyodide_widgets.widgets import mfu_waterfall as widget
    state = widget.presets()["llama3-405b-8k-16384"]["state"]
    own = widget.update(state)["outputs"]
    assert own["measured"] == units.si(predict_run("llama3-405b-8k-16384").measured, "tokens/s") + " per GPU"
    other = widget.update({**state, "model": "llama3-70b", "gpus": "8192"})["outputs"]
    assert other["measured"] == widget.NONE and other["predicted"] != own["predicted"]
    # Half the GPUs on the same TP × CP × PP: half the data-parallel replicas.
    relaid = relaid_run("llama3-405b-8k-16384", dataclasses.replace(RUNS["llama3-405b-8k-16384"].setup, dp=64),
                        "h100-sxm", model="llama3-70b")
    assert other["mfu"] == units.percent(relaid.waterfall.mfu)
