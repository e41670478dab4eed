"""Load and validate presets.toml: the inputs the site uses, each with a source.

A preset with a missing field, an unknown field (a unit slip such as
``memory_gb``), a value of the wrong type or out of range, or a reference to
an unknown GPU raises EstimatorError naming the preset and the field.

Tables: ``gpus``, ``runs``, ``models`` (dense decoders), ``moe_models``,
``datasets``, ``failures``, ``scales`` (the rungs of the site's scale
ladder, in order, their GPU ranges neither overlapping nor out of order),
``setups`` (training layouts for the memory bill), ``stages`` (one
published run of each stage from raw text to a reasoning model), ``finetunes`` (LoRA and
QLoRA adapters on a base model, and the GPU they should fit), ``examples``
(the round model sizes a source works its examples at: the seed's 7B, the
ZeRO paper's 7.5B), ``interconnects`` (the links GPUs talk over, inside a
server, between servers and to host memory), ``layouts`` (how published runs
nest their parallelism), ``storage_systems`` (where checkpoints are written) and ``budgets`` (the
parameters and training tokens of released models, as their papers give them).
Model presets hold a configuration (``DecoderConfig`` or ``MoeConfig``) whose
own checks run at load time.
"""

import dataclasses
import tomllib
import typing
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .errors import EstimatorError
from .finetune import LLAMA_MODULES, QUANTIZATION_LAYOUTS
from .ladder import CROSSES
from .memory import OPTIMIZER_STATE_BYTES, RECOMPUTE, ZERO_STAGES
from .model_size import DecoderConfig, decoder_params
from .moe import MlaConfig, MoeConfig, moe_params
from . import validate


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_bytes: float  # capacity as the vendor means it (binary: "80 GB" is 80 GiB), whole bytes
    peak_flops: dict  # precision -> dense peak FLOP/s per GPU
    source: str
    # precision -> a source's unrounded dense peak, FLOP/s, where peak_flops holds a rounded one
    peak_flops_unrounded: dict | None = None
    nvlink_domain_gpus: int | None = None  # GPUs joined by one NVLink (scale-up) domain in the system it ships in


@dataclass(frozen=True)
class Run:
    name: str
    params: float  # N, parameters
    tokens: float  # D, training tokens
    gpus: int
    gpu: str  # key into Presets.gpus
    model: str  # key into Presets.models: the architecture, and the tokenizer its data is stored with
    precision: str  # key into that GPU's peak_flops
    mfu: float  # model FLOPs utilisation, fraction of peak
    source: str
    mfu_reported: tuple | None = None  # (low, high): the MFU range the source reports, where it gives one


@dataclass(frozen=True)
class Model:
    name: str
    config: "DecoderConfig | MoeConfig"  # the architecture, as its config.json gives it
    source: str

    @property
    def params(self) -> int:
        """Total parameters (every weight stored)."""
        if isinstance(self.config, MoeConfig):
            return moe_params(self.config).total
        return decoder_params(self.config).total

    @property
    def active_params(self) -> int:
        """Parameters one token passes through: all of them for a dense model."""
        if isinstance(self.config, MoeConfig):
            return moe_params(self.config).active
        return self.params


@dataclass(frozen=True)
class Dataset:
    name: str
    tokens: float  # D, tokens
    vocab: int  # vocabulary of the tokenizer that counted them
    source: str
    text_bytes: float | None = None  # bytes of the raw text, where published
    parquet_bytes: float | None = None  # bytes of the published files: compressed Parquet, metadata columns included
    chars_per_token: float | None = None  # average characters of text per token of its tokenizer


@dataclass(frozen=True)
class Example:
    """A round model size a source works an example at (not a released model's exact count)."""

    name: str
    params: float  # N, parameters, as the source rounds them
    source: str
    # The storage example's other inputs, where the source works one (storage.storage_footprint's arguments)
    tokens_per_param: float | None = None  # D / N
    token_bytes: int | None = None  # bytes of one stored token id
    checkpoints_kept: int | None = None
    checkpoint_gradients: bool | None = None  # whether each checkpoint holds the gradients too


@dataclass(frozen=True)
class Budget:
    """What a released model was trained on, as its paper or model card states it."""

    name: str
    params: float  # N, parameters, as the source rounds them
    tokens: float  # D, training tokens
    source: str


@dataclass(frozen=True)
class Failures:
    name: str
    window_seconds: float  # length of the observed stretch of the run, s
    interruptions: int  # all interruptions in the window
    unexpected: int  # those not planned (a planned stop can save first)
    hardware_share: float  # share of the unexpected ones due to hardware
    effective_share: float  # reported share of the window spent training (a floor)
    checkpoint_interval_seconds: float  # cadence the site assumes, s
    source: str


@dataclass(frozen=True)
class Scale:
    name: str  # the rung as prose names it: "one server"
    min_gpus: int  # fewest GPUs at this rung
    source: str
    max_gpus: int | None = None  # most GPUs at this rung; None: no upper bound (the top rung)
    crosses: str | None = None  # what a job's traffic crosses on this rung, a key of ladder.CROSSES


@dataclass(frozen=True)
class TrainingSetup:
    """How one model is laid out for training on data-parallel GPUs: what the memory bill needs."""

    name: str
    model: str  # key into Presets.models (a dense decoder)
    gpu: str  # key into Presets.gpus: its memory is the budget
    gpus: int  # N_d, data-parallel GPUs
    optimizer: str  # a key of memory.OPTIMIZER_STATE_BYTES
    zero_stage: int  # 0-3
    seq_len: int  # tokens per sequence
    micro_batch: int  # sequences per GPU per step
    recompute: str  # one of memory.RECOMPUTE
    tp: int  # tensor-parallel size
    source: str
    pp: int = 1  # pipeline stages; the bill is the first stage's, the fullest under 1F1B


@dataclass(frozen=True)
class Interconnect:
    """A link GPUs exchange data over."""

    name: str
    scope: str  # "scale-up" (inside a server or rack, NVLink), "scale-out" (between them) or "host" (GPU to CPU memory)
    bandwidth_bytes_per_s: float  # per GPU, in one direction
    source: str


@dataclass(frozen=True)
class StorageSystem:
    """Where a run writes its checkpoints."""

    name: str
    write_bytes_per_s: float  # sustained aggregate throughput, the whole cluster writing at once
    peak_write_bytes_per_s: float  # the short-burst peak
    capacity_bytes: float
    source: str


@dataclass(frozen=True)
class ParallelLayout:
    """How a published run cut its job: the degree of each nested dimension and the step it ran."""

    name: str
    model: str  # key into Presets.models
    gpu: str  # key into Presets.gpus
    tp: int  # tensor-parallel GPUs per layer
    cp: int  # context-parallel GPUs per sequence
    pp: int  # pipeline stages
    dp: int  # data-parallel replicas
    seq_len: int  # tokens per sequence
    micro_batch: int  # sequences per micro-batch
    global_batch: int  # sequences per step, over all replicas
    mfu: float  # reported model FLOPs utilisation, fraction of peak
    scale_up: str  # key into Presets.interconnects: the link inside a server
    scale_out: str  # key into Presets.interconnects: the network between servers
    source: str


@dataclass(frozen=True)
class FinetuneSetup:
    """LoRA adapters on a base model: what the fine-tuning figures need."""

    name: str
    model: str  # key into Presets.models (a dense decoder): the frozen base
    gpu: str  # key into Presets.gpus: its memory is the budget
    rank: int  # r of every adapter
    modules: tuple  # linear layers adapted in each block, names of finetune.LLAMA_MODULES
    quantization: str  # storage of the frozen base under QLoRA, a key of finetune.QUANTIZATION_LAYOUTS
    seq_len: int  # tokens per sequence, for the activations
    micro_batch: int  # sequences per GPU per step
    recompute: str  # one of memory.RECOMPUTE (gradient checkpointing is "full")
    source: str


@dataclass(frozen=True)
class Stage:
    """One stage from raw text to a reasoning model, sized by one published run of it."""

    name: str
    objective: str  # what the stage trains the model to do
    artifact: str  # what the stage hands on
    example: str  # the published run that sizes it
    hardware: str  # the GPUs as the report names them
    gpus: int
    as_of: str  # the report's date: later runs of the stage may be larger
    source: str
    seconds: float | None = None  # wall-clock time, s, where the report gives it
    gpu_hours: float | None = None  # GPU-hours, where the report gives those instead
    tokens: float | None = None  # training tokens, where published


@dataclass(frozen=True)
class Presets:
    gpus: dict
    runs: dict
    models: dict = dataclasses.field(default_factory=dict)
    datasets: dict = dataclasses.field(default_factory=dict)
    failures: dict = dataclasses.field(default_factory=dict)
    scales: dict = dataclasses.field(default_factory=dict)  # in ladder order, smallest first
    setups: dict = dataclasses.field(default_factory=dict)  # training setups, for the memory bill
    finetunes: dict = dataclasses.field(default_factory=dict)  # LoRA / QLoRA setups
    examples: dict = dataclasses.field(default_factory=dict)  # round sizes of worked examples
    interconnects: dict = dataclasses.field(default_factory=dict)  # links inside and between servers
    layouts: dict = dataclasses.field(default_factory=dict)  # published parallel layouts
    storage_systems: dict = dataclasses.field(default_factory=dict)  # where checkpoints are written
    stages: dict = dataclasses.field(default_factory=dict)  # from raw text to a reasoning model, in order
    budgets: dict = dataclasses.field(default_factory=dict)  # N and D of released models

    def gpu(self, key: str) -> Gpu:
        return self.gpus[validate.one_of("gpu", key, self.gpus)]

    def run(self, key: str) -> Run:
        return self.runs[validate.one_of("run", key, self.runs)]

    def model(self, key: str) -> Model:
        return self.models[validate.one_of("model", key, self.models)]

    def dataset(self, key: str) -> Dataset:
        return self.datasets[validate.one_of("dataset", key, self.datasets)]

    def failure(self, key: str) -> Failures:
        return self.failures[validate.one_of("failures", key, self.failures)]

    def scale(self, key: str) -> Scale:
        return self.scales[validate.one_of("scale", key, self.scales)]

    def setup(self, key: str) -> TrainingSetup:
        return self.setups[validate.one_of("setup", key, self.setups)]

    def finetune(self, key: str) -> FinetuneSetup:
        return self.finetunes[validate.one_of("finetune", key, self.finetunes)]

    def example(self, key: str) -> Example:
        return self.examples[validate.one_of("example", key, self.examples)]

    def interconnect(self, key: str) -> Interconnect:
        return self.interconnects[validate.one_of("interconnect", key, self.interconnects)]

    def layout(self, key: str) -> ParallelLayout:
        return self.layouts[validate.one_of("layout", key, self.layouts)]

    def storage_system(self, key: str) -> StorageSystem:
        return self.storage_systems[validate.one_of("storage_system", key, self.storage_systems)]

    def stage(self, key: str) -> Stage:
        return self.stages[validate.one_of("stage", key, self.stages)]

    def budget(self, key: str) -> Budget:
        return self.budgets[validate.one_of("budget", key, self.budgets)]


def _source(argument: str, value: str) -> str:
    """A source someone can look up: not empty, not only spaces."""
    if not value.strip():
        raise EstimatorError(argument, value, "a source a reader can look up (a URL or a citation), not empty")
    return value


# Range checks per field; a field not named here is checked for type only
# (model configurations check their own fields).
_CHECKS = {
    "source": _source,
    "memory_bytes": validate.positive,
    "params": validate.positive,
    "tokens": validate.positive,
    "gpus": validate.positive_int,
    "mfu": validate.fraction,
    "vocab": validate.positive_int,
    "text_bytes": validate.positive,
    "parquet_bytes": validate.positive,
    "chars_per_token": validate.positive,
    "window_seconds": validate.positive,
    "interruptions": validate.positive_int,
    "unexpected": validate.non_negative_int,
    "hardware_share": validate.fraction,
    "effective_share": validate.fraction,
    "checkpoint_interval_seconds": validate.positive,
    "min_gpus": validate.positive_int,
    "max_gpus": validate.positive_int,
    "seq_len": validate.positive_int,
    "micro_batch": validate.positive_int,
    "tp": validate.positive_int,
    "rank": validate.positive_int,
    "nvlink_domain_gpus": validate.positive_int,
    "pp": validate.positive_int,
    "cp": validate.positive_int,
    "dp": validate.positive_int,
    "global_batch": validate.positive_int,
    "bandwidth_bytes_per_s": validate.positive,
    "write_bytes_per_s": validate.positive,
    "peak_write_bytes_per_s": validate.positive,
    "capacity_bytes": validate.positive,
    "seconds": validate.positive,
    "gpu_hours": validate.positive,
    "tokens_per_param": validate.positive,
    "token_bytes": validate.positive_int,
    "checkpoints_kept": validate.non_negative_int,
}
INTERCONNECT_SCOPES = ("scale-up", "scale-out", "host")
# What a TOML value may be for each annotation: a whole number is a valid float, not the reverse.
_ACCEPTS = {float: (int, float), int: (int,), bool: (bool,), str: (str,), dict: (dict,), tuple: (list,)}
_TABLES = ("gpus", "runs", "models", "moe_models", "datasets", "failures", "scales", "setups", "finetunes", "examples",
           "interconnects", "layouts", "storage_systems", "stages", "budgets")


def _accepted(annotation) -> tuple:
    """Python types a field accepts: float | None accepts int, float (None only by omission)."""
    options = typing.get_args(annotation) or (annotation,)
    return tuple(t for option in options if option is not type(None) for t in _ACCEPTS.get(option, (option,)))


def _build(cls, where: str, raw: dict):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if not isinstance(raw, dict):
        raise EstimatorError(where, raw, f"a table of {', '.join(fields)}")
    for name in raw.keys() - fields.keys():
        raise EstimatorError(f"{where}.{name}", raw[name], "a known field: " + ", ".join(fields))
    values = {}
    for name, field in fields.items():
        if name not in raw:
            if field.default is dataclasses.MISSING:
                raise EstimatorError(f"{where}.{name}", None, "a value (the field is missing)")
            continue
        value = raw[name]
        if name == "mla":
            values[name] = _build(MlaConfig, f"{where}.{name}", value)
            continue
        accepted = _accepted(field.type)
        if (isinstance(value, bool) and bool not in accepted) or not isinstance(value, accepted):
            raise EstimatorError(f"{where}.{name}", value, f"a value of type {' or '.join(t.__name__ for t in accepted)}")
        check = _CHECKS.get(name)
        values[name] = check(f"{where}.{name}", value) if check else value
        if isinstance(value, list):  # a TOML array, kept immutable
            values[name] = tuple(value)
    try:
        return cls(**values)
    except EstimatorError as error:  # a configuration's own check: say which preset
        raise EstimatorError(f"{where}.{error.argument}", error.value, error.allowed) from None


def _model(config_cls, where: str, raw: dict) -> Model:
    """A model preset: name and source, the rest of its fields being the configuration."""
    if not isinstance(raw, dict):
        raise EstimatorError(where, raw, "a table with name, source and the configuration")
    for name in ("name", "source"):
        if not isinstance(raw.get(name), str):
            allowed = "a value of type str" if name in raw else "a value (the field is missing)"
            raise EstimatorError(f"{where}.{name}", raw.get(name), allowed)
    _source(f"{where}.source", raw["source"])
    config = _build(config_cls, where, {k: v for k, v in raw.items() if k not in ("name", "source")})
    return Model(name=raw["name"], config=config, source=raw["source"])


def parse_presets(text: str) -> Presets:
    """Parse and validate presets from TOML text."""
    data = tomllib.loads(text)
    for table in data.keys() - set(_TABLES):
        raise EstimatorError(table, "...", "a known table: " + ", ".join(_TABLES))
    gpus = {k: _build(Gpu, f"gpus.{k}", v) for k, v in data.get("gpus", {}).items()}
    for key, gpu in gpus.items():
        if gpu.memory_bytes != int(gpu.memory_bytes):
            raise EstimatorError(f"gpus.{key}.memory_bytes", gpu.memory_bytes, "a whole number of bytes")
        for precision, flops in gpu.peak_flops.items():
            validate.positive(f"gpus.{key}.peak_flops.{precision}", flops)
        for precision, flops in (gpu.peak_flops_unrounded or {}).items():
            validate.one_of(f"gpus.{key}.peak_flops_unrounded", precision, gpu.peak_flops)
            validate.positive(f"gpus.{key}.peak_flops_unrounded.{precision}", flops)
    models = {k: _model(DecoderConfig, f"models.{k}", v) for k, v in data.get("models", {}).items()}
    for key, raw in data.get("moe_models", {}).items():
        if key in models:
            raise EstimatorError(f"moe_models.{key}", key, "a key not already used in models")
        models[key] = _model(MoeConfig, f"moe_models.{key}", raw)
    runs = {k: _build(Run, f"runs.{k}", v) for k, v in data.get("runs", {}).items()}
    for key, run in runs.items():
        validate.one_of(f"runs.{key}.gpu", run.gpu, gpus)
        validate.one_of(f"runs.{key}.model", run.model, models)
        validate.one_of(f"runs.{key}.precision", run.precision, gpus[run.gpu].peak_flops)
        if run.mfu_reported is not None:
            bounds = [validate.fraction(f"runs.{key}.mfu_reported", v) for v in run.mfu_reported]
            # The site's round MFU is taken from inside the reported range, never outside it.
            if len(bounds) != 2 or not bounds[0] <= run.mfu <= bounds[1]:
                raise EstimatorError(f"runs.{key}.mfu_reported", list(run.mfu_reported), f"[low, high] around mfu ({run.mfu})")
    datasets = {k: _build(Dataset, f"datasets.{k}", v) for k, v in data.get("datasets", {}).items()}
    failures = {k: _build(Failures, f"failures.{k}", v) for k, v in data.get("failures", {}).items()}
    for key, f in failures.items():
        if f.unexpected > f.interruptions:
            raise EstimatorError(f"failures.{key}.unexpected", f.unexpected, f"at most interruptions ({f.interruptions})")
    scales = _ladder({k: _build(Scale, f"scales.{k}", v) for k, v in data.get("scales", {}).items()})
    setups = {k: _build(TrainingSetup, f"setups.{k}", v) for k, v in data.get("setups", {}).items()}
    for key, setup in setups.items():
        dense = [k for k, m in models.items() if isinstance(m.config, DecoderConfig)]
        validate.one_of(f"setups.{key}.model", setup.model, dense)
        validate.one_of(f"setups.{key}.gpu", setup.gpu, gpus)
        validate.one_of(f"setups.{key}.optimizer", setup.optimizer, tuple(OPTIMIZER_STATE_BYTES))
        validate.one_of(f"setups.{key}.zero_stage", setup.zero_stage, ZERO_STAGES)
        validate.one_of(f"setups.{key}.recompute", setup.recompute, RECOMPUTE)
    finetunes = {k: _finetune(f"finetunes.{k}", v, models, gpus) for k, v in data.get("finetunes", {}).items()}
    examples = {k: _build(Example, f"examples.{k}", v) for k, v in data.get("examples", {}).items()}
    interconnects = {k: _build(Interconnect, f"interconnects.{k}", v) for k, v in data.get("interconnects", {}).items()}
    for key, link in interconnects.items():
        validate.one_of(f"interconnects.{key}.scope", link.scope, INTERCONNECT_SCOPES)
    layouts = {k: _build(ParallelLayout, f"layouts.{k}", v) for k, v in data.get("layouts", {}).items()}
    for key, layout in layouts.items():
        validate.one_of(f"layouts.{key}.model", layout.model, models)
        validate.one_of(f"layouts.{key}.gpu", layout.gpu, gpus)
        for field, scope in (("scale_up", "scale-up"), ("scale_out", "scale-out")):
            links = [k for k, i in interconnects.items() if i.scope == scope]
            validate.one_of(f"layouts.{key}.{field}", getattr(layout, field), links)
    storage = {k: _build(StorageSystem, f"storage_systems.{k}", v) for k, v in data.get("storage_systems", {}).items()}
    stages = {k: _build(Stage, f"stages.{k}", v) for k, v in data.get("stages", {}).items()}
    for key, stage in stages.items():
        if (stage.seconds is None) == (stage.gpu_hours is None):
            raise EstimatorError(f"stages.{key}.seconds", stage.seconds, "a value, or gpu_hours instead (one of the two)")
    budgets = {k: _build(Budget, f"budgets.{k}", v) for k, v in data.get("budgets", {}).items()}
    return Presets(
        gpus=gpus, runs=runs, models=models, datasets=datasets, failures=failures, scales=scales, setups=setups,
        finetunes=finetunes, examples=examples, interconnects=interconnects, layouts=layouts, storage_systems=storage,
        stages=stages, budgets=budgets,
    )


def _finetune(where: str, raw: dict, models: dict, gpus: dict) -> FinetuneSetup:
    """A fine-tuning preset: a dense base, a known GPU, and distinct, known modules (at least one)."""
    setup = _build(FinetuneSetup, where, raw)
    validate.one_of(f"{where}.model", setup.model, [k for k, m in models.items() if isinstance(m.config, DecoderConfig)])
    validate.one_of(f"{where}.gpu", setup.gpu, gpus)
    validate.one_of(f"{where}.quantization", setup.quantization, tuple(QUANTIZATION_LAYOUTS))
    validate.one_of(f"{where}.recompute", setup.recompute, RECOMPUTE)
    if not setup.modules:
        raise EstimatorError(f"{where}.modules", [], "at least one of " + ", ".join(LLAMA_MODULES))
    for module in setup.modules:
        validate.one_of(f"{where}.modules", module, LLAMA_MODULES)
    if len(set(setup.modules)) != len(setup.modules):
        raise EstimatorError(f"{where}.modules", list(setup.modules), "each module named once")
    return setup


def _ladder(scales: dict) -> dict:
    """Check the rungs climb: each range starts above the last one's end; only the top is open."""
    below = None  # (key, max_gpus) of the rung below
    for key, scale in scales.items():
        if scale.crosses is not None:
            validate.one_of(f"scales.{key}.crosses", scale.crosses, tuple(CROSSES))
        if scale.max_gpus is not None and scale.max_gpus < scale.min_gpus:
            raise EstimatorError(f"scales.{key}.max_gpus", scale.max_gpus, f"at least min_gpus ({scale.min_gpus})")
        if below is not None:
            if below[1] is None:
                raise EstimatorError(f"scales.{below[0]}.max_gpus", None, "a value (only the top rung is open-ended)")
            if scale.min_gpus <= below[1]:
                raise EstimatorError(f"scales.{key}.min_gpus", scale.min_gpus, f"more than scales.{below[0]}.max_gpus ({below[1]})")
        below = (key, scale.max_gpus)
    return scales


def load_presets() -> Presets:
    """The validated presets shipped with the package (read once).

    A plain function, the cache kept behind it, so that it is a macro like every
    other public function (a page reaches a table with no macro of its own,
    such as ``load_presets().scale("rack")``, through it).
    """
    return _shipped_presets()


@cache
def _shipped_presets() -> Presets:
    return parse_presets(resources.files(__package__).joinpath("presets.toml").read_text("utf-8"))


def address_of(entry) -> str:
    """Where a loaded preset entry lives: `runs.llama3-405b` (its table and key)."""
    presets = load_presets()
    for table in dataclasses.fields(presets):
        for key, candidate in getattr(presets, table.name).items():
            if candidate is entry:
                return f"{table.name}.{key}"
    raise ValueError(f"{entry!r} is not an entry of the loaded presets")
