"""The memory bill of one data-parallel GPU, composed: its parts, its fit, and what would make it fit.

Model state under ZeRO (memory.zero_breakdown, Rajbhandari et al. 2020) plus
the activations the model's own blocks and output layer keep for the backward
pass (memory.model_activation_bytes, after Korthikanti et al. 2022, with
sequence parallelism wherever tensor parallelism is used, as Megatron-LM
recommends, their §4.2.2), against the memory of the GPU. When the
bill does not fit, each remedy is computed: the top ZeRO stage, full
recomputation, and the fewest data-parallel GPUs that fit.
"""

from dataclasses import dataclass

from . import validate
from .errors import EstimatorError
from .memory import (
    ZERO_STAGES,
    GpuMemory,
    MemoryFit,
    ModelState,
    bytes_per_param,
    memory_fit,
    min_data_parallel_gpus,
    model_activation_bytes,
    training_memory_per_gpu,
)
from .model_size import DecoderConfig, decoder_params

TOP_STAGE = ZERO_STAGES[-1]
FULL_RECOMPUTE = "full"


@dataclass(frozen=True)
class Remedy:
    """One change to the setup, and the bill it leads to."""

    change: str  # "zero_stage", "recompute" or "gpus"
    value: object  # the new stage, recomputation mode or data-parallel GPU count (None: no count fits)
    zero_stage: int  # the stage the remedy is counted at
    total_bytes: float | None  # the bill after the change; None when no GPU count fits
    fits: bool


@dataclass(frozen=True)
class MemoryBill:
    memory: GpuMemory  # the parts of the bill, per GPU
    per_param: ModelState  # bytes per parameter before sharding
    fit: MemoryFit
    remedies: tuple  # Remedy, in the order worth trying; empty when the bill fits


def _activations(config: DecoderConfig, seq_len: int, micro_batch: int, tp: int, recompute: str) -> float:
    return model_activation_bytes(config, seq_len, micro_batch, tp, sequence_parallel=True, recompute=recompute)


def memory_bill(config: DecoderConfig, gpus: int, zero_stage: int, optimizer: str, seq_len: int,
                micro_batch: int, recompute: str, tp: int, gpu_memory_bytes: float) -> MemoryBill:
    """The bill of one GPU training the dense decoder `config` (its exact parameter count from the config)."""
    if not isinstance(config, DecoderConfig):
        raise EstimatorError("config", config, "a dense decoder configuration (DecoderConfig)")
    tp = validate.positive_int("tp", tp)
    if config.heads % tp:
        raise EstimatorError("tp", tp, f"a divisor of the model's {config.heads} attention heads")
    params = decoder_params(config).total

    def bill(stage: int, mode: str, count: int = gpus) -> GpuMemory:
        act = _activations(config, seq_len, micro_batch, tp, mode)
        return training_memory_per_gpu(params, count, stage, optimizer, act, tp)

    memory = bill(zero_stage, recompute)
    fit = memory_fit(memory.total, gpu_memory_bytes)
    remedies = ()
    if not fit.fits:
        remedies = _remedies(bill, params, zero_stage, optimizer, recompute, tp, gpu_memory_bytes,
                             _activations(config, seq_len, micro_batch, tp, recompute))
    return MemoryBill(memory, bytes_per_param(optimizer), fit, remedies)


def _remedies(bill, params, zero_stage, optimizer, recompute, tp, budget, activations) -> tuple:
    remedies = []
    top = bill(TOP_STAGE, recompute)
    top_fits = memory_fit(top.total, budget).fits
    if zero_stage < TOP_STAGE:
        remedies.append(Remedy("zero_stage", TOP_STAGE, TOP_STAGE, top.total, top_fits))
    if recompute != FULL_RECOMPUTE:
        full = bill(zero_stage, FULL_RECOMPUTE)
        remedies.append(Remedy("recompute", FULL_RECOMPUTE, zero_stage, full.total, memory_fit(full.total, budget).fits))
    # More GPUs shrink only what the stage shards, none of it at stage 0: count them at the top stage then.
    stage = zero_stage or TOP_STAGE
    if zero_stage or not top_fits:
        count = min_data_parallel_gpus(params, stage, budget, optimizer, activations, tp)
        total = None if count is None else bill(stage, recompute, count).total
        remedies.append(Remedy("gpus", count, stage, total, count is not None))
    return tuple(remedies)
