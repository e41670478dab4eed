"""A training run, estimated end to end: compute, fleet, time, and the bytes it moves.

Composes the topic modules so that pages, the CLI, widgets and tests share one
arithmetic: C = 6ND (compute), GPUs × dense peak × MFU (hardware), the
dataset at a token-id width (storage), the training state and its checkpoint
(memory, checkpoint). The formulas and their sources are in those modules.
A training stage's range (stage_span) spans its published runs.
"""

from dataclasses import dataclass

from .checkpoint import RELEASED_WEIGHT_BYTES, checkpoint_bytes, weights_bytes
from .compute import training_flops
from .finetune import ADAPTER_WEIGHT_BYTES, lora_decoder_params
from .hardware import delivered_flops, fleet_peak_flops, gpu_hours, seconds_for_gpu_hours, training_seconds
from .memory import model_state_bytes
from .presets import address_of, load_presets
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
    return run_estimate(run.params, run.tokens, run.gpus, peak, mfu=run.mfu, token_bytes=token_id_bytes(vocab))


@dataclass(frozen=True)
class StageRun:
    """One published run of a training stage: a point inside the stage's range."""

    name: str
    address: str  # where its figures live in presets.toml ("stages.sft", "runs.llama3-405b")
    gpus: int = quantity("GPUs the run trained on", "integer")
    seconds: float = quantity("wall-clock time: as reported, from GPU-hours over GPUs, or ideal at the run's MFU",
                              "duration", of=seconds_for_gpu_hours)
    gpu_hours: float = quantity("GPU-hours: as reported, or GPUs × wall-clock hours", "count", of=gpu_hours)
    tokens: float | None = quantity("training tokens, where published", "count")
    examples: int | None = quantity("training examples, where published", "count")
    artifact_bytes: float | None = quantity("what it hands on: its model's weights as released, or a 16-bit adapter", "bytes",
                                            of=weights_bytes)
    dataset_bytes: float | None = quantity("what it reads: its tokens as ids of its model's vocabulary, where both are named",
                                           "bytes", of=dataset_bytes)
    # Which of its figures the run's report gives ("seconds" or "gpu_hours"; the other is derived from
    # it), or "" when both are this site's ideal estimate at the run's MFU; then the GPU-hours its
    # publisher reports, if any, and that MFU, so that a reader is told which figure is whose.
    reported: str = ""
    gpu_hours_reported: float | None = quantity("GPU-hours its publisher reports, where its figures are estimated", "count",
                                          default=None)
    mfu: float | None = quantity("the MFU an estimated run is timed at", "percent", default=None)
    artifact_precision: str = ""  # what its artifact's bytes are in: "bf16", "fp8" (a model as released) or "lora"
    artifact_model: str = ""  # the name of the model whose weights it hands on, if any


@dataclass(frozen=True)
class StageSpan:
    """A training stage's range: from the smallest to the largest of its published runs (None where none says)."""

    runs: tuple  # StageRun, in the order presets.toml lists them
    gpus_low: int = quantity("GPUs, the stage's smallest published run", "integer")
    gpus_high: int = quantity("GPUs, the stage's largest published run", "integer")
    seconds_low: float = quantity("wall-clock time, the stage's shortest published run", "duration")
    seconds_high: float = quantity("wall-clock time, the stage's longest published run", "duration")
    gpu_hours_low: float = quantity("GPU-hours, the stage's cheapest published run", "count")
    gpu_hours_high: float = quantity("GPU-hours, the stage's costliest published run", "count")
    tokens_low: float | None = quantity("training tokens, the fewest a published run gives", "count")
    tokens_high: float | None = quantity("training tokens, the most a published run gives", "count")
    examples_low: int | None = quantity("training examples, the fewest a published run gives", "count")
    examples_high: int | None = quantity("training examples, the most a published run gives", "count")
    artifact_low: float | None = quantity("bytes handed on, the smallest published artifact", "bytes")
    artifact_high: float | None = quantity("bytes handed on, the largest published artifact", "bytes")
    dataset_low: float | None = quantity("bytes read, the smallest published run's token ids", "bytes")
    dataset_high: float | None = quantity("bytes read, the largest published run's token ids", "bytes")


def _model_of(presets, entry):
    """The model a run trains: the one its fine-tuning setup adapts, or the one it names; None if neither."""
    if getattr(entry, "finetune", None) is not None:
        return presets.model(presets.finetune(entry.finetune).model)
    return presets.model(entry.model) if getattr(entry, "model", None) is not None else None


def _dataset_bytes(presets, entry, tokens) -> float | None:
    """The run's tokens stored as ids of its model's vocabulary; None unless it names both."""
    model = _model_of(presets, entry)
    if tokens is None or model is None:
        return None
    return dataset_bytes(tokens, token_id_bytes(model.config.vocab))


def _released_bytes(model) -> float:
    """A model's weights as its publisher released them: BF16, or FP8 for a model trained and shipped in FP8."""
    return weights_bytes(model.params, RELEASED_WEIGHT_BYTES[model.released_precision])


def _artifact(presets, entry) -> tuple:
    """(bytes, precision, model name) of what a run hands on: its model's weights as released, or its
    16-bit LoRA adapter ("lora"); (None, "", "") if it names neither."""
    if getattr(entry, "finetune", None) is not None:
        setup = presets.finetune(entry.finetune)
        adapter = lora_decoder_params(presets.model(setup.model).config, setup.rank, setup.modules)
        return weights_bytes(adapter, ADAPTER_WEIGHT_BYTES), "lora", ""
    if entry.model is None:
        return None, "", ""
    model = presets.model(entry.model)
    return _released_bytes(model), model.released_precision, model.name


def _stage_run(presets, entry) -> StageRun:
    """A run of the stages or stage_runs table: its time from whichever of seconds and GPU-hours it reports."""
    if entry.seconds is not None:
        seconds, hours, reported = entry.seconds, gpu_hours(entry.seconds, entry.gpus), "seconds"
    else:
        seconds, hours, reported = seconds_for_gpu_hours(entry.gpu_hours, entry.gpus), entry.gpu_hours, "gpu_hours"
    # A stage names its run by its example; a run of stage_runs by its name.
    artifact, precision, model = _artifact(presets, entry)
    return StageRun(getattr(entry, "example", entry.name), address_of(entry), entry.gpus, seconds, gpu_hours=hours,
                    tokens=entry.tokens, examples=entry.examples,
                    artifact_bytes=artifact, dataset_bytes=_dataset_bytes(presets, entry, entry.tokens),
                    reported=reported,
                    artifact_precision=precision, artifact_model=model)


def _span(values: list) -> tuple:
    """(smallest, largest) of the values a run gives, or (None, None) when none gives one."""
    given = [v for v in values if v is not None]
    return (min(given), max(given)) if given else (None, None)


def stage_span(key: str) -> StageSpan:
    """A stage's range: the least to the most GPUs, time and GPU-hours of its published runs.

    The same for its data and for the bytes it hands on. `key` names the stage. Its runs are the stage's own, the stage_runs that name it, and the training run it names
    (Llama 3 405B for pretraining, timed at its MFU as run_preset_estimate does).
    """
    presets = load_presets()
    stage = presets.stage(key)
    runs = [_stage_run(presets, stage)]
    runs += [_stage_run(presets, r) for r in presets.stage_runs.values() if r.stage == key]
    if stage.run is not None:
        run = presets.run(stage.run)
        e = run_preset_estimate(stage.run)
        model = presets.model(run.model)
        runs.append(StageRun(run.name, address_of(run), run.gpus, e.seconds, gpu_hours=e.gpu_hours, tokens=run.tokens,
                             examples=None,
                             artifact_bytes=_released_bytes(model),
                             dataset_bytes=_dataset_bytes(presets, run, run.tokens), reported="",
                             gpu_hours_reported=run.gpu_hours_reported, mfu=run.mfu,
                             artifact_precision=model.released_precision, artifact_model=model.name))
    return StageSpan(
        tuple(runs),
        *_span([r.gpus for r in runs]), *_span([r.seconds for r in runs]), *_span([r.gpu_hours for r in runs]),
        *_span([r.tokens for r in runs]),
        *_span([r.examples for r in runs]), *_span([r.artifact_bytes for r in runs]), *_span([r.dataset_bytes for r in runs]),
    )
