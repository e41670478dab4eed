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
from .storage import dataset_bytes, token_id_bytes


@dataclass(frozen=True)
class RunEstimate:
    params: float  # N, parameters
    tokens: float  # D, training tokens
    gpus: int
    peak_flops_per_gpu: float  # dense peak at the run's precision, FLOP/s
    mfu: float  # fraction of peak the run sustains
    flops: float  # C = 6ND, FLOPs
    fleet_peak_flops: float  # FLOP/s, all GPUs at peak
    delivered_flops: float  # FLOP/s, at the MFU
    seconds: float  # ideal wall-clock: no failures, no restarts
    gpu_hours: float
    token_bytes: int  # bytes per stored token id
    dataset_bytes: float  # the training tokens as ids on disk
    state_bytes: float  # mixed-precision Adam training state, 16 B/param
    checkpoint_bytes: float  # resumable: weights, master copy, both moments
    checkpoint_bytes_with_gradients: float
    weights_bytes: float  # the BF16 weights a release ships


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
