"""The step model on published tables it was neither built nor fitted on.

step_runs.toml's held-out runs (`unseen`) come from three published tables
found after the model was built: NeMo 24.07's FP8 pre-training table on DGX
H100 (3D and 4D layouts), Megatron-Bridge's DGX-H100 table (3D and 4D, and an
expert-parallel run) and torchtitan's 2024 performance table (FSDP on A100,
FSDP × TP on H100). Each table is held to the validation's targets: a
geometric mean of predicted / measured within [0.95, 1.05], at least 85% of
its runs within ±15%, none outside ±25%; torchtitan's FSDP-only runs also on
their own. A table that misses them is a strict expected failure whose reason
gives the measured numbers and the mechanism found off, so that the test fails
the day the model meets them and the mark comes off.
"""

import pytest

from estimators import EstimatorError
from estimators.step_runs import fsdp_only, measured_runs, predict_run, unseen_runs, unseen_tables, validation_summary

MISSED = {}  # (table, FSDP-only or None) → why it misses the targets, with its numbers


def _case(table, fsdp):
    marks = [pytest.mark.xfail(strict=True, reason=MISSED[table, fsdp])] if (table, fsdp) in MISSED else []
    return pytest.param(table, fsdp, marks=marks, id=f"{table}{' FSDP-only' if fsdp else ''}")


@pytest.mark.parametrize("table,fsdp", [_case(t, None) for t in unseen_tables()] + [_case("torchtitan 2024", True)])
def test_held_out_table_meets_the_validation_targets(table, fsdp):
    summary = validation_summary(fsdp=fsdp, unseen=table)
    ratios = ", ".join(f"{key} {predict_run(key).ratio:.3f}" for key, run in unseen_runs(table).items()
                       if fsdp is None or fsdp_only(run) == fsdp)
    assert 0.95 <= summary.geometric_mean <= 1.05, f"geometric mean {summary.geometric_mean:.3f}: {ratios}"
    assert summary.within_band >= 0.85, f"{summary.within_band:.0%} within ±15%: {ratios}"
    assert summary.worst <= 0.25, f"worst {summary.worst:.1%}: {ratios}"


def test_held_out_runs_fit_nothing_and_stay_out_of_the_validation():
    held = {key: run for table in unseen_tables() for key, run in unseen_runs(table).items()}
    assert len(held) >= 20 and not set(held) & set(measured_runs())
    assert not any(run.fit for run in held.values())
    for key, run in held.items():
        assert "table" in run.source, key


def test_held_out_tables_are_an_fsdp_table_and_3d_and_4d_tables_on_h100_in_fp8():
    fsdp = [r for r in unseen_runs("torchtitan 2024").values() if fsdp_only(r)]
    assert len(fsdp) >= 5 and {r.setup.framework for r in fsdp} == {"fsdp_eager"}
    layered = [r for t in ("NeMo 24.07", "Megatron-Bridge") for r in unseen_runs(t).values()]
    assert all(r.gpu == "h100-sxm" and r.precision == "fp8" for r in layered)
    assert any(r.setup.tp > 1 and r.setup.pp > 1 and r.setup.cp > 1 for r in layered)  # 4D
    assert any(r.setup.tp > 1 and r.setup.pp > 1 and r.setup.cp == 1 for r in layered)  # 3D


def test_an_unknown_held_out_table_is_refused():
    with pytest.raises(EstimatorError) as error:
        unseen_runs("MLPerf")
    assert error.value.argument == "table"
