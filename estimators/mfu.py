"""Where a training run's time goes: one step's, from the GPUs' peak down to its MFU, then the run's, down to the
share of its wall-clock that trains.

The step is the step model's (estimators/step_time.py): its terms are read
from its StepTime and BlockTerms, not computed again. The waterfall starts at
the time the step's model FLOPs would take at the GPUs' BF16 peak, the
denominator of MFU (PaLM, appendix B), and adds one bar per loss until it
reaches the step's time; the first bar over the step is the MFU, and each
bar over the step is its share of peak lost. Outside the step, a run loses
time to data it waits for, to checkpoint saves, and to failures: the work a
failure throws away and the restart (estimators/checkpoint.py).
"""

import dataclasses
from dataclasses import dataclass

from .checkpoint import effective_training_time
from .errors import EstimatorError
from .presets import load_presets
from .provenance import quantity, quantity_of
from .step_runs import measured_runs, measured_tokens_per_second_per_gpu
from .step_time import (Gpu, LayoutTerms, Setup, Shape, block_terms, flash_attention_seconds, framework_compute_share,
                        gpu_preset, shape_of, step_seconds, unfused_attention_seconds)
from .validate import finite_result, non_negative, one_of, positive


@dataclass(frozen=True)
class WaterfallBar:
    """One bar of a step's waterfall: what it stands for, its seconds, and its share of the step."""

    name: str  # the StepWaterfall field it reads
    label: str  # what a reader reads: the field's declared note
    seconds: float = quantity("seconds of the step on its busiest GPU", "duration")
    share: float = quantity("seconds / the step's seconds: the share of peak the bar stands for", "percent")


@dataclass(frozen=True)
class StepWaterfall:
    """One step's time on its busiest GPU, from the step at peak up to the step the model predicts, one bar a loss.

    Every field ending in _seconds but the step's is a bar, in this order; they add up to step_seconds exactly."""

    peak_seconds: float = quantity("the model's arithmetic at peak", "duration")
    stage_imbalance_seconds: float = quantity("uneven pipeline stages", "duration")
    matmul_seconds: float = quantity("matrix multiplies' shapes", "duration")
    attention_seconds: float = quantity("attention", "duration")
    memory_bound_seconds: float = quantity("memory-bound kernels", "duration")
    framework_seconds: float = quantity("the FSDP trainer's costs", "duration")
    recompute_seconds: float = quantity("recomputation", "duration")
    tp_seconds: float = quantity("tensor-parallel traffic", "duration")
    cp_seconds: float = quantity("context-parallel traffic", "duration")
    ep_seconds: float = quantity("expert-parallel traffic", "duration")
    pp_seconds: float = quantity("pipeline sends", "duration")
    bubble_seconds: float = quantity("the pipeline's bubble", "duration")
    dp_seconds: float = quantity("data-parallel traffic", "duration")
    optimizer_seconds: float = quantity("the optimizer step", "duration")
    step_seconds: float = quantity("the step the model predicts", "duration")
    mfu: float = quantity("the step at peak / the step: model FLOPs utilisation", "percent")
    tokens_per_second_per_gpu: float = quantity("tokens of a step / (step × GPUs)", "si", unit="tokens/s")
    bars: tuple = ()  # WaterfallBar of each loss, peak first, in the order above

    @property
    def losses(self) -> tuple:
        """The bars past the first: each a loss on the way from peak to the step."""
        return self.bars[1:]


# The bars, in order: every seconds field of StepWaterfall but the step itself.
BAR_FIELDS = tuple(f.name for f in dataclasses.fields(StepWaterfall)
                   if f.name.endswith("_seconds") and f.name != "step_seconds")


def step_waterfall(shape: Shape, setup: Setup, gpu: Gpu, seq_len: int, global_batch: int) -> StepWaterfall:
    """step = t_peak + Σ losses, t_peak = model FLOPs / (GPUs × BF16 peak), MFU = t_peak / step (PaLM, appendix B).

    From the step model's terms (step_seconds) on the busiest GPU, whose stage
    does F_b model FLOPs, F_a of them attention's, against F/GPUs on average:
    stage imbalance (F_b − F/GPUs)/peak; matrix multiplies s·t_gemm − (F_b −
    F_a)/peak and attention s·t_attn − F_a/peak, s the framework's compute
    share (1 for Megatron-LM), negative where FP8 matrix multiplies beat the
    BF16 peak; memory-bound kernels s·(t_mem − c); the FSDP trainer's own
    costs (1 − s)·(t_gemm + t_attn + t_mem − c) + c, c FSDP's copies;
    recomputation, exposed TP, CP, EP, the pipeline's sends and bubble,
    exposed DP and the optimizer as the step model counts them.
    """
    if shape.heads % setup.tp:  # Megatron-LM's column split gives each GPU whole heads
        raise EstimatorError("tp", setup.tp, f"a divisor of the model's {shape.heads} attention heads")
    step = step_seconds(shape, setup, gpu, seq_len, global_batch)  # checks every other argument
    block = block_terms(shape, setup, gpu, seq_len)
    layout = LayoutTerms(shape, setup, gpu, seq_len=seq_len, global_batch=global_batch, block=block)
    attention = (flash_attention_seconds if setup.attention == "flash" else unfused_attention_seconds)(
        shape, setup, seq_len, gpu)
    peak, m = gpu.attention_peak_flops, step.micro_batches
    busiest_flops = m * (layout.blocks * block.flops + (block.head_flops if layout.head else 0.0))
    attention_flops = m * layout.blocks * attention.flops
    average_flops = step.model_flops / setup.gpus
    share = framework_compute_share(setup.framework)
    copies = m * layout.copies(setup.zero_stage)
    compute = step.gemm_seconds + step.attention_seconds + step.memory_bound_seconds - copies
    seconds = dict(
        peak_seconds=average_flops / peak,
        stage_imbalance_seconds=(busiest_flops - average_flops) / peak,
        matmul_seconds=share * step.gemm_seconds - (busiest_flops - attention_flops) / peak,
        attention_seconds=share * step.attention_seconds - attention_flops / peak,
        memory_bound_seconds=share * (step.memory_bound_seconds - copies),
        framework_seconds=(1 - share) * compute + copies,
        recompute_seconds=step.recompute_seconds, tp_seconds=step.tp_seconds, cp_seconds=step.cp_seconds,
        ep_seconds=step.ep_seconds, pp_seconds=step.pp_seconds, bubble_seconds=step.bubble_seconds,
        dp_seconds=step.dp_exposed_seconds, optimizer_seconds=step.optimizer_seconds)
    bars = tuple(WaterfallBar(name, quantity_of(StepWaterfall, name).note, seconds[name], seconds[name] / step.step_seconds)
                 for name in BAR_FIELDS)
    return StepWaterfall(**seconds, step_seconds=step.step_seconds, mfu=step.mfu,
                         tokens_per_second_per_gpu=step.tokens_per_second / setup.gpus, bars=bars)


def _published_run(key: str):
    return measured_runs()[one_of("key", key, tuple(measured_runs()))]


def published_run_waterfall(key: str) -> StepWaterfall:
    """A published run's step, peak first and one bar a loss, on its own model, GPUs, links, layout and framework: the
    step model's prediction for it, bar by bar."""
    run = _published_run(key)
    gpu = gpu_preset(run.gpu, run.scale_up, run.scale_out, run.precision)
    return step_waterfall(shape_of(run.config), run.setup, gpu, run.seq_len, run.global_batch)


@dataclass(frozen=True)
class RelaidRun:
    """A published run's sequences and batch, with its model or another, on a layout, framework and GPU of the
    reader's, beside what the run measured on its own; nothing to set beside a model the run did not train."""

    waterfall: StepWaterfall
    measured: "float | None" = quantity("tokens per second per GPU, as the source measured it on the run's own layout",
                                        "si", unit="tokens/s")
    ratio: "float | None" = quantity("predicted on this layout / measured on the run's own", "times")
    own_layout: bool = False  # the run's own model, layout, framework, GPU and links: the ratio is the validation's


def relaid_run(key: str, setup: Setup, gpu: str, model="", *, scale_up: str = "", scale_out: str = "") -> RelaidRun:
    """predicted / measured tokens per second per GPU: the step model on the run's sequence, batch and precision, with
    its model, a preset model (`model`, a models key) or a reader's configuration (a DecoderConfig or MoeConfig), on a
    layout, GPU and links (one inside a server, one between servers: interconnects keys, the run's own when
    empty) of the reader's, over the source's measurement of the run; no measurement (None) unless the model, GPU
    and links are the run's own: no one measured another model or cluster there."""
    run = _published_run(key)
    if not isinstance(setup, Setup):
        raise EstimatorError("setup", setup, "a layout (Setup)")
    config = load_presets().model(model).config if isinstance(model, str) and model else model or run.config
    up, out = scale_up or run.scale_up, scale_out or run.scale_out
    chip = gpu_preset(gpu, up, out, run.precision)
    waterfall = step_waterfall(shape_of(config), setup, chip, run.seq_len, run.global_batch)
    if (config, gpu, up, out) != (run.config, run.gpu, run.scale_up, run.scale_out):
        return RelaidRun(waterfall, None, None)
    measured = measured_tokens_per_second_per_gpu(run)
    return RelaidRun(waterfall, measured, waterfall.tokens_per_second_per_gpu / measured, own_layout=setup == run.setup)


@dataclass(frozen=True)
class RunTime:
    """What a run loses outside its steps, from the step's MFU down to the run's: data waits, checkpoint saves,
    the work failures throw away, and restarts."""

    data_wait_seconds: float = quantity("per step: the batch's read beyond the step it is prefetched behind", "duration")
    data_share: float = quantity("data waits / the window", "percent")
    checkpoint_share: float = quantity("checkpoint saves / the window", "percent")
    lost_work_share: float = quantity("work thrown away by failures / the window", "percent")
    restart_share: float = quantity("restarts / the window", "percent")
    effective_share: float = quantity("the window's share spent in training steps", "percent")
    step_mfu: float = quantity("the step's MFU", "percent")
    run_mfu: float = quantity("the step's MFU × the effective share: the run's MFU over its wall-clock", "percent")


def run_time_losses(step_seconds: float, step_mfu: float, batch_bytes: float, read_bytes_per_s: float, *,
                    window_s: float, interruptions: int, checkpoint_interval_s: float, checkpoint_stall_s: float,
                    restart_s: float = 0.0) -> RunTime:
    """effective = (W − n·τ/2 − n·tᵣ − (W/τ)·δ)/W × step/(step + wait), wait = max(0, batch bytes / read rate −
    step): the next batch is read while the step runs (a data loader's prefetch), so only a read longer than the step
    waits; failures as the effective training time counts them (Llama 3 §3.3.4 reports more than 90% effective
    training time); run MFU = step MFU × effective."""
    step = positive("step_seconds", step_seconds)
    if not 0 < positive("step_mfu", step_mfu) <= 1:
        raise EstimatorError("step_mfu", step_mfu, "a share of peak above 0, at most 1")
    read = non_negative("batch_bytes", batch_bytes) / positive("read_bytes_per_s", read_bytes_per_s)
    wait = max(0.0, read - step)
    kept = effective_training_time(window_s, interruptions, checkpoint_interval_s, restart_s=restart_s,
                                   checkpoint_stall_s=checkpoint_stall_s)
    stepping, waiting = (kept.effective_share * share for share in (step / (step + wait), wait / (step + wait)))
    window = kept.window_s
    return RunTime(data_wait_seconds=wait, data_share=waiting,
                   checkpoint_share=kept.checkpoint_stall_s / window, lost_work_share=kept.lost_work_s / window,
                   restart_share=kept.restart_s / window, effective_share=stepping, step_mfu=step_mfu,
                   run_mfu=finite_result("step_mfu", step_mfu * stepping))
