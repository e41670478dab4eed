"""Command line over the estimators: ``python -m estimators <what> [options] [--json]``.

Prints each result with the site's units (``units``), or with ``--json`` the
raw SI numbers. A value outside an estimator's domain exits with status 2 and
the estimator's message, naming the argument.
"""

import argparse
import dataclasses
import json
import math
import sys

from . import units
from .checkpoint import checkpoint_bytes, effective_training_time, lost_work_seconds, mtbf_seconds, weights_bytes
from .compute import (
    CHINCHILLA_TOKENS_PER_PARAM,
    compute_multiple,
    compute_optimal,
    tokens_per_param,
    training_flops,
    training_flops_with_attention,
)
from .errors import EstimatorError
from .finetune import LLAMA_MODULES, METHODS, QUANTIZATION_BITS, finetune_breakdown, lora_trainable_params
from .run import run_estimate, run_preset_estimate
from .memory import (OPTIMIZER_STATE_BYTES, RECOMPUTE, activation_bytes, model_activation_bytes, model_state_bytes,
                     zero_breakdown)
from .model_size import DecoderConfig, decoder_params
from .moe import MoeConfig, moe_params
from .presets import load_presets
from .scaling import FITS, chinchilla_optimal
from .step_time import ATTENTION_KERNELS
from .storage import storage_footprint
from .validate import one_of


def number(text: str) -> "int | float":
    """A whole number stays an int (GPU counts, ZeRO stages); anything else is a float."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


# Options that mean something only together, per command: (a preset that sets them, or None; the
# group; those of it a command without the preset needs, or None for an optional group: all or none).
# A part of a group would otherwise be ignored without a word.
GROUPS = {
    "flops": (None, ("--layers", "--heads", "--head-dim", "--seq-len"), None),
    "time": ("--run", ("--params", "--tokens", "--gpus", "--mfu", "--gpu", "--precision"), ("--params", "--tokens", "--gpus", "--mfu")),
    "activations": ("--model", ("--hidden", "--heads", "--layers"), ("--hidden", "--heads", "--layers")),
    "failures": ("--preset", ("--interruptions", "--window-s", "--checkpoint-interval-s"),
                 ("--interruptions", "--window-s", "--checkpoint-interval-s")),
}
# The smallest value of an option that still means something, as each widget field has one: a
# subnormal 1e-320 parameters once printed "2e-320 B" of weights. {option: (minimum, what it is)}
MINIMUMS = {
    "--params": (1, "one parameter"),
    "--tokens": (1, "one token"),
    "--flops": (1, "one FLOP"),
    "--mfu": (0.001, "a thousandth of peak: below it the GPUs are idle, not training"),
    "--window-s": (1, "a second"),
    "--checkpoint-interval-s": (0.01, "a hundredth of a second: no training step is shorter"),
    "--tokens-per-param": (1e-4, "about what a short fine-tune of a large model reads per parameter"),
}
# An estimator argument set by an option of another name.
ARGUMENT_OPTIONS = {"failure": "--preset"}


def _group_error(command: str, given: dict) -> str | None:
    """What is wrong with the options `given` ({option: text}) as the command's groups go, or None."""
    if command not in GROUPS:
        return None
    preset, group, needed = GROUPS[command]
    present = [o for o in group if o in given]
    if preset and preset in given:
        return f"{preset} sets {_listed(present)} itself: give {preset} alone, or those options without it" if present else None
    needed = needed if needed is not None else group if present else ()
    if missing := [o for o in needed if o not in given]:
        alternative = f", or {preset} alone" if preset else ""
        return f"{_listed(missing)} missing: {_listed(needed)} go together{alternative}"
    return None


def _listed(options) -> str:
    return options[0] if len(options) == 1 else ", ".join(options[:-1]) + " and " + options[-1]


def typed_options(argv: list) -> dict:
    """{option: its value as typed, "" for a flag} of the options in `argv`."""
    given = {}
    for i, word in enumerate(argv):
        if not word.startswith("--"):
            continue
        option, equals, value = word.partition("=")
        if equals:
            given[option] = value
        elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            given[option] = argv[i + 1]
        else:
            given[option] = ""  # a flag
    return given


def _flops(a):
    if a.seq_len is None:
        c = training_flops(a.params, a.tokens)
    else:
        c = training_flops_with_attention(a.params, a.tokens, a.layers, a.heads, head_dim=a.head_dim, seq_len=a.seq_len)
    return [("training_flops", c, units.sci(c) + " FLOPs"),
            ("tokens_per_param", tokens_per_param(a.params, a.tokens), units.integer(tokens_per_param(a.params, a.tokens))),
            ("compute_multiple", compute_multiple(a.params, a.tokens), units.times(compute_multiple(a.params, a.tokens)))]


def _time(a):
    presets = load_presets()
    if a.run:
        e = run_preset_estimate(a.run)
    else:
        peaks = presets.gpu(a.gpu).peak_flops
        e = run_estimate(a.params, a.tokens, a.gpus, peaks[one_of("precision", a.precision, peaks)], mfu=a.mfu)
    return [("training_flops", e.flops, units.sci(e.flops) + " FLOPs"),
            ("fleet_peak_flops", e.fleet_peak_flops, units.si(e.fleet_peak_flops, "FLOP/s")),
            ("delivered_flops", e.delivered_flops, units.si(e.delivered_flops, "FLOP/s")),
            ("training_seconds", e.seconds, units.duration(e.seconds)),
            ("gpu_hours", e.gpu_hours, units.count(e.gpu_hours))]


def _params(a):
    model = load_presets().model(a.model)
    if isinstance(model.config, MoeConfig):
        p = moe_params(model.config)
        return [("total", p.total, units.count(p.total)), ("active", p.active, units.count(p.active))]
    b = decoder_params(model.config)
    return [(f.name, getattr(b, f.name), units.integer(getattr(b, f.name))) for f in dataclasses.fields(b)]


def _memory(a):
    b = zero_breakdown(a.params, a.gpus, a.stage, a.optimizer)
    rows = [(f.name, getattr(b, f.name), units.bytes_(getattr(b, f.name))) for f in dataclasses.fields(b)]
    return rows + [("model_state_bytes", model_state_bytes(a.params, a.optimizer), units.bytes_(model_state_bytes(a.params, a.optimizer)))]


def _activations(a):
    if a.model:
        # A preset's own blocks (its MLP, key/value heads and dropout) and output layer under the kernel asked for:
        # the one activation model the memory bill, the planner and the step model read.
        b = model_activation_bytes(load_presets().model(a.model).config, a.seq_len, a.micro_batch, a.tp,
                                   sequence_parallel=a.sequence_parallel, recompute=a.recompute, attention=a.attention)
    else:
        if a.attention != "unfused":
            raise EstimatorError("attention", a.attention, "unfused without --model: Korthikanti et al.'s GPT block")
        b = activation_bytes(a.seq_len, a.micro_batch, a.hidden, a.heads, layers=a.layers, tp=a.tp,
                             sequence_parallel=a.sequence_parallel, recompute=a.recompute)
    return [("activation_bytes", b, units.bytes_(b))]


def _checkpoint(a):
    return [("checkpoint_bytes", checkpoint_bytes(a.params), units.bytes_(checkpoint_bytes(a.params))),
            ("checkpoint_bytes_with_gradients", checkpoint_bytes(a.params, True), units.bytes_(checkpoint_bytes(a.params, True))),
            ("weights_bytes", weights_bytes(a.params), units.bytes_(weights_bytes(a.params)))]


def _failures(a):
    if a.preset:
        f = load_presets().failure(a.preset)
        interruptions, window, interval = f.interruptions, f.window_seconds, f.checkpoint_interval_seconds
    else:
        interruptions, window, interval = a.interruptions, a.window_s, a.checkpoint_interval_s
    e = effective_training_time(window, interruptions, interval)
    lost = lost_work_seconds(interruptions, interval)
    return [("mtbf_seconds", mtbf_seconds(interruptions, window), units.duration(mtbf_seconds(interruptions, window))),
            ("lost_work_seconds", lost, units.duration(lost)),
            ("lost_share", lost / window, units.percent(lost / window)),
            ("effective_share", e.effective_share, units.percent(e.effective_share))]


def _storage(a):
    s = storage_footprint(a.params, a.tokens_per_param, a.bytes_per_token, a.checkpoints_kept,
                          include_gradients=a.include_gradients)
    return [(f.name, getattr(s, f.name), units.count(s.tokens) if f.name == "tokens" else units.bytes_(getattr(s, f.name)))
            for f in dataclasses.fields(s)]


def _lora(a):
    t = lora_trainable_params(a.d_model, a.rank, a.modules, a.layers)
    return [("trainable_params", t, units.count(t))]


def _finetune(a):
    # The pages' and the widget's model of a fine-tune (finetune_breakdown), so one fine-tune reads one figure everywhere.
    config = load_presets().model(a.model).config
    if not isinstance(config, DecoderConfig):
        raise EstimatorError("model", a.model, "a dense model preset (the fine-tune model counts no experts)")
    typed = {"rank": a.rank, "modules": tuple(a.modules.split(",")) if a.modules else None}
    m = finetune_breakdown(a.method, config, quantization=a.quantization,
                           optimizer=a.optimizer, **{name: value for name, value in typed.items() if value is not None})
    frozen = m.base_quantized_bytes + m.base_16bit_bytes
    trained = m.trainable_weights_bytes + m.gradients_bytes + m.optimizer_bytes
    return [("trainable_params", m.trainable_params, units.count(m.trainable_params)),
            ("trainable_share", m.trainable_share, units.percent(m.trainable_share)),
            ("frozen_bytes", frozen, units.bytes_(frozen)),
            ("trainable_bytes", trained, units.bytes_(trained)),
            ("total", m.total, f"{units.bytes_(m.total)} ({units.bytes_(m.total, binary=True)})")]


def _optimal(a):
    if a.fit == "rule":
        n, d = compute_optimal(a.flops)
    else:
        n, d = chinchilla_optimal(a.flops, a.fit)
    return [("params", n, units.count(n)), ("tokens", d, units.count(d)), ("tokens_per_param", d / n, units.number(d / n))]


def _presets(a):
    p = load_presets()
    tables = {field.name: getattr(p, field.name) for field in dataclasses.fields(p)}  # every table, new ones too
    return [(f"{table}.{key}", item.name, item.name) for table, items in tables.items() for key, item in items.items()]


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m estimators", description="Estimate LLM training compute, time, memory, storage and fine-tuning cost.")
    sub = root.add_subparsers(dest="command", required=True, metavar="what")

    def command(name, handler, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--json", action="store_true", help="print raw SI numbers as JSON")
        p.set_defaults(handler=handler)
        return p

    def arg(p, name, help_text, **kw):
        p.add_argument(name, type=number, help=help_text, **kw)

    p = command("flops", _flops, "training compute C = 6ND (optionally + PaLM's attention term), tokens/param, multiple of Chinchilla-optimal")
    arg(p, "--params", "N, parameters", required=True)
    arg(p, "--tokens", "D, training tokens", required=True)
    for name in ("--layers", "--heads", "--head-dim", "--seq-len"):
        arg(p, name, "attention term (all four, or none)")

    p = command("time", _time, "ideal wall-clock and GPU-hours of a run (a run preset, or N, D, GPUs, GPU preset, precision, MFU)")
    p.add_argument("--run", help="a run preset, e.g. llama3-405b")
    arg(p, "--params", "N, parameters")
    arg(p, "--tokens", "D, training tokens")
    arg(p, "--gpus", "GPU count")
    p.add_argument("--gpu", default="h100-sxm", help="a GPU preset (h100-sxm unless given)")
    p.add_argument("--precision", default="bf16", help="bf16 or fp8 (bf16 unless given)")
    arg(p, "--mfu", "model FLOPs utilisation, 0 < MFU <= 1")

    p = command("params", _params, "parameter count of a model preset (breakdown; total and active for MoE)")
    p.add_argument("--model", required=True, help="a model preset, e.g. llama3-8b, deepseek-v3")

    p = command("memory", _memory, "model-state bytes per GPU under ZeRO stage 0-3")
    arg(p, "--params", "N, parameters", required=True)
    arg(p, "--gpus", "data-parallel GPUs", default=1)
    arg(p, "--stage", "ZeRO stage 0-3", default=0)
    p.add_argument("--optimizer", default="adam", help=", ".join(OPTIMIZER_STATE_BYTES))

    p = command("activations", _activations, "activation bytes per GPU (Korthikanti et al. 2022)")
    for name, h in (("--seq-len", "sequence length"), ("--micro-batch", "micro-batch size")):
        arg(p, name, h, required=True)
    p.add_argument("--model", help="a model preset, e.g. llama3-8b: its own blocks and output layer (or the three below)")
    for name, h in (("--hidden", "hidden width"), ("--heads", "attention heads"), ("--layers", "layers on this GPU")):
        arg(p, name, h)
    arg(p, "--tp", "tensor-parallel size", default=1)
    p.add_argument("--sequence-parallel", action="store_true")
    p.add_argument("--recompute", default="none", help=", ".join(RECOMPUTE))
    p.add_argument("--attention", default="unfused", help=", ".join(ATTENTION_KERNELS) + " (flash with --model)")

    p = command("checkpoint", _checkpoint, "checkpoint bytes (14 and 16 B/param) and weights-only bytes")
    arg(p, "--params", "N, parameters", required=True)

    p = command("failures", _failures, "MTBF, work lost to interruptions, effective training time")
    p.add_argument("--preset", help="a failures preset, e.g. llama3-405b")
    arg(p, "--interruptions", "interruptions in the window")
    arg(p, "--window-s", "window, seconds")
    arg(p, "--checkpoint-interval-s", "checkpoint interval, seconds")

    p = command("storage", _storage, "dataset, weights, checkpoints on disk")
    arg(p, "--params", "N, parameters", required=True)
    arg(p, "--tokens-per-param", "D / N", default=CHINCHILLA_TOKENS_PER_PARAM)
    arg(p, "--bytes-per-token", "bytes per stored token id", default=4)
    arg(p, "--checkpoints-kept", "checkpoints retained", default=5)
    p.add_argument("--include-gradients", action="store_true", help="16 B/param checkpoints instead of 14")

    p = command("lora", _lora, "LoRA trainable parameters on square d x d matrices")
    for name, h in (("--d-model", "width d"), ("--rank", "rank r"), ("--modules", "adapted matrices per layer"), ("--layers", "layers")):
        arg(p, name, h, required=True)

    p = command("finetune", _finetune, "model-state memory of a full, LoRA or QLoRA fine-tune")
    p.add_argument("--method", required=True, help=", ".join(METHODS))
    p.add_argument("--model", required=True, help="a dense model preset, e.g. llama2-7b")
    arg(p, "--rank", "LoRA rank r (lora, qlora; 64 unless given, as QLoRA's)")
    p.add_argument("--modules", help="adapted matrices, comma-separated, of " + ",".join(LLAMA_MODULES) + " (all unless given)")
    p.add_argument("--optimizer", default="adam", help=", ".join(OPTIMIZER_STATE_BYTES))
    p.add_argument("--quantization", default="nf4-double-quant", help=", ".join(QUANTIZATION_BITS))

    p = command("optimal", _optimal, "compute-optimal N and D for a FLOP budget")
    arg(p, "--flops", "C, FLOPs", required=True)
    p.add_argument("--fit", default="rule", help="rule (20 tokens/param), " + ", ".join(FITS))

    command("presets", _presets, "list the presets")
    return root


def _at_least_minimums(args) -> None:
    """Refuse a value under its option's meaningful minimum (MINIMUMS), named by its argument."""
    for option, (minimum, what) in MINIMUMS.items():
        argument = option[2:].replace("-", "_")
        value = getattr(args, argument, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < minimum:
            raise EstimatorError(argument, value, f"at least {units.plain(minimum)}, {what}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv)
    given = {option: text for option, text in typed_options(argv).items() if text}
    if problem := _group_error(args.command, given):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    # Each argument an estimator may name, as the option that sets it (every option is named for its
    # argument, `--window-s` for window_s, or ARGUMENT_OPTIONS says which) and its value as typed or by default.
    options = {argument: "--" + argument.replace("_", "-") for argument, value in vars(args).items()
               if value is not None and argument not in ("command", "handler", "json")}
    options |= {argument: option for argument, option in ARGUMENT_OPTIONS.items() if option in given}
    by_argument = {argument: (option, given.get(option, str(getattr(args, argument, "")))) for argument, option in options.items()}
    try:
        _at_least_minimums(args)
        rows = args.handler(args)
    except EstimatorError as error:
        print(f"error: {error.on_command_line(by_argument, given)}", file=sys.stderr)
        return 2
    except OverflowError:  # a whole-number product past what a float holds
        print(f"error: {EstimatorError('', math.inf, '').on_command_line(by_argument, given)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({key: value for key, value, _ in rows}, indent=2))
    else:
        for key, _, text in rows:
            print(f"{key}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
