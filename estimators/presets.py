"""Load and validate presets.toml: the inputs the site uses, each with a source.

A preset with a missing field, an unknown field (a unit slip such as
``memory_gb``), a value of the wrong type or out of range, or a reference to
an unknown GPU raises EstimatorError naming the preset and the field.
"""

import dataclasses
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .errors import EstimatorError
from . import validate


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_bytes: float  # HBM capacity, bytes
    peak_flops: dict  # precision -> dense peak FLOP/s per GPU
    source: str


@dataclass(frozen=True)
class Run:
    name: str
    params: float  # N, parameters
    tokens: float  # D, training tokens
    gpus: int
    gpu: str  # key into Presets.gpus
    precision: str  # key into that GPU's peak_flops
    mfu: float  # model FLOPs utilisation, fraction of peak
    source: str


@dataclass(frozen=True)
class Presets:
    gpus: dict
    runs: dict

    def gpu(self, key: str) -> Gpu:
        return self.gpus[validate.one_of("gpu", key, self.gpus)]

    def run(self, key: str) -> Run:
        return self.runs[validate.one_of("run", key, self.runs)]


# Range checks per field; a field not named here is checked for type only.
_CHECKS = {
    "memory_bytes": validate.positive,
    "params": validate.positive,
    "tokens": validate.positive,
    "gpus": validate.positive_int,
    "mfu": validate.fraction,
}


def _build(cls, table: str, key: str, raw: dict):
    where = f"{table}.{key}"
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name in raw.keys() - fields.keys():
        raise EstimatorError(f"{where}.{name}", raw[name], "a known field: " + ", ".join(fields))
    values = {}
    for name, field in fields.items():
        if name not in raw:
            raise EstimatorError(f"{where}.{name}", None, "a value (the field is missing)")
        value = raw[name]
        expected = {"float": (int, float), "int": (int, float)}.get(field.type, field.type)
        if isinstance(value, bool) or not isinstance(value, expected):
            raise EstimatorError(f"{where}.{name}", value, f"a value of type {field.type}")
        check = _CHECKS.get(name)
        values[name] = check(f"{where}.{name}", value) if check else value
    return cls(**values)


def parse_presets(text: str) -> Presets:
    """Parse and validate presets from TOML text."""
    data = tomllib.loads(text)
    for table in data.keys() - {"gpus", "runs"}:
        raise EstimatorError(table, "...", "a known table: gpus, runs")
    gpus = {k: _build(Gpu, "gpus", k, v) for k, v in data.get("gpus", {}).items()}
    for key, gpu in gpus.items():
        for precision, flops in gpu.peak_flops.items():
            validate.positive(f"gpus.{key}.peak_flops.{precision}", flops)
    runs = {k: _build(Run, "runs", k, v) for k, v in data.get("runs", {}).items()}
    for key, run in runs.items():
        validate.one_of(f"runs.{key}.gpu", run.gpu, gpus)
        validate.one_of(f"runs.{key}.precision", run.precision, gpus[run.gpu].peak_flops)
    return Presets(gpus=gpus, runs=runs)


@cache
def load_presets() -> Presets:
    """The validated presets shipped with the package (read once)."""
    return parse_presets(resources.files(__package__).joinpath("presets.toml").read_text("utf-8"))
