"""Both checkpoint modes on one clock of seconds: each mode's pauses add up save by save, every stretch
lasts what it lasts (to scale), and each is drawn where the mode puts it (a pause when the save is
due; an asynchronous write after the copy)."""

import pytest

import estimators
from estimators import EstimatorError
from estimators.checkpoint import CLOCK_SAVES, CLOCK_TRAINING_SHARE

INTERVAL = 1800.0


def stall(storage_bytes_per_s=2e12):
    # A 5.68 TB checkpoint over 16,384 GPUs, 2 TB/s of storage, 64 GB/s to host memory.
    return estimators.checkpoint_stall(5.68e12, 16384, 64e9, storage_bytes_per_s, 54 * 86400, INTERVAL)


@pytest.mark.parametrize("saves", CLOCK_SAVES)
def test_the_pauses_accumulate_save_by_save(saves):
    st = stall()
    clock = estimators.checkpoint_clock(st, INTERVAL, saves)
    assert clock.sync_paused_s == pytest.approx(saves * st.sync_s)
    assert clock.async_paused_s == pytest.approx(saves * st.async_s)
    for mode in ("sync", "async"):
        paused = [s for s in clock.segments if s.mode == mode and s.kind == "paused"]
        assert [s.save for s in paused] == list(range(1, saves + 1))
        # Each save due a little training into its own stretch of the clock.
        assert [s.start for s in paused] == pytest.approx(
            [k * clock.save_span_s + CLOCK_TRAINING_SHARE * (st.async_s + st.sync_s) for k in range(saves)])


def test_a_synchronous_write_is_the_pause_and_an_asynchronous_one_follows_it():
    clock = estimators.checkpoint_clock(stall(), INTERVAL, 2)
    by = {(s.mode, s.lane, s.kind, s.save): s for s in clock.segments}
    assert (by["sync", "storage", "writing", 1].start, by["sync", "storage", "writing", 1].end) == (
        by["sync", "gpus", "paused", 1].start, by["sync", "gpus", "paused", 1].end)
    assert by["async", "storage", "writing", 1].start == by["async", "gpus", "paused", 1].end


def test_every_stretch_lasts_its_seconds_so_the_pauses_compare_to_scale():
    st = stall()
    clock = estimators.checkpoint_clock(st, INTERVAL, 2)
    by = {(s.mode, s.lane, s.kind, s.save): s for s in clock.segments if s.kind != "training"}
    for mode, pause in (("sync", st.sync_s), ("async", st.async_s)):
        assert by[mode, "gpus", "paused", 2].end - by[mode, "gpus", "paused", 2].start == pytest.approx(pause)
        assert by[mode, "storage", "writing", 2].end - by[mode, "storage", "writing", 2].start == pytest.approx(st.sync_s)
    # Milliseconds of copying against seconds of writing: the ratio the picture shows.
    assert st.async_s / st.sync_s < 0.01
    assert clock.left_out_s == pytest.approx(INTERVAL - clock.save_span_s)


def test_each_lane_fills_its_saves_stretches_and_no_more():
    clock = estimators.checkpoint_clock(stall(1e9), INTERVAL, CLOCK_SAVES[-1])  # 5,680 s of writing a save
    assert clock.left_out_s == 0  # the write outlasts the interval: no training between saves to leave out
    for mode in ("sync", "async"):
        gpus = sorted((s.start, s.end) for s in clock.segments if s.mode == mode and s.lane == "gpus")
        assert gpus[0][0] == 0 and gpus[-1][1] == pytest.approx(CLOCK_SAVES[-1] * clock.save_span_s)
        assert all(a[1] == pytest.approx(b[0]) for a, b in zip(gpus, gpus[1:]))  # no gap, no overlap
    assert max(s.end for s in clock.segments) <= CLOCK_SAVES[-1] * clock.save_span_s * (1 + 1e-12)


def test_bad_clock_inputs_name_their_argument():
    for call, argument in ((lambda: estimators.checkpoint_clock(stall(), INTERVAL, 9), "saves"),
                           (lambda: estimators.checkpoint_clock(stall(), 0, 1), "checkpoint_interval_s"),
                           (lambda: estimators.checkpoint_clock("fast", INTERVAL, 1), "stall")):
        with pytest.raises(EstimatorError) as error:
            call()
        assert error.value.argument == argument
