"""Hardware throughput and ideal wall-clock time.

Delivered throughput = GPUs × dense peak FLOP/s × MFU, where MFU (model FLOPs
utilisation, PaLM, Chowdhery et al. 2022, appendix B) is the share of the peak
that goes into the model's 6ND arithmetic. Ideal wall-clock = C / delivered:
no failures, restarts or evaluation pauses.

Datasheets headline a second, larger peak "with sparsity": NVIDIA's 2:4
structured sparsity (Mishra et al. 2021, "Accelerating Sparse Deep Neural
Networks") lets the tensor cores skip two of every four weights when they are
zero, doubling the rate. Training runs are dense, so the site uses the dense
peak; sparse_peak_flops gives the headline figure it stands beside.
"""

from .units import SECONDS_PER_HOUR
from .validate import finite_result, fraction, positive, positive_int

# 2:4 structured sparsity: two of every four weights are zero and skipped, so 4/2 = 2× the dense rate.
SPARSITY_SPEEDUP = 4 / 2


def sparse_peak_flops(dense_peak_flops: float) -> float:
    """The datasheet's "with sparsity" peak: 2 × the dense peak (2:4 structured sparsity)."""
    return finite_result("sparse_peak_flops", SPARSITY_SPEEDUP * positive("dense_peak_flops", dense_peak_flops))


def fleet_peak_flops(gpus: int, peak_flops_per_gpu: float) -> float:
    """Peak FLOP/s of the whole fleet: GPUs × dense peak per GPU."""
    return finite_result(
        "fleet_peak_flops",
        positive_int("gpus", gpus) * positive("peak_flops_per_gpu", peak_flops_per_gpu),
    )


def delivered_flops(gpus: int, peak_flops_per_gpu: float, mfu: float) -> float:
    """FLOP/s the fleet actually spends on the model: fleet peak × MFU."""
    return fleet_peak_flops(gpus, peak_flops_per_gpu) * fraction("mfu", mfu)


def training_seconds(flops: float, gpus: int, peak_flops_per_gpu: float, mfu: float) -> float:
    """Ideal wall-clock seconds: C / (GPUs × peak × MFU)."""
    c = positive("flops", flops)
    return finite_result("training_seconds", c / delivered_flops(gpus, peak_flops_per_gpu, mfu))


def implied_mfu(flops: float, seconds: float, gpus: int, peak_flops_per_gpu: float) -> float:
    """MFU = C / (T × GPUs × peak): the share of the peak a run of C FLOPs that took T seconds kept busy.

    Read from a reported wall-clock time, it counts everything that time holds
    (start-up, evaluation, checkpoints) as time not spent on the model, so it is
    at most the MFU the run had while it trained.
    """
    achieved = positive("flops", flops) / (positive("seconds", seconds) * fleet_peak_flops(gpus, peak_flops_per_gpu))
    # Above 1, the time is shorter than the fleet's peak allows: the reported time is the wrong input.
    return fraction("seconds", finite_result("implied_mfu", achieved))


def gpu_hours(seconds: float, gpus: int) -> float:
    """GPU-hours: wall-clock hours × GPUs (independent of fleet size for a fixed C)."""
    return finite_result(
        "gpu_hours", positive("seconds", seconds) / SECONDS_PER_HOUR * positive_int("gpus", gpus)
    )


def seconds_for_gpu_hours(gpu_hours_: float, gpus: int) -> float:
    """Wall-clock seconds of a job from its GPU-hours and the GPUs it ran on at once: GPU-hours ÷ GPUs, in seconds."""
    return finite_result(
        "seconds", positive("gpu_hours", gpu_hours_) * SECONDS_PER_HOUR / positive_int("gpus", gpus)
    )
