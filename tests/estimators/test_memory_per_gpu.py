"""The memory bill of one GPU: ZeRO model state of Ψ/t parameters plus activations,
the fewest data-parallel GPUs that fit a budget, and the fit itself."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimators import (
    EstimatorError,
    memory_fit,
    min_data_parallel_gpus,
    training_memory_per_gpu,
    zero_breakdown,
)

PSI = 7.5e9  # the ZeRO paper's example model (figure 1)
V100 = 32e9  # the ZeRO paper's GPUs: V100 32 GB


def test_bill_is_zero_state_plus_activations():
    bill = training_memory_per_gpu(PSI, 64, 2, "adam", activations=5e9)
    state = zero_breakdown(PSI, 64, 2, "adam")
    assert (bill.weights, bill.gradients, bill.master, bill.momentum, bill.variance) == (
        state.weights,
        state.gradients,
        state.master,
        state.momentum,
        state.variance,
    )
    assert bill.activations == 5e9
    assert bill.total == state.total + 5e9


def test_tensor_parallel_splits_the_model_state():
    # t = 8 keeps Ψ/8 parameters' state per GPU: 16 × 7.5e9 / 8 = 15 GB at stage 0.
    assert training_memory_per_gpu(PSI, 1, 0, tp=8).total == 16 * PSI / 8


@pytest.mark.parametrize(
    "stage, gpus",
    [
        (0, None),  # 16Ψ = 120 GB never fits 32 GB without sharding
        (1, 45),  # 4Ψ + 12Ψ/N ≤ 32e9  ->  N ≥ 90e9 / 2e9 = 45
        (2, 7),  # 2Ψ + 14Ψ/N ≤ 32e9  ->  N ≥ 105e9 / 17e9 = 6.2
        (3, 4),  # 16Ψ/N ≤ 32e9       ->  N ≥ 120e9 / 32e9 = 3.75
    ],
)
def test_fewest_gpus_for_the_zero_paper_model_on_32_gb(stage, gpus):
    assert min_data_parallel_gpus(PSI, stage, V100) == gpus


def test_no_gpu_count_fits_when_activations_alone_fill_the_gpu():
    assert min_data_parallel_gpus(PSI, 3, V100, activations=V100) is None


def test_stage_0_fits_on_one_gpu_or_none():
    assert min_data_parallel_gpus(1e9, 0, 80e9) == 1  # 16 GB
    assert min_data_parallel_gpus(1e9, 0, 80e9, activations=70e9) is None  # 86 GB


@given(
    st.floats(min_value=1e8, max_value=1e12),
    st.sampled_from([1, 2, 3]),
    st.sampled_from(["adam", "adam_fp32_grads", "adam8bit", "sgd_momentum", "sgd"]),
    st.floats(min_value=0, max_value=60e9),
    st.sampled_from([1, 2, 8]),
)
def test_fewest_gpus_is_the_first_count_that_fits(params, stage, optimizer, activations, tp):
    budget = 80e9
    n = min_data_parallel_gpus(params, stage, budget, optimizer, activations, tp)
    if n is None:
        # Even a huge count leaves the replicated part and the activations over the budget.
        assert training_memory_per_gpu(params, 10**15, stage, optimizer, activations, tp).total > budget * (1 - 1e-9)
    else:
        assert memory_fit(training_memory_per_gpu(params, n, stage, optimizer, activations, tp).total, budget).fits
        if n > 1:
            assert not memory_fit(training_memory_per_gpu(params, n - 1, stage, optimizer, activations, tp).total, budget).fits


def test_fit_ratio_and_spare():
    fit = memory_fit(120e9, 80e9)
    assert (fit.ratio, fit.spare, fit.fits) == (1.5, -40e9, False)
    assert memory_fit(80e9, 80e9).fits


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: training_memory_per_gpu(PSI, 8, 1, activations=-1), "activations"),
        (lambda: training_memory_per_gpu(PSI, 8, 1, tp=0), "tp"),
        (lambda: training_memory_per_gpu(PSI, 0, 1), "gpus"),
        (lambda: min_data_parallel_gpus(PSI, 4, V100), "stage"),
        (lambda: min_data_parallel_gpus(PSI, 3, 0), "budget_bytes"),
        (lambda: memory_fit(float("nan"), V100), "used_bytes"),
    ],
)
def test_bad_input_names_the_argument(call, argument):
    with pytest.raises(EstimatorError) as error:
        call()
    assert error.value.argument == argument
