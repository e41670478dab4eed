"""Both checkpoint modes on one clock: each mode's pauses add up save by save, and every stretch is
drawn where the mode puts it (a pause at the end of its interval; an asynchronous write after it)."""

import pytest

import estimators
from estimators import EstimatorError
from estimators.checkpoint import CLOCK_SAVES, DRAWN_MIN_SHARE

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
        assert [s.end for s in paused] == [float(k) for k in range(1, saves + 1)]  # due at each interval's end


def test_a_synchronous_write_is_the_pause_and_an_asynchronous_one_follows_it():
    clock = estimators.checkpoint_clock(stall(), INTERVAL, 2)
    by = {(s.mode, s.lane, s.kind, s.save): s for s in clock.segments}
    assert (by["sync", "storage", "writing", 1].start, by["sync", "storage", "writing", 1].end) == (
        by["sync", "gpus", "paused", 1].start, by["sync", "gpus", "paused", 1].end)
    assert by["async", "storage", "writing", 1].start == by["async", "gpus", "paused", 1].end
    # Milliseconds of copying in half an hour: drawn at the narrowest share (the picture says so).
    pause = by["async", "gpus", "paused", 1]
    assert pause.end - pause.start == pytest.approx(DRAWN_MIN_SHARE)


def test_nothing_is_drawn_past_the_clocks_last_stop():
    clock = estimators.checkpoint_clock(stall(1e9), INTERVAL, CLOCK_SAVES[-1])  # 5,680 s of writing a save
    assert max(s.end for s in clock.segments) == CLOCK_SAVES[-1]
    assert all(s.end - s.start <= 1 for s in clock.segments)


def test_bad_clock_inputs_name_their_argument():
    for call, argument in ((lambda: estimators.checkpoint_clock(stall(), INTERVAL, 9), "saves"),
                           (lambda: estimators.checkpoint_clock(stall(), 0, 1), "checkpoint_interval_s"),
                           (lambda: estimators.checkpoint_clock("fast", INTERVAL, 1), "stall")):
        with pytest.raises(EstimatorError) as error:
            call()
        assert error.value.argument == argument
