"""The checkpoint_modes widget and its prose: the pauses are estimators.checkpoint_stall's, from the Llama 3 paper's storage figures."""

import pytest

import estimators
from estimators import units
from pyodide_widgets.widgets import checkpoint_modes
from tests.build.test_build import page_text

PRESETS = estimators.load_presets()
RUN = PRESETS.run("llama3-405b")
FAILURES = PRESETS.failure("llama3-405b")


def stall() -> estimators.CheckpointStall:
    # 14 B/param × 405.85B = 5.68 TB, over 16,384 GPUs; Tectonic's sustained 2 TB/s; PCIe Gen5's 64 GB/s one way.
    return estimators.checkpoint_stall(
        estimators.checkpoint_bytes(PRESETS.model(RUN.model).params), RUN.gpus,
        PRESETS.interconnect("pcie5-h100").bandwidth_bytes_per_s, PRESETS.storage_system("llama3-tectonic").write_bytes_per_s,
        FAILURES.window_seconds, FAILURES.checkpoint_interval_seconds)


def test_a_synchronous_save_is_the_checkpoint_over_the_storages_write_rate():
    st = stall()
    assert st.sync_s == pytest.approx(14 * PRESETS.model(RUN.model).params / 2e12)
    assert st.async_s == pytest.approx(st.shard_bytes / 64e9)
    assert st.checkpoints == 54 * 48  # 54 days of 30-minute intervals
    assert st.background_fits


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_checkpoint_modes_widgets_figures_are_the_estimators(mode):
    out = checkpoint_modes.update(checkpoint_modes.presets()[mode]["state"])["outputs"]
    st = stall()
    assert out["pause"] == units.duration(st.sync_s if mode == "sync" else st.async_s)
    assert out["run_pause"] == units.duration(st.sync_run_s if mode == "sync" else st.async_run_s)


def test_the_prose_states_both_pauses(built_site):
    text = " ".join(page_text(built_site, "training").split())
    st = stall()
    assert f"stops the run for {units.duration(st.sync_s)}" in text
    assert f"{units.duration(st.sync_run_s)} of stopped GPUs against {units.duration(st.async_run_s)}" in text


def test_a_background_write_longer_than_the_interval_stalls_the_next_save():
    st = estimators.checkpoint_stall(10e12, 1000, 64e9, 1e9, 86400, 600)  # 10,000 s of writing every 600 s
    assert not st.background_fits and st.async_s == pytest.approx(10e12 / 1000 / 64e9 + 10e12 / 1e9 - 600)
