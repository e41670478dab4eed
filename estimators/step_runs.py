"""Published training runs whose throughput was measured, and the step model's prediction for each.

The runs are step_runs.toml's rows: each a model, a cluster, a layout, what
its framework overlaps, and the source's measured figure in the source's own
unit. A measured figure becomes tokens per second per GPU through the
source's own way of counting FLOPs (FLOP_COUNTINGS), so that the prediction
and the measurement are compared on the same work: the ratio is predicted /
measured throughput.
"""

import math
from dataclasses import dataclass
from functools import cache

from . import data_file
from .errors import EstimatorError
from .model_size import DecoderConfig
from .provenance import quantity
from .step_time import Setup, StepTime, gpu_preset, shape_of, step_seconds
from .validate import one_of

SECONDS_PER_HOUR = 3600
TOKENS_PER_TRILLION = 1e12
# How each source counts the FLOPs its TFLOP/s figure divides: per step of B sequences of s tokens.
FLOP_COUNTINGS = ("megatron_hardware", "six_n_causal")
CLOSE_BAND = 0.15  # a prediction within ±15% of its measurement counts as close (the validation's target band)


@dataclass(frozen=True)
class MeasuredRun:
    """One published run: its model, cluster, layout and measured figure."""

    key: str
    name: str
    config: object  # DecoderConfig or MoeConfig
    gpu: str
    scale_up: str
    scale_out: str
    precision: str
    seq_len: int = quantity("tokens per sequence", "integer")
    global_batch: int = quantity("sequences per step", "integer")
    setup: Setup
    measured: dict
    fit: bool  # one of the runs the fitted constants were fitted on
    source: str
    unseen: str = ""  # the published table it was checked on after the model was built; "" for a validation run


def step_flops(counting: str, config, seq_len: int, global_batch: int) -> float:
    """A step's FLOPs as its source counts them. Megatron-LM's hardware count: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))
    (Narayanan et al. 2021 §5.1, recomputation included); 6N with causal attention: B·s·(6N + 3·s·L·H·(d_qk + d_v)),
    6N (Kaplan et al. 2020) plus causal attention (PaLM's appendix B, halved by the mask)."""
    one_of("counting", counting, FLOP_COUNTINGS)
    shape = shape_of(config)
    b, s = global_batch, seq_len
    if counting == "megatron_hardware":
        h, l, v = shape.d, shape.layers, shape.vocab
        return 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))
    attention = 3 * s * shape.layers * shape.heads * (shape.qk_head + shape.v_head)
    return b * s * (6 * shape.params + attention)


def measured_tokens_per_second_per_gpu(run: MeasuredRun) -> float:
    """Measured tokens per second per GPU: tokens per step / (step × GPUs), the step read from the figure the source
    gives (its TFLOP/s per GPU through its own FLOP count, a step time, tokens per second, or GPU-hours per trillion
    tokens)."""
    got, gpus, tokens = run.measured, run.setup.gpus, run.global_batch * run.seq_len
    if "tokens_per_second_per_gpu" in got:
        return got["tokens_per_second_per_gpu"]
    if "gpu_hours_per_trillion_tokens" in got:
        return TOKENS_PER_TRILLION / (got["gpu_hours_per_trillion_tokens"] * SECONDS_PER_HOUR)
    if "step_seconds" in got:
        return tokens / (got["step_seconds"] * gpus)
    flops = step_flops(got["counting"], run.config, run.seq_len, run.global_batch)
    return tokens / (flops / (got["tflops_per_gpu"] * gpus) * gpus)


@dataclass(frozen=True)
class RunPrediction:
    """A published run's measured throughput beside the step model's."""

    run: MeasuredRun
    step: StepTime
    measured: float = quantity("tokens per second per GPU, as the source measured it", "si", unit="tokens/s")
    predicted: float = quantity("tokens per second per GPU, as the step model predicts it", "si", unit="tokens/s")
    ratio: float = quantity("predicted / measured throughput", "times")


def _step_at(run: MeasuredRun, precision: str) -> StepTime:
    """The step model's step for a published run on its own layout, model, GPUs and links, its GEMMs at `precision`."""
    gpu = gpu_preset(run.gpu, run.scale_up, run.scale_out, precision)
    return step_seconds(shape_of(run.config), run.setup, gpu, run.seq_len, run.global_batch)


def predict_run(key: str) -> RunPrediction:
    """predicted / measured throughput of a published run: the step model's tokens per second per GPU on the run's own
    layout, model, GPUs and links, over the figure its source measured."""
    run = _all_runs()[one_of("key", key, tuple(_all_runs()))]
    step = _step_at(run, run.precision)
    predicted = step.tokens_per_second / run.setup.gpus
    measured = measured_tokens_per_second_per_gpu(run)
    return RunPrediction(run, step, measured=measured, predicted=predicted, ratio=predicted / measured)


@dataclass(frozen=True)
class PrecisionSteps:
    """A published run's step timed by the step model twice on its own layout, model, GPUs and links: its matrix
    multiplies in BF16, then in FP8."""

    run: MeasuredRun
    bf16: StepTime
    fp8: StepTime
    speedup: float = quantity("BF16 step / FP8 step", "times")
    matmul_speedup: float = quantity("the matrix multiplies' time in BF16 / in FP8", "times")
    peak_ratio: float = quantity("the GPU's FP8 peak / its BF16 peak", "times")
    matmul_share: float = quantity("the matrix multiplies' share of the BF16 step", "percent")
    bf16_rate_share: float = quantity("best measured BF16 matrix-multiply rate / BF16 peak", "percent")
    fp8_rate_share: float = quantity("best measured FP8 matrix-multiply rate / FP8 peak", "percent")


def precision_steps(key: str) -> PrecisionSteps:
    """A published run's step in BF16 and in FP8: speed-up = step(BF16) / step(FP8), both the step model's on the
    run's own layout, model, sequence, batch, GPUs and links. In FP8 only the matrix multiplies change: they run at the
    FP8 peak times the chip's measured FP8 matrix-multiply share, pay the online quantisation of their inputs, and the
    output layer stays in BF16 (DeepSeek-V3 §3.3). Attention, memory-bound kernels and communication keep their BF16
    time, the pipeline's bubble shrinks only with the busy time, and less data-parallel traffic hides behind the
    shorter compute: the step gains less than its matrix multiplies (Amdahl's law), and they less than the peaks'
    ratio."""
    run = _all_runs()[one_of("key", key, tuple(_all_runs()))]
    chips = {p: gpu_preset(run.gpu, run.scale_up, run.scale_out, p) for p in ("bf16", "fp8")}
    bf16, fp8 = _step_at(run, "bf16"), _step_at(run, "fp8")
    return PrecisionSteps(run, bf16, fp8, speedup=bf16.step_seconds / fp8.step_seconds,
                          matmul_speedup=bf16.gemm_seconds / fp8.gemm_seconds,
                          peak_ratio=chips["fp8"].peak_flops / chips["bf16"].peak_flops,
                          matmul_share=bf16.gemm_seconds / bf16.step_seconds,
                          bf16_rate_share=chips["bf16"].matmul_share, fp8_rate_share=chips["fp8"].matmul_share)


@dataclass(frozen=True)
class ValidationSummary:
    """How well the step model predicts a set of measured runs."""

    runs: int = quantity("runs compared", "integer")
    band: float = quantity("the band a prediction counts as close within, ±", "percent")
    geometric_mean: float = quantity("geometric mean of predicted / measured", "times")
    within_band: float = quantity("share of runs whose prediction lies within the band", "percent")
    worst: float = quantity("the largest |ratio − 1|", "percent")
    mean_abs_error: float = quantity("mean |ratio − 1|", "percent")


def fsdp_only(run: MeasuredRun) -> bool:
    """A run trained by a PyTorch FSDP trainer with data parallelism (ZeRO-3) over every GPU, nothing else cut."""
    return run.setup.framework != "megatron" and run.setup.gpus == run.setup.dp


def validation_summary(fit: "bool | None" = None, fsdp: "bool | None" = None, unseen: str = "") -> ValidationSummary:
    """Over the published runs (those the constants were fitted on, the others, or all; FSDP-only, the others, or all;
    the validation runs, or one held-out table's): the geometric mean of predicted / measured throughput, the share of
    runs within ±15%, the worst and the mean |ratio − 1|."""
    runs = unseen_runs(one_of("unseen", unseen, unseen_tables())) if unseen else measured_runs()
    ratios = [predict_run(k).ratio for k, r in runs.items()
              if (fit is None or r.fit == fit) and (fsdp is None or fsdp_only(r) == fsdp)]
    if not ratios:
        raise EstimatorError("fit", fit, "a selection holding at least one run")
    errors = [abs(r - 1) for r in ratios]
    return ValidationSummary(
        runs=len(ratios), band=CLOSE_BAND, geometric_mean=math.exp(sum(math.log(r) for r in ratios) / len(ratios)),
        within_band=sum(e <= CLOSE_BAND for e in errors) / len(ratios), worst=max(errors),
        mean_abs_error=sum(errors) / len(errors))


def worst_predicted_runs(count: int = 2) -> tuple:
    """The keys of the `count` published runs the step model misses most, the worst first: largest |predicted /
    measured − 1|."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise EstimatorError("count", count, "a whole number of runs, at least 1")
    ratios = {key: predict_run(key).ratio for key in measured_runs()}
    return tuple(sorted(ratios, key=lambda key: -abs(ratios[key] - 1))[:count])


def _setup(where: str, raw: dict) -> Setup:
    try:
        return Setup(**raw)
    except TypeError as error:
        raise EstimatorError(where, raw, f"Setup's fields ({error})") from None
    except EstimatorError as error:
        raise EstimatorError(f"{where}.{error.argument}", error.value, error.allowed) from None


def _build(data: dict) -> dict:
    from .presets import load_presets
    presets = load_presets()
    runs = {}
    for key, raw in data.get("runs", {}).items():
        where = f"runs.{key}"
        if "model" in raw:
            config = presets.model(raw["model"]).config
        else:
            try:
                config = DecoderConfig(**raw["config"])
            except EstimatorError as error:
                raise EstimatorError(f"{where}.config.{error.argument}", error.value, error.allowed) from None
        measured = raw["measured"]
        if not any(k in measured for k in ("tflops_per_gpu", "step_seconds", "tokens_per_second_per_gpu",
                                           "gpu_hours_per_trillion_tokens")):
            raise EstimatorError(f"{where}.measured", measured, "one measured figure")
        if "tflops_per_gpu" in measured:
            one_of(f"{where}.measured.counting", measured.get("counting"), FLOP_COUNTINGS)
        if not raw.get("source"):
            raise EstimatorError(f"{where}.source", "", "the run's source: paper and table")
        if raw.get("unseen") and raw["fit"]:
            raise EstimatorError(f"{where}.fit", raw["fit"], "false: a held-out run fits nothing")
        runs[key] = MeasuredRun(
            key, raw["name"], config, raw["gpu"], scale_up=raw["scale_up"], scale_out=raw["scale_out"],
            precision=raw.get("precision", "bf16"), seq_len=raw["seq_len"], global_batch=raw["global_batch"],
            setup=_setup(f"{where}.setup", raw["setup"]), measured=measured, fit=raw["fit"], source=raw["source"],
            unseen=raw.get("unseen", ""))
    return runs


@cache
def _all_runs() -> dict:
    return data_file.load(__package__, "step_runs.toml", _build)


@cache
def measured_runs() -> dict:
    """The published runs the step model is validated against, each with its source, layout and measured figure, every
    value checked as it is read: the held-out runs aside."""
    return {key: run for key, run in _all_runs().items() if not run.unseen}


def unseen_tables() -> tuple:
    """The published tables whose runs were held out: checked on after the model was built, never fitted on."""
    return tuple(dict.fromkeys(run.unseen for run in _all_runs().values() if run.unseen))


def unseen_runs(table: str) -> dict:
    """The held-out runs of one published table, each with its source, layout and measured figure."""
    one_of("table", table, unseen_tables())
    return {key: run for key, run in _all_runs().items() if run.unseen == table}
