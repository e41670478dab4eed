"""The step model's fitted constants are the least of their fit on the runs they were fitted on.

The fit is a grid search minimising Σ log²(predicted / measured) over the runs
step_runs.toml marks `fit = true` (estimators/step_time.py, FITTED): the
Megatron-LM ones for the four shared constants, the FSDP ones for the FSDP
compute share, the others held fixed. Here each stored constant, moved one
grid step (FIT_STEPS) either way, must not lower its runs' error: constants
left behind by a change to the model fail, without running the whole grid.
"""

import math
from contextlib import contextmanager

import pytest

from estimators import step_time
from estimators.step_runs import measured_runs, predict_run
from estimators.step_time import FIT_STEPS, FITTED

RUNS = measured_runs()
# Each constant and the runs it was fitted on: the FSDP share on the FSDP trainers' runs, the rest on Megatron-LM's.
FITTED_ON = {name: tuple(k for k, r in RUNS.items() if r.fit and (r.setup.framework == "megatron")
                         == (name != "fsdp_compute_share")) for name in FITTED}


@contextmanager
def _constants(**changed):
    saved = dict(FITTED)
    FITTED.update(changed)
    _forget()
    try:
        yield
    finally:
        FITTED.update(saved)
        _forget()


def _forget():
    # The step model caches what it derives from the constants (the tiles' rates, GEMM times, a block's terms).
    for value in vars(step_time).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()


def _error(keys: tuple, **changed) -> float:
    with _constants(**changed):
        return sum(math.log(predict_run(key).ratio) ** 2 for key in keys)


def test_every_fitted_constant_has_a_grid_step_and_runs():
    assert set(FIT_STEPS) == set(FITTED)
    assert len(FITTED_ON["gemm_fill_k"]) == 7 and len(FITTED_ON["fsdp_compute_share"]) == 3


@pytest.mark.parametrize("name", list(FITTED))
def test_a_grid_step_either_way_does_not_lower_the_fit_error(name):
    keys = FITTED_ON[name]
    stored = _error(keys)
    for moved in (FITTED[name] - FIT_STEPS[name], FITTED[name] + FIT_STEPS[name]):
        error = _error(keys, **{name: moved})
        assert error >= stored, f"{name} = {moved:g} fits its runs better: Σ log² {error:.5f} < {stored:.5f}"
