"""Estimators for LLM training: pure standard-library Python.

Every number on the site is computed here; `units` turns numbers into text.
Inputs and outputs are SI: counts, FLOPs, FLOP/s, bytes, seconds.

One module per topic: `compute` (6ND, Chinchilla's 20 tokens/param),
`scaling` (the fitted loss laws), `model_size` (dense decoders), `moe`,
`loop` (the four stations of a training step), `hardware` (throughput and time), `memory` (ZeRO, activations), `checkpoint`
(checkpoints and failures), `storage`, `finetune` (LoRA, QLoRA), `footprint` (a run's energy, emissions and cost), `parallelism` (the traffic
of each way to cut a job), `planner` (every layout of a cluster, ranked by predicted step time), `mfu` (where a step's time goes, from
the GPUs' peak to its MFU, and what a run loses outside its steps), `number_formats` (FP32 to NF4:
what each holds, and a value rounded to it); the
composed estimates `run` (a run end to end) and `memory_bill` (one GPU's
bill, its fit and remedies); `presets`
loads presets.toml. `python -m estimators --help` lists the command line.
"""

import importlib
import pkgutil

from .errors import EstimatorError
from .presets import load_presets

# The package's own machinery, not topics: a page's formatters (units), the checks every
# estimator runs (validate), its error, the declarations cards read (provenance), the data-file
# loader and the preset loader, whose lookups reach pages through `Presets` (only
# `load_presets` is re-exported).
SUPPORT_MODULES = ("data_file", "errors", "presets", "provenance", "units", "validate")


def _public(module) -> dict:
    """The functions and classes `module` defines (not those it imports), by name."""
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__ and callable(value)
    }


def _topics() -> dict:
    """{name: function or class} of every topic module, each name defined once in the package."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in SUPPORT_MODULES:
            continue
        for name, value in _public(importlib.import_module(f"{__name__}.{info.name}")).items():
            if name in found:
                raise ImportError(f"estimators: {name} is defined in both {found[name].__module__} and {value.__module__}")
            found[name] = value
    return found


TOPICS = _topics()  # what the macros offer a page, and the names below
globals().update(TOPICS)

ESTIMATORS = {name: fn for name, fn in TOPICS.items() if not isinstance(fn, type)}
__all__ = sorted({*TOPICS, "EstimatorError", "load_presets"})
