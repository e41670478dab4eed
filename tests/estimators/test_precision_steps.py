"""A published run timed by the step model in BF16 and in FP8 (the precision page's comparison): only the matrix
multiplies change, so the step's speed-up is the step model's own terms recombined and falls short of the peaks' ratio.
"""

import pytest

from estimators import EstimatorError
from estimators.step_runs import measured_runs, precision_steps, unseen_runs
from estimators.step_time import gpu_preset, shape_of, step_seconds

RUNS = ("nemo-llama3-70b", "nemo-llama3-8b")  # the precision page's two layouts: Llama 3 on H100s, NeMo 24.07's table


@pytest.mark.parametrize("key", RUNS)
def test_each_step_is_the_step_models_at_that_precision(key):
    run = unseen_runs("NeMo 24.07")[key]
    got = precision_steps(key)
    for precision, step in (("bf16", got.bf16), ("fp8", got.fp8)):
        chip = gpu_preset(run.gpu, run.scale_up, run.scale_out, precision)
        assert step == step_seconds(shape_of(run.config), run.setup, chip, run.seq_len, run.global_batch)
    assert got.speedup == pytest.approx(got.bf16.step_seconds / got.fp8.step_seconds)
    assert got.matmul_share == pytest.approx(got.bf16.gemm_seconds / got.bf16.step_seconds)


@pytest.mark.parametrize("key", RUNS)
def test_only_the_matrix_multiplies_speed_up(key):
    got = precision_steps(key)
    for term in ("attention_seconds", "memory_bound_seconds", "tp_seconds", "cp_seconds", "pp_seconds",
                 "optimizer_seconds"):
        assert getattr(got.fp8, term) == pytest.approx(getattr(got.bf16, term), rel=1e-12), term
    assert got.fp8.gemm_seconds < got.bf16.gemm_seconds
    # Amdahl: the step gains less than its matrix multiplies, and they less than the peaks' ratio scaled by the measured
    # rates' shares, for the quantisation of their inputs and the output layer kept in BF16.
    assert 1 < got.speedup < got.matmul_speedup < got.peak_ratio * got.fp8_rate_share / got.bf16_rate_share
    assert got.fp8_rate_share < got.bf16_rate_share


def test_a_bf16_run_is_timed_in_fp8_too():
    key = next(k for k, r in measured_runs().items() if r.precision == "bf16" and r.gpu == "h100-sxm")
    assert precision_steps(key).speedup > 1


def test_an_unknown_run_is_named():
    with pytest.raises(EstimatorError, match="key"):
        precision_steps("no-such-run")
