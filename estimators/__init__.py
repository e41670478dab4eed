"""Estimators for LLM training: pure standard-library Python.

Every number on the site is computed here; `units` turns numbers into text.
Inputs and outputs are SI: counts, FLOPs, FLOP/s, bytes, seconds.
"""

from .compute import tokens_per_param, training_flops
from .errors import EstimatorError
from .hardware import delivered_flops, fleet_peak_flops, gpu_hours, training_seconds
from .presets import load_presets

__all__ = [
    "EstimatorError",
    "delivered_flops",
    "fleet_peak_flops",
    "gpu_hours",
    "load_presets",
    "tokens_per_param",
    "training_flops",
    "training_seconds",
]
