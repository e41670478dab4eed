"""A training run, estimated end to end: compute, fleet, time, and the bytes it moves.

Composes the topic modules so that pages, the CLI, widgets and tests share one
arithmetic: C = 6ND (compute), GPUs × dense peak × MFU (hardware), the
dataset at a token-id width (storage), the training state and its checkpoint
(memory, checkpoint). The formulas and their sources are in those modules.
"""

from dataclasses import dataclass

from .checkpoint import checkpoint_bytes, weights_bytes
from .compute import training_flops
from .hardware import delivered_flops, fleet_peak_flops, gpu_hours, training_seconds
from .memory import model_state_bytes
from .presets import load_presets
from .provenance import quantity
from .storage import dataset_bytes, token_id_bytes


@dataclass(frozen=True)
class RunEstimate:
    params: float = quantity("N, parameters", "count")
    tokens: float = quantity("D, training tokens", "count")
    gpus: int = quantity("GPUs in the fleet", "integer")
    peak_flops_per_gpu: float = quantity("dense peak at the run's precision, FLOP/s", "si", unit="FLOP/s")
    mfu: float = quantity("fraction of peak the run sustains", "percent")
    flops: float = quantity("C = 6ND, FLOPs", "sci", of=training_flops)
    fleet_peak_flops: float = quantity("FLOP/s, all GPUs at peak", "si", unit="FLOP/s", of=fleet_peak_flops)
    delivered_flops: float = quantity("FLOP/s, at the MFU", "si", unit="FLOP/s", of=delivered_flops)
    seconds: float = quantity("ideal wall-clock: no failures, no restarts", "duration", of=training_seconds)
    gpu_hours: float = quantity("GPUs × ideal wall-clock hours", "count", of=gpu_hours)
    token_bytes: int = quantity("bytes per stored token id", "integer", of=token_id_bytes)
    dataset_bytes: float = quantity("the training tokens as ids on disk", "bytes", of=dataset_bytes)
    state_bytes: float = quantity("mixed-precision Adam training state, 16 B/param", "bytes", of=model_state_bytes)
    checkpoint_bytes: float = quantity("resumable: weights, master copy, both moments", "bytes", of=checkpoint_bytes)
    checkpoint_bytes_with_gradients: float = quantity("the checkpoint with its BF16 gradients too", "bytes", of=checkpoint_bytes)
    weights_bytes: float = quantity("the BF16 weights a release ships", "bytes", of=weights_bytes)


def run_estimate(params: float, tokens: float, gpus: int, peak_flops_per_gpu: float, mfu: float,
                 token_bytes: int = 4) -> RunEstimate:
    """Everything the site says about one run, from N, D, the fleet, its peak and MFU, and the id width."""
    flops = training_flops(params, tokens)
    seconds = training_seconds(flops, gpus, peak_flops_per_gpu, mfu)
    return RunEstimate(
        params=params,
        tokens=tokens,
        gpus=gpus,
        peak_flops_per_gpu=peak_flops_per_gpu,
        mfu=mfu,
        flops=flops,
        fleet_peak_flops=fleet_peak_flops(gpus, peak_flops_per_gpu),
        delivered_flops=delivered_flops(gpus, peak_flops_per_gpu, mfu),
        seconds=seconds,
        gpu_hours=gpu_hours(seconds, gpus),
        token_bytes=token_bytes,
        dataset_bytes=dataset_bytes(tokens, token_bytes),
        state_bytes=model_state_bytes(params),
        checkpoint_bytes=checkpoint_bytes(params),
        checkpoint_bytes_with_gradients=checkpoint_bytes(params, include_gradients=True),
        weights_bytes=weights_bytes(params),
    )


def run_preset_estimate(key: str) -> RunEstimate:
    """The estimate of a run preset: its GPU's peak at its precision, ids as narrow as its vocabulary allows."""
    presets = load_presets()
    run = presets.run(key)
    peak = presets.gpu(run.gpu).peak_flops[run.precision]
    vocab = presets.model(run.model).config.vocab
    return run_estimate(run.params, run.tokens, run.gpus, peak, run.mfu, token_id_bytes(vocab))
