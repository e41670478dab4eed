"""Checkpoints and failures: bytes on disk, work lost, interval, effective time.

What an exact resume of mixed-precision Adam needs is the FP32 master weights
and both FP32 moments, 4 + 4 + 4 = 12 bytes per parameter, plus the step
count, the random-number generators' states and the data loader's position
(a few bytes, not per parameter). The BF16 weights are a cast of the master
copy, and the gradients are recomputed on the next step.
What Megatron-LM and DeepSpeed write is 14 bytes per parameter: a model file
with the BF16 weights and an optimizer file with the master weights and the
moments, 2 + 4 + 4 + 4. Saving the gradients as well (16 B/param, as one of
the seed articles counts) only costs space. Shipped weights are 2 B/param.

Work lost: a failure lands, on average, halfway through a checkpoint
interval τ, so n interruptions throw away n·τ/2 of compute (restart and the
writes themselves not counted). Llama 3 (Llama Team 2024, §3.3.4) logged 466
interruptions in 54 days of 405B pretraining.

Optimal interval for a checkpoint that takes δ seconds to write and a mean
time between failures M: Young 1974 gives τ = √(2δM); Daly 2006 ("A higher
order estimate of the optimum checkpoint interval", eq. 37) refines it to

    τ = √(2δM)·[1 + ⅓·√(δ/2M) + (δ/2M)/9] − δ   for δ < 2M,   else τ = M.
"""

import math
from dataclasses import dataclass

from . import units
from .memory import bytes_per_param
from .errors import EstimatorError
from .provenance import quantity
from .validate import finite_result, flag, non_negative, non_negative_int, one_of, positive, positive_int

SHIPPED_WEIGHT_BYTES = 2  # BF16 weights, what a release ships
# Bytes a weight takes in a released checkpoint, by the precision its publisher released it in (a
# model preset's released_precision). FP8 weights ship with a scale per 128×128 block, as DeepSeek-V3's
# do: 4 bytes in 16,384 weights, left out.
RELEASED_WEIGHT_BYTES = {"bf16": SHIPPED_WEIGHT_BYTES, "fp8": 1}
# An interval at a bound of its range, computed back from a rounded or divided figure, lands a
# rounding error outside it: Daly's optimum at δ ≥ 2M is M itself.
_ROUNDING = 1e-12
INTERVAL_METHODS = ("young", "daly")
# How a save pauses the GPUs, as a reader picks it.
CHECKPOINT_MODES = {
    "sync": "Synchronous: the GPUs wait for storage",
    "async": "Asynchronous: the GPUs wait for host memory",
}


def resume_bytes_per_param(optimizer: str = "adam") -> float:
    """The least an exact resume needs: master + momentum + variance, 4 + 4 + 4 = 12 B for Adam.

    The 16-bit weights are recast from the FP32 master copy on load; the step,
    RNG and data-loader state the resume also needs do not grow with N.
    """
    per = bytes_per_param(optimizer)
    return per.master + per.momentum + per.variance


def checkpoint_bytes_per_param(include_gradients: bool = False, optimizer: str = "adam") -> float:
    """What Megatron-LM and DeepSpeed write: weights + master + momentum + variance (14 B for Adam).

    + gradients (16 B) if asked, as one seed article counts them.
    """
    per = bytes_per_param(optimizer)
    gradients = per.gradients if flag("include_gradients", include_gradients) else 0
    return per.weights + gradients + per.master + per.momentum + per.variance


def checkpoint_bytes(params: float, include_gradients: bool = False, optimizer: str = "adam") -> float:
    """Bytes of one checkpoint as frameworks write it: 14·N for mixed-precision Adam, 16·N with gradients."""
    per_param = checkpoint_bytes_per_param(include_gradients, optimizer)
    return finite_result("checkpoint_bytes", positive("params", params) * per_param)


def weights_bytes(params: float, bytes_per_param: float = SHIPPED_WEIGHT_BYTES) -> float:
    """Bytes of the weights alone: 2·N in BF16."""
    return finite_result("weights_bytes", positive("params", params) * positive("bytes_per_param", bytes_per_param))


def lost_work_seconds(interruptions: int, checkpoint_interval_s: float) -> float:
    """n·τ/2: each interruption throws away half a checkpoint interval on average."""
    n = non_negative_int("interruptions", interruptions)
    return finite_result("lost_work_seconds", n * positive("checkpoint_interval_s", checkpoint_interval_s) / 2)


def mtbf_seconds(interruptions: int, window_s: float) -> float:
    """Mean time between failures: window / count.

    Count the failures, the unexpected interruptions: Llama 3's 54 days / 419
    ≈ 3.1 h (a planned stop is no failure; all 466 give one every 2.8 h).
    """
    return positive("window_s", window_s) / positive_int("interruptions", interruptions)


def fleet_mtbf_seconds(interruptions: int, window_s: float, observed_gpus: int, gpus: int) -> float:
    """Mean time between failures of a job on a number of GPUs, from the log of a job on another number.

    Each GPU, with its share of hosts, cables and switches, is taken to fail on
    its own at a steady rate, so a job's failures come in proportion to its GPU
    count: M(n) = window × n_observed / (interruptions × n). Llama 3's 419
    unexpected stops in 54 days on 16,384 H100s give ≈ 3.1 h; 1,024 of the same
    GPUs would see one about every 2.1 days.
    """
    observed = positive_int("observed_gpus", observed_gpus)
    return mtbf_seconds(interruptions, window_s) * observed / positive_int("gpus", gpus)


def optimal_checkpoint_interval(checkpoint_cost_s: float, mtbf_s: float, method: str = "daly") -> float:
    """Seconds between checkpoints that minimise lost plus writing time (Young 1974 or Daly 2006)."""
    delta = positive("checkpoint_cost_s", checkpoint_cost_s)
    m = positive("mtbf_s", mtbf_s)
    young = math.sqrt(2 * delta * m)
    if one_of("method", method, INTERVAL_METHODS) == "young":
        return young
    if delta >= 2 * m:
        return m
    x = delta / (2 * m)
    return young * (1 + math.sqrt(x) / 3 + x / 9) - delta


@dataclass(frozen=True)
class EffectiveTime:
    window_s: float = quantity("wall-clock of the run", "duration")
    lost_work_s: float = quantity("n·τ/2, recomputed after failures", "duration")
    restart_s: float = quantity("n × time to restart", "duration")
    checkpoint_stall_s: float = quantity("(window / τ) × seconds the GPUs stall per write", "duration")
    effective_s: float = quantity("what is left for training", "duration")
    effective_share: float = quantity("the time left for training ÷ the window", "percent")


def effective_training_time(
    window_s: float,
    interruptions: int,
    checkpoint_interval_s: float,
    restart_s: float = 0,
    checkpoint_stall_s: float = 0,
) -> EffectiveTime:
    """Wall-clock left for training after lost work, restarts and checkpoint stalls.

    Llama 3's 54 days with 466 interruptions and 30-minute checkpoints lose
    ≈ 117 h (9.0%), leaving ≈ 91% before restarts: the paper reports > 90%.
    """
    window = positive("window_s", window_s)
    lost = lost_work_seconds(interruptions, checkpoint_interval_s)
    restarts = interruptions * non_negative("restart_s", restart_s)
    stalls = window / checkpoint_interval_s * non_negative("checkpoint_stall_s", checkpoint_stall_s)
    effective = window - lost - restarts - stalls
    if effective <= 0:
        raise EstimatorError(
            "checkpoint_interval_s", checkpoint_interval_s, "an interval whose lost work, restarts and stalls fit in the window"
        )
    return EffectiveTime(window, lost, restarts, stalls, effective_s=effective, effective_share=effective / window)


@dataclass(frozen=True)
class CheckpointStall:
    """How long the GPUs stop for checkpoints, written synchronously or asynchronously."""

    shard_bytes: float = quantity("what each GPU saves: checkpoint bytes / GPUs", "bytes")
    sync_s: float = quantity("per checkpoint: the whole checkpoint through the storage's aggregate write bandwidth", "duration")
    async_s: float = quantity("per checkpoint: one shard copied to host memory; the write goes on in the background", "duration")
    checkpoints: int = quantity("checkpoints written in the window: ⌊window / interval⌋", "integer")
    sync_run_s: float = quantity("per window, synchronous", "duration")
    async_run_s: float = quantity("per window, asynchronous", "duration")
    background_fits: bool  # the background write ends before the next checkpoint is due
    sync_run_share: float = quantity("the synchronous pauses ÷ the window", "percent")
    async_run_share: float = quantity("the asynchronous pauses ÷ the window", "percent")


def checkpoint_stall(checkpoint_bytes: float, gpus: int, host_copy_bytes_per_s: float,
                     storage_write_bytes_per_s: float, window_s: float, checkpoint_interval_s: float) -> CheckpointStall:
    """Stall per checkpoint and per window, synchronous against asynchronous.

    Every GPU saves its shard at once. Synchronously the GPUs wait until the
    whole checkpoint has reached storage: bytes / the storage's aggregate write
    bandwidth (the per-GPU links are far faster in sum). Asynchronously (as
    PyTorch Distributed Checkpoint's async_save and Megatron-LM's async
    checkpointing do) they wait only while their shard is copied to host
    memory: shard / the GPU-to-host bandwidth; the write to storage then
    overlaps training. When that write outlasts the interval, the next
    checkpoint waits for it, and asynchronous saving stalls as the synchronous
    kind does. Per window, each mode's stall is checkpoints × stall per
    checkpoint, and that over the window is its share.
    """
    total = positive("checkpoint_bytes", checkpoint_bytes)
    shard = total / positive_int("gpus", gpus)
    sync = total / positive("storage_write_bytes_per_s", storage_write_bytes_per_s)
    copy = shard / positive("host_copy_bytes_per_s", host_copy_bytes_per_s)
    interval = positive("checkpoint_interval_s", checkpoint_interval_s)
    # A tiny interval over a long window is more checkpoints than a float can count: an error, not an overflow.
    window = positive("window_s", window_s)
    count = int(finite_result("checkpoint_interval_s", window // interval))
    fits = sync <= interval
    per_async = copy if fits else copy + sync - interval
    sync_run, async_run = count * sync, count * per_async
    return CheckpointStall(shard, sync, per_async, count, sync_run_s=sync_run, async_run_s=async_run,
                           background_fits=fits, sync_run_share=sync_run / window, async_run_share=async_run / window)


@dataclass(frozen=True)
class Interruption:
    at_s: float = quantity("when it strikes, from the window's start", "duration")
    lost_s: float = quantity("work thrown away: back to the last checkpoint", "duration")


def _strike_s(i: int, window_s: float, interruptions: int) -> float:
    """When the i-th of n evenly spread interruptions strikes: the middle of its n-th of the window."""
    return (i + 0.5) * window_s / interruptions


def interruption_timeline(window_s: float, interruptions: int, checkpoint_interval_s: float,
                          until_s: float | None = None) -> tuple:
    """The window's interruptions spread evenly, each throwing away the average half interval.

    A picture of lost_work_seconds, not a record of when failures struck: the
    sum of lost_s is n·τ/2 exactly. `until_s` keeps only those up to that time
    (the first day of a long window, say).
    """
    window = positive("window_s", window_s)
    n = non_negative_int("interruptions", interruptions)
    lost = positive("checkpoint_interval_s", checkpoint_interval_s) / 2
    end = window if until_s is None else positive("until_s", until_s)
    events = []
    for i in range(n):
        at = _strike_s(i, window, n)
        if at > end:
            break
        events.append(Interruption(at, lost))
    return tuple(events)


@dataclass(frozen=True)
class IntervalRange:
    shortest_s: float = quantity("(W − √(W² − 2nWδ))/n: more often, saves and lost work overfill the window", "duration")
    longest_s: float = quantity("W/n, the mean time between the interruptions", "duration")


def checkpoint_interval_range(window_s: float, interruptions: int, checkpoint_stall_s: float) -> IntervalRange:
    """The intervals τ at which n·τ/2 + (W/τ)·δ holds: from (W − √(W² − 2nWδ))/n to W/n.

    n·τ/2 takes each interruption to strike inside an interval of its own. Past the mean
    time between interruptions, W/n, an interval holds more than one on average, and n·τ/2
    counts work that was never done (at τ = 2W/n, the whole window). Below the shortest
    interval the saves and the lost work add up to more than the window. A pause above
    half the mean time between interruptions, δ > W/2n, leaves no interval. With no
    interruption every interval from δ to the window holds.
    """
    window = positive("window_s", window_s)
    n = non_negative_int("interruptions", interruptions)
    delta = non_negative("checkpoint_stall_s", checkpoint_stall_s)
    if n == 0:
        return IntervalRange(delta, window)
    if 2 * n * delta > window:
        raise EstimatorError("checkpoint_stall_s", checkpoint_stall_s, (
            f"at most half the mean time between interruptions, W/2n = {units.duration(window / (2 * n))}: "
            "with longer saves no interval keeps the saves and the lost work inside the window"))
    # The smaller root of n·τ²/2 − W·τ + W·δ = 0, written so that a tiny δ does not cancel to 0.
    shortest = 2 * window * delta / (window + math.sqrt(window * window - 2 * n * window * delta))
    return IntervalRange(shortest, window / n)


def _shortest_share(r: float) -> float:
    """checkpoint_interval_range's shortest interval over M at a pause δ = r·M: 2r / (1 + √(1 − 2r))."""
    return 2 * r / (1 + math.sqrt(1 - 2 * r))


def _daly_share(r: float) -> float:
    """Daly's interval over M at a pause δ = r·M (r < 1/2): √(2r)·(1 + √(r/2)/3 + r/18) − r."""
    return math.sqrt(2 * r) * (1 + math.sqrt(r / 2) / 3 + r / 18) - r


def _daly_in_range_share() -> float:
    """The pause, as a share of M, up to which Daly's interval is no shorter than the shortest the
    lost-work count holds for: both are functions of δ/M alone, so this is one constant (≈ 0.44).
    Found by bisection, where Daly's interval falls from above the shortest to below it."""
    low, high = 0.0, 0.5
    for _ in range(60):  # halves a width of 1/2 to below a double's resolution
        middle = (low + high) / 2
        low, high = (middle, high) if _daly_share(middle) >= _shortest_share(middle) else (low, middle)
    return low


DALY_IN_RANGE_SHARE = _daly_in_range_share()


def longest_checkpoint_stall_s(window_s: float, interruptions: int) -> float:
    """The longest pause per save at which Daly's interval still keeps lost work and saves inside
    the window: c·W/n, where c ≈ 0.44 solves Daly's τ = (W − √(W² − 2nWδ))/n at δ = c·W/n.

    Past it even the best interval loses nearly all of the window, beyond what n·τ/2 can count.
    """
    return DALY_IN_RANGE_SHARE * mtbf_seconds(interruptions, window_s)


@dataclass(frozen=True)
class CheckpointOverhead:
    lost_s: float = quantity("n·τ/2, work thrown away by the interruptions", "duration")
    saving_s: float = quantity("(W/τ)·δ, the GPUs paused for saves", "duration")
    total_s: float = quantity("what Young's and Daly's interval minimises", "duration")
    lost_share: float = quantity("(n·τ/2) / W, a fraction of the window", "percent")
    saving_share: float = quantity("((W/τ)·δ) / W = δ/τ, a fraction of the window", "percent")


def checkpoint_overhead(window_s: float, interruptions: int, checkpoint_interval_s: float,
                        checkpoint_stall_s: float) -> CheckpointOverhead:
    """Time a window loses to interruptions and to saves at interval τ: n·τ/2 + (W/τ)·δ.

    Each part's share of the window W: (n·τ/2) / W and ((W/τ)·δ) / W = δ/τ.

    It holds for the intervals checkpoint_interval_range gives, at most the mean time
    between interruptions, where neither share nor their sum exceeds the window; any
    other interval is refused with that range.
    """
    window = positive("window_s", window_s)
    lost = lost_work_seconds(interruptions, checkpoint_interval_s)
    valid = checkpoint_interval_range(window, interruptions, checkpoint_stall_s)
    tau = checkpoint_interval_s
    if not valid.shortest_s * (1 - _ROUNDING) <= tau <= valid.longest_s * (1 + _ROUNDING):
        raise EstimatorError("checkpoint_interval_s", checkpoint_interval_s, (
            f"from {units.duration(valid.shortest_s)} to {units.duration(valid.longest_s)}, the mean time between "
            "interruptions: past it an interval holds more than one, and n·τ/2 counts work never done"))
    saving = window / checkpoint_interval_s * non_negative("checkpoint_stall_s", checkpoint_stall_s)
    return CheckpointOverhead(lost, saving, finite_result("checkpoint_overhead", lost + saving), lost / window,
                              saving_share=saving / window)


# The stops of a clock of saves, as a picture of both modes runs it: four saves show the pattern
# repeating and leave each save wide enough to read on a phone.
CLOCK_SAVES = (1, 2, 3, 4)
# How much training each save's stretch of the clock shows before the save is due and after the last
# write ends, as a share of that save's busy span (its pause and write): enough to see the GPUs train
# either side, little enough to leave the pauses most of the width.
CLOCK_TRAINING_SHARE = 0.1
CLOCK_LANES = ("gpus", "storage")
CLOCK_KINDS = ("training", "paused", "writing")


@dataclass(frozen=True)
class ClockSegment:
    """One stretch of one lane of the clock: what the GPUs or the storage of one mode are doing."""

    mode: str  # a key of CHECKPOINT_MODES
    lane: str  # "gpus" or "storage"
    kind: str  # "training", "paused" or "writing"
    save: int = quantity("the save it belongs to, counted from 1", "integer")
    start: float = quantity("where it starts, in seconds on the clock (the training between saves left out)", "duration")
    end: float = quantity("where it ends, in seconds on the clock (the training between saves left out)", "duration")


@dataclass(frozen=True)
class CheckpointClock:
    """Both modes on one clock of seconds, save after save, the training between saves left out."""

    saves: int = quantity("saves the clock has run through", "integer")
    segments: tuple  # ClockSegment, mode by mode, lane by lane, save by save
    sync_paused_s: float = quantity("the synchronous GPUs' pauses so far: saves × one synchronous pause", "duration")
    async_paused_s: float = quantity("the asynchronous GPUs' pauses so far: saves × one asynchronous pause", "duration")
    save_span_s: float = quantity("each save's stretch of the clock: its busy span and the training either side", "duration")
    left_out_s: float = quantity("the training left out between two saves' stretches: the interval less the stretch", "duration")


def checkpoint_clock(stall: CheckpointStall, checkpoint_interval_s: float, saves: int) -> CheckpointClock:
    """Both modes on one clock of seconds: after k saves each mode's GPUs have paused k × their pause per save.

    Every stretch is drawn for its true duration, so the two modes' pauses compare to scale. Each
    save gets a stretch of the clock: a little training before it is due, the pause (synchronously
    the write itself; asynchronously the copy to host memory, the write to storage following it
    behind training), and a little training after the last write ends. The rest of each interval,
    training alone, is left out between the stretches (`left_out_s`, none when the write outlasts it).
    """
    if not isinstance(stall, CheckpointStall):
        raise EstimatorError("stall", stall, "a CheckpointStall (checkpoint_stall's result)")
    interval = positive("checkpoint_interval_s", checkpoint_interval_s)
    saves = one_of("saves", saves, CLOCK_SAVES)
    busy = max(stall.sync_s, stall.async_s + stall.sync_s if stall.background_fits else stall.async_s)
    lead = CLOCK_TRAINING_SHARE * busy
    span = busy + 2 * lead
    segments = []
    for mode, pause in (("sync", stall.sync_s), ("async", stall.async_s)):
        for i in range(saves):
            save, due = i + 1, i * span + lead
            segments.append(ClockSegment(mode, "gpus", "training", save, start=i * span, end=due))
            segments.append(ClockSegment(mode, "gpus", "paused", save, start=due, end=due + pause))
            segments.append(ClockSegment(mode, "gpus", "training", save, start=due + pause, end=(i + 1) * span))
            # Synchronously the write is the pause; asynchronously it follows the copy, as long as a
            # synchronous write, or is the rest of the pause when it outlasts the interval.
            write_start = due if mode == "sync" or not stall.background_fits else due + pause
            segments.append(ClockSegment(mode, "storage", "writing", save, start=write_start,
                                         end=write_start + stall.sync_s))
    return CheckpointClock(saves, tuple(segments), saves * stall.sync_s, saves * stall.async_s, save_span_s=span,
                           left_out_s=max(interval - span, 0.0))
