"""Invariants (hypothesis) and bad input: every estimator refuses, naming the argument."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import estimators
from estimators import EstimatorError, units

params = st.floats(min_value=1e6, max_value=1e13)
tokens = st.floats(min_value=1e6, max_value=1e15)
gpu_counts = st.integers(min_value=1, max_value=1_000_000)
stages = st.sampled_from([0, 1, 2, 3])
optimizers = st.sampled_from(["adam", "adam_fp32_grads", "adam8bit", "sgd", "sgd_momentum"])


@given(params, gpu_counts, gpu_counts, optimizers)
def test_zero3_more_gpus_never_more_memory_per_gpu(n, g1, g2, optimizer):
    few, many = sorted((g1, g2))
    assert estimators.zero_bytes_per_gpu(n, many, 3, optimizer) <= estimators.zero_bytes_per_gpu(n, few, 3, optimizer)


@given(params, gpu_counts, optimizers)
def test_higher_zero_stage_never_more_memory(n, gpus, optimizer):
    per_stage = [estimators.zero_bytes_per_gpu(n, gpus, s, optimizer) for s in (0, 1, 2, 3)]
    assert per_stage == sorted(per_stage, reverse=True)


@given(params, tokens, tokens)
def test_more_tokens_never_less_compute(n, d1, d2):
    fewer, more = sorted((d1, d2))
    assert estimators.training_flops(n, more) >= estimators.training_flops(n, fewer)


@given(st.floats(min_value=1e15, max_value=1e30))
def test_compute_optimal_spends_the_budget(c):
    n, d = estimators.compute_optimal(c)
    assert estimators.training_flops(n, d) == pytest.approx(c)
    for fit in ("hoffmann2022", "hoffmann2022-rounded", "besiroglu2024"):
        n, d = estimators.chinchilla_optimal(c, fit)
        assert estimators.training_flops(n, d) == pytest.approx(c)


@given(params, stages, gpu_counts, optimizers)
def test_breakdown_total_is_the_sum_of_its_parts(n, stage, gpus, optimizer):
    b = estimators.zero_breakdown(n, gpus, stage, optimizer)
    assert b.total == pytest.approx(b.weights + b.gradients + b.master + b.momentum + b.variance)


@given(params, st.integers(1, 200), st.integers(1, 100))
def test_storage_total_grows_with_model_size(n, ratio, kept):
    small = estimators.storage_footprint(n, ratio, 4, kept)
    large = estimators.storage_footprint(2 * n, ratio, 4, kept)
    assert large.total == pytest.approx(2 * small.total)  # every term is linear in N


@given(st.sampled_from(["none", "selective", "full"]), st.integers(1, 8), st.booleans())
def test_recomputation_and_parallelism_never_add_activation_memory(recompute, tp, sp):
    baseline = estimators.activation_bytes(2048, 1, 4096, 32, 32)
    assert estimators.activation_bytes(2048, 1, 4096, 32, 32, tp, sp, recompute) <= baseline


# Every public estimator with one valid call; each bad-input case swaps one argument.
VALID = {
    "training_flops": dict(params=8e9, tokens=15e12),
    "training_seconds": dict(flops=1e24, gpus=8, peak_flops_per_gpu=989e12, mfu=0.4),
    "fleet_peak_flops": dict(gpus=8, peak_flops_per_gpu=989e12),
    "delivered_flops": dict(gpus=8, peak_flops_per_gpu=989e12, mfu=0.4),
    "gpu_hours": dict(seconds=3600, gpus=8),
    "param_count": dict(layers=32, d_model=4096, heads=32, kv_heads=8, ffn_dim=14336, vocab=128256),
    "model_state_bytes": dict(params=7e9, optimizer="adam"),
    "zero_bytes_per_gpu": dict(params=7.5e9, gpus=64, stage=3, optimizer="adam"),
    "zero_breakdown": dict(params=7.5e9, gpus=64, stage=3, optimizer="adam"),
    "activation_bytes": dict(seq_len=2048, micro_batch=1, hidden=4096, heads=32, layers=32, tp=1,
                             sequence_parallel=False, recompute="none"),
    "checkpoint_bytes": dict(params=70e9, include_gradients=False),
    "lost_work_seconds": dict(interruptions=466, checkpoint_interval_s=1800),
    "mtbf_seconds": dict(interruptions=466, window_s=4665600),
    "fleet_mtbf_seconds": dict(interruptions=419, window_s=4665600, observed_gpus=16384, gpus=1024),
    "optimal_checkpoint_interval": dict(checkpoint_cost_s=60, mtbf_s=10000, method="daly"),
    "effective_training_time": dict(window_s=4665600, interruptions=466, checkpoint_interval_s=1800),
    "lora_trainable_params": dict(d_model=4096, rank=16, modules=4, layers=32),
    "compute_optimal": dict(flops=5.76e23),
    "compute_multiple": dict(params=8e9, tokens=15e12),
    "chinchilla_optimal": dict(flops=5.76e23, fit="besiroglu2024"),
    "dataset_bytes": dict(tokens=15.6e12, bytes_per_token=4),
    "storage_footprint": dict(params=7e9, tokens_per_param=20, bytes_per_token=4, checkpoints_kept=5),
    "token_id_bytes": dict(vocab=50257),
    "weights_bytes": dict(params=405e9),
}

NUMBER_BAD = [0, -1, math.nan, math.inf, -math.inf, True, "8", None]
CHOICE_BAD = ["nope", "", 4, True, None, ["adam"]]
BAD = (
    [(fn, arg, v) for fn, kw in VALID.items() for arg, ok in kw.items()
     if isinstance(ok, (int, float)) and not isinstance(ok, bool) for v in NUMBER_BAD]
    + [(fn, arg, v) for fn, kw in VALID.items() for arg, ok in kw.items() if isinstance(ok, str) for v in CHOICE_BAD]
    + [(fn, arg, v) for fn, kw in VALID.items() for arg, ok in kw.items() if isinstance(ok, bool)
       for v in (0, 1, "yes", None)]
    + [("training_seconds", "mfu", 1.5), ("delivered_flops", "mfu", -0.1),
       ("zero_bytes_per_gpu", "stage", 4), ("zero_bytes_per_gpu", "stage", -1), ("zero_bytes_per_gpu", "stage", 2.0),
       ("zero_bytes_per_gpu", "gpus", 2.5), ("training_seconds", "gpus", 0.5)]
)
# Zero is valid for these (no interruptions, no checkpoints kept, ZeRO stage 0).
ZERO_OK = {("lost_work_seconds", "interruptions"), ("storage_footprint", "checkpoints_kept"),
           ("effective_training_time", "interruptions"), ("zero_bytes_per_gpu", "stage"), ("zero_breakdown", "stage")}


@pytest.mark.parametrize("fn, arg, value", [b for b in BAD if not (b[2] == 0 and b[:2] in ZERO_OK)])
def test_bad_input_raises_the_package_error_naming_the_argument(fn, arg, value):
    with pytest.raises(EstimatorError) as caught:
        getattr(estimators, fn)(**(VALID[fn] | {arg: value}))
    assert caught.value.argument == arg
    assert str(caught.value).startswith(f"{arg} = ")


@pytest.mark.parametrize("fn", VALID)
def test_valid_calls_return_finite_numbers(fn):
    result = getattr(estimators, fn)(**VALID[fn])
    values = result if isinstance(result, tuple) else getattr(result, "__dict__", {"v": result}).values()
    assert all(math.isfinite(v) for v in values if isinstance(v, (int, float)))


@settings(max_examples=200)
@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(allow_nan=True, allow_infinity=True))
def test_no_estimator_returns_nan_or_infinity(a, b):
    try:
        results = [estimators.training_flops(a, b), estimators.model_state_bytes(a),
                   estimators.dataset_bytes(a, b), estimators.checkpoint_bytes(a)]
    except EstimatorError:
        return
    assert all(math.isfinite(r) for r in results)


def test_overflow_is_an_error_not_infinity():
    with pytest.raises(EstimatorError, match="training_flops"):
        estimators.training_flops(1e300, 1e300)


def test_config_errors_name_the_field():
    with pytest.raises(EstimatorError, match="kv_heads"):
        estimators.param_count(32, 4096, 32, 5, 14336, 128256)  # 32 heads not divisible by 5
    with pytest.raises(EstimatorError, match="heads"):
        estimators.param_count(32, 4096, 30, 10, 14336, 128256)  # 4096 not divisible by 30
    with pytest.raises(EstimatorError, match="top_k"):
        estimators.MoeConfig(4, 64, 4, 4, 100, 0, 0, 32, 8, 0, 9)
