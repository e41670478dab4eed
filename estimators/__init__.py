"""Estimators for LLM training: pure standard-library Python.

Every number on the site is computed here; `units` turns numbers into text.
Inputs and outputs are SI: counts, FLOPs, FLOP/s, bytes, seconds.

One module per topic: `compute` (6ND, Chinchilla's 20 tokens/param),
`scaling` (the fitted loss laws), `model_size` (dense decoders), `moe`,
`hardware` (throughput and time), `memory` (ZeRO, activations), `checkpoint`
(checkpoints and failures), `storage`, `finetune` (LoRA, QLoRA); the
composed estimates `run` (a run end to end) and `memory_bill` (one GPU's
bill, its fit and remedies); `presets`
loads presets.toml. `python -m estimators --help` lists the command line.
"""

from .checkpoint import (
    EffectiveTime,
    checkpoint_bytes,
    checkpoint_bytes_per_param,
    effective_training_time,
    lost_work_seconds,
    mtbf_seconds,
    optimal_checkpoint_interval,
    resume_bytes_per_param,
    weights_bytes,
)
from .compute import (
    ComputeConstants,
    attention_flops_per_token,
    backward_flops_per_token,
    compute_constants,
    compute_multiple,
    compute_optimal,
    forward_flops_per_token,
    optimal_training_flops,
    tokens_per_param,
    training_flops,
    training_flops_with_attention,
)
from .errors import EstimatorError
from .finetune import (
    FinetuneBill,
    FinetuneBreakdown,
    FinetuneMemory,
    QuantizationLayout,
    finetune_bill,
    finetune_breakdown,
    finetune_memory,
    lora_decoder_params,
    lora_matrix_params,
    lora_module_shapes,
    lora_trainable_params,
    quantization_layout,
)
from .ladder import scale_rung
from .hardware import delivered_flops, fleet_peak_flops, gpu_hours, sparse_peak_flops, training_seconds
from .memory_bill import MemoryBill, Remedy, memory_bill
from .run import RunEstimate, run_estimate, run_preset_estimate
from .memory import (
    ActivationCoefficients,
    GpuMemory,
    MemoryFit,
    ModelState,
    activation_bytes,
    activation_bytes_per_layer,
    activation_coefficients,
    activation_output_bytes,
    bytes_per_param,
    memory_fit,
    min_data_parallel_gpus,
    model_activation_bytes,
    model_state_bytes,
    training_memory_per_gpu,
    zero_breakdown,
    zero_bytes_per_gpu,
)
from .model_size import DecoderConfig, ParamBreakdown, decoder_params, param_count
from .moe import MlaConfig, MoeConfig, MoeParams, moe_params
from .presets import load_presets
from .scaling import LossFit, chinchilla_loss, chinchilla_optimal, loss_fits, optimal_exponents
from .storage import StorageBreakdown, dataset_bytes, raw_text_bytes, storage_footprint, token_id_bytes

__all__ = [
    "ActivationCoefficients",
    "ComputeConstants",
    "DecoderConfig",
    "EffectiveTime",
    "EstimatorError",
    "FinetuneBill",
    "FinetuneBreakdown",
    "FinetuneMemory",
    "GpuMemory",
    "LossFit",
    "MemoryBill",
    "MemoryFit",
    "MlaConfig",
    "ModelState",
    "MoeConfig",
    "MoeParams",
    "ParamBreakdown",
    "Remedy",
    "RunEstimate",
    "QuantizationLayout",
    "StorageBreakdown",
    "activation_bytes",
    "activation_bytes_per_layer",
    "activation_coefficients",
    "activation_output_bytes",
    "attention_flops_per_token",
    "backward_flops_per_token",
    "bytes_per_param",
    "checkpoint_bytes",
    "checkpoint_bytes_per_param",
    "chinchilla_loss",
    "chinchilla_optimal",
    "compute_constants",
    "compute_multiple",
    "compute_optimal",
    "dataset_bytes",
    "decoder_params",
    "delivered_flops",
    "effective_training_time",
    "finetune_bill",
    "finetune_breakdown",
    "finetune_memory",
    "fleet_peak_flops",
    "forward_flops_per_token",
    "gpu_hours",
    "load_presets",
    "loss_fits",
    "lora_decoder_params",
    "lora_matrix_params",
    "lora_module_shapes",
    "lora_trainable_params",
    "lost_work_seconds",
    "memory_bill",
    "memory_fit",
    "min_data_parallel_gpus",
    "model_activation_bytes",
    "model_state_bytes",
    "moe_params",
    "mtbf_seconds",
    "optimal_checkpoint_interval",
    "optimal_exponents",
    "optimal_training_flops",
    "param_count",
    "quantization_layout",
    "raw_text_bytes",
    "resume_bytes_per_param",
    "run_estimate",
    "run_preset_estimate",
    "scale_rung",
    "sparse_peak_flops",
    "storage_footprint",
    "token_id_bytes",
    "tokens_per_param",
    "training_flops",
    "training_flops_with_attention",
    "training_memory_per_gpu",
    "training_seconds",
    "weights_bytes",
    "zero_breakdown",
    "zero_bytes_per_gpu",
]
