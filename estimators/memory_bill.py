"""The memory bill of one data-parallel GPU, composed: its parts, its fit, and what would make it fit.

Model state under ZeRO (memory.zero_breakdown, Rajbhandari et al. 2020) plus
the activations the model's own blocks and output layer keep for the backward
pass (memory.model_activation_bytes, after Korthikanti et al. 2022, with
sequence parallelism wherever tensor parallelism is used, as Megatron-LM
recommends, their §4.2.2), against the memory of the GPU. When the
bill does not fit, each remedy is computed: the top ZeRO stage, full
recomputation, and the fewest data-parallel GPUs that fit.

With p pipeline stages the bill is the first stage's, the fullest, as
Megatron-LM's theoretical memory estimate counts it
(megatron/training/theoretical_memory_usage.py; Narayanan et al. 2021, §2.2):
it keeps L/p of the transformer layers plus the token embedding (the output
layer lives on the last stage), and under the 1F1B schedule it holds the
activations of p micro-batches in flight, each through its L/p layers: L
layers' worth in all, whatever p, and no output-layer term once p > 1. The
layers are split evenly (L/p, a fraction when p does not divide L: Llama 3
gives its first and last stages one layer fewer, §3.3.2).
"""

from dataclasses import dataclass

from . import validate
from .errors import EstimatorError
from .memory import (
    SHARDED_FROM_STAGE,
    WEIGHT_BYTES,
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
from .number_formats import format_weight_bytes
from .provenance import quantity

TOP_STAGE = ZERO_STAGES[-1]
FULL_RECOMPUTE = "full"
@dataclass(frozen=True)
class Remedy:
    """One change to the setup, and the bill it leads to."""

    change: str  # "zero_stage", "recompute" or "gpus"
    value: object  # the new stage, recomputation mode or data-parallel GPU count (None: no count fits)
    zero_stage: int = quantity("the stage the remedy is counted at", "integer")
    total_bytes: float | None = quantity("the bill after the change; None when no GPU count fits", "bytes")
    fits: bool


@dataclass(frozen=True)
class ZeroShards:
    """How many data-parallel GPUs share each part of the model state: 1 for a whole copy on every GPU."""

    weights: int = quantity("GPUs sharing the BF16 weights (every data-parallel GPU from stage 3)", "integer")
    gradients: int = quantity("GPUs sharing the gradients (every data-parallel GPU from stage 2)", "integer")
    master: int = quantity("GPUs sharing the FP32 master weights (every data-parallel GPU from stage 1)", "integer")
    momentum: int = quantity("GPUs sharing the first moment (every data-parallel GPU from stage 1)", "integer")
    variance: int = quantity("GPUs sharing the second moment (every data-parallel GPU from stage 1)", "integer")


@dataclass(frozen=True)
class MemoryBill:
    memory: GpuMemory  # the parts of the bill, per GPU
    per_param: ModelState  # bytes per parameter before sharding
    fit: MemoryFit
    remedies: tuple  # Remedy, in the order worth trying; empty when the bill fits
    shards: ZeroShards  # how the stage slices each part across the data-parallel GPUs
    unsharded: GpuMemory  # the same bill at ZeRO stage 0, every part a whole copy: what the stage slices from
    inference: float = quantity("the BF16 weights alone, as serving the same stage on the same GPUs holds them",
                                "bytes")


def zero_shards(gpus: int, stage: int) -> ZeroShards:
    """For each part of the model state, the GPUs that share it: every data-parallel GPU once ZeRO's stage shards it, else 1.

    Stage 1 shards the optimizer state (master weights, momentum, variance), stage 2 also
    the gradients, stage 3 also the weights (Rajbhandari et al. 2020, §5); a GPU holds
    1/N_d of a shared part: the slice with its own index.
    """
    n_d = validate.positive_int("gpus", gpus)
    stage = validate.one_of("stage", stage, ZERO_STAGES)
    return ZeroShards(**{part: n_d if stage >= first else 1 for part, first in SHARDED_FROM_STAGE.items()})


def inference_weight_bytes(config: DecoderConfig, tp: int = 1, pp: int = 1, weights_format: str = "bf16") -> float:
    """The weights alone of the first of p pipeline stages over t tensor-parallel GPUs, in their number format:
    b ÷ 8 bytes × Ψ_stage / t (2 bytes in BF16), what serving the model holds before its KV cache."""
    if not isinstance(config, DecoderConfig):
        raise EstimatorError("config", config, "a dense decoder configuration (DecoderConfig)")
    return format_weight_bytes(first_stage_params(config, pp), weights_format) / validate.positive_int("tp", tp)


def _activations(config: DecoderConfig, seq_len: int, micro_batch: int, tp: int, recompute: str, pp: int,
                 attention: str) -> float:
    # 1F1B: p micro-batches in flight on the first stage, L/p layers each; the output layer is the last stage's.
    return model_activation_bytes(config, seq_len, micro_batch, tp, sequence_parallel=True, recompute=recompute,
                                  include_output=pp == 1, attention=attention)


def first_stage_params(config: DecoderConfig, pp: int = 1) -> float:
    """Parameters on the first of p pipeline stages: the blocks' (and final norm's) share L/p, plus the embedding.

    With one stage it is the whole model, its output layer included.
    """
    pp = validate.positive_int("pp", pp)
    if pp > config.layers:
        raise EstimatorError("pp", pp, f"at most the model's {config.layers} layers")
    b = decoder_params(config)
    return (b.attention + b.mlp + b.norms) / pp + b.embeddings + (b.head if pp == 1 else 0)


def memory_bill(config: DecoderConfig, gpus: int, zero_stage: int, optimizer: str, seq_len: int,
                micro_batch: int, recompute: str, tp: int, gpu_memory_bytes: float, pp: int = 1, *,
                attention: str = "unfused", weights_format: str = "bf16") -> MemoryBill:
    """The bill of one GPU training a dense decoder (its exact parameter count from its configuration),
    on the first of its pipeline stages, its activations kept by the attention kernel asked for (unfused attention,
    as Korthikanti et al. count them, unless FlashAttention is asked for), its working weights in the number
    format asked for (b ÷ 8 bytes a parameter: 2 in BF16, 1 in FP8)."""
    if not isinstance(config, DecoderConfig):
        raise EstimatorError("config", config, "a dense decoder configuration (DecoderConfig)")
    tp = validate.positive_int("tp", tp)
    if config.heads % tp:
        raise EstimatorError("tp", tp, f"a divisor of the model's {config.heads} attention heads")
    params = first_stage_params(config, pp)
    weight_bytes = format_weight_bytes(1, weights_format)

    def bill(stage: int, mode: str, count: int = gpus) -> GpuMemory:
        act = _activations(config, seq_len, micro_batch, tp, recompute=mode, pp=pp, attention=attention)
        return training_memory_per_gpu(params, count, stage, optimizer, activations=act, tp=tp, weight_bytes=weight_bytes)

    memory = bill(zero_stage, recompute)
    fit = memory_fit(memory.total, gpu_memory_bytes)
    remedies = ()
    if not fit.fits:
        remedies = _remedies(bill, params, zero_stage, optimizer, recompute=recompute, tp=tp, budget=gpu_memory_bytes,
                             activations=_activations(config, seq_len, micro_batch, tp, recompute=recompute, pp=pp,
                                                     attention=attention), weight_bytes=weight_bytes)
    return MemoryBill(memory, bytes_per_param(optimizer, weight_bytes), fit, remedies,
                      shards=zero_shards(gpus, zero_stage), unsharded=bill(0, recompute),
                      inference=inference_weight_bytes(config, tp, pp, weights_format))


def _remedies(bill, params, zero_stage, optimizer, recompute, tp, budget, activations, weight_bytes) -> tuple:
    remedies = []
    top = bill(TOP_STAGE, recompute)
    top_fits = memory_fit(top.total, budget).fits
    if zero_stage < TOP_STAGE:
        remedies.append(Remedy("zero_stage", TOP_STAGE, TOP_STAGE, top.total, fits=top_fits))
    if recompute != FULL_RECOMPUTE:
        full = bill(zero_stage, FULL_RECOMPUTE)
        remedies.append(Remedy("recompute", FULL_RECOMPUTE, zero_stage, full.total,
                               fits=memory_fit(full.total, budget).fits))
    # More GPUs shrink only what the stage shards, none of it at stage 0: count them at the top stage then.
    stage = zero_stage or TOP_STAGE
    if zero_stage or not top_fits:
        count = min_data_parallel_gpus(params, stage, budget, optimizer, activations=activations, tp=tp,
                                       weight_bytes=weight_bytes)
        total = None if count is None else bill(stage, recompute, count).total
        remedies.append(Remedy("gpus", count, stage, total, fits=count is not None))
    return tuple(remedies)
