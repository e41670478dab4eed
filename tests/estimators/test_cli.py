"""python -m estimators: the same functions, text or --json, exit 2 on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import estimators
from estimators.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_llama3_run_prints_the_papers_compute_and_the_ideal_time(capsys):
    # Llama 3 paper §3.3: 3.8 × 10²⁵ FLOPs; the rest follows at 16,384 H100s, 40% MFU.
    code, out, _ = run(capsys, "time", "--run", "llama3-405b")
    assert code == 0
    for text in ("3.8e25 FLOPs", "16.2 EFLOP/s", "6.48 EFLOP/s", "67.8 days", "26.7M"):
        assert text in out


def test_json_output_is_raw_numbers(capsys):
    code, out, _ = run(capsys, "flops", "--params", "8e9", "--tokens", "15e12", "--json")
    assert code == 0
    assert json.loads(out) == {"training_flops": 6 * 8e9 * 15e12, "tokens_per_param": 1875, "compute_multiple": 93.75}


def test_zero_stage_3_and_storage_and_finetune(capsys):
    assert "total: 1.88 GB" in run(capsys, "memory", "--params", "7.5e9", "--gpus", "64", "--stage", "3")[1]
    assert "checkpoint: 112 GB" in run(capsys, "storage", "--params", "7e9", "--include-gradients")[1]
    # The pages' figure for the same fine-tune: one model of a fine-tune, on the command line as on the pages.
    lora = estimators.load_presets().finetune("lora-7b")
    config = estimators.load_presets().model(lora.model).config
    out = run(capsys, "finetune", "--method", "qlora", "--model", lora.model, "--rank", str(lora.rank),
              "--modules", ",".join(lora.modules), "--quantization", lora.quantization)[1]
    page = estimators.finetune_breakdown("qlora", config, lora.rank, lora.modules, lora.quantization).total
    assert f"total: {estimators.units.bytes_(page)} " in out
    assert "671B" in run(capsys, "params", "--model", "deepseek-v3")[1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["memory", "--params", "7e9", "--stage", "4"], "--stage 4 is not allowed: one of 0, 1, 2, 3"),
        (["time", "--params", "1e9", "--tokens", "1e9", "--gpus", "0", "--mfu", "0.4"], "--gpus 0 is not allowed: a whole number of 1 or more"),
        (["time", "--params", "1e9", "--tokens", "1e9", "--gpus", "8", "--mfu", "1.5"], "--mfu 1.5 is not allowed: a fraction greater than 0 and at most 1"),
        (["flops", "--params", "nan", "--tokens", "1e9"], "--params nan is not allowed: a finite number"),
        (["memory", "--params", "7e9", "--optimizer", "lion"], "--optimizer lion is not allowed: one of 'adam'"),
        (["time", "--run", "no-such-run"], "--run no-such-run is not allowed: one of 'llama3-405b'"),
        # An option of another name than its estimator's argument, and one left at its default.
        (["failures", "--preset", "no-such-run"], "--preset no-such-run is not allowed: one of 'llama3-405b'"),
        (["finetune", "--method", "lora", "--model", "llama2-7b", "--rank", "0"], "--rank 0 is not allowed: a whole number of 1 or more"),
        (["finetune", "--method", "lora", "--model", "deepseek-v3"], "--model deepseek-v3 is not allowed: a dense model preset"),
        (["storage", "--params", "7e9", "--bytes-per-token", "0"], "--bytes-per-token 0 is not allowed: a number greater than 0"),
    ],
)
def test_a_refused_value_names_the_option_as_typed_and_its_limit(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith(f"error: {message}"), err
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize(
    "argv, message",
    [
        (["flops", "--params", "1e300", "--tokens", "1e300"], "--params 1e300, --tokens 1e300: the result is too large to compute (at most 1.8e308)"),
        (["storage", "--params", "1e307"], "--params 1e307: the result is too large to compute (at most 1.8e308)"),
        (["lora", "--d-model", "1e200", "--rank", "1e200", "--modules", "1", "--layers", "1"], "the result is too large to compute (at most 1.8e308)"),
    ],
)
def test_a_result_past_the_largest_float_names_the_options_typed_and_the_limit(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err, err
    assert "inf" not in err and "_" not in err and out == ""


@pytest.mark.parametrize(
    "argv, message",
    [
        (["flops", "--params", "8e9", "--tokens", "15e12", "--layers", "32"],
         "--heads, --head-dim and --seq-len missing: --layers, --heads, --head-dim and --seq-len go together"),
        (["time", "--params", "8e9"], "--tokens, --gpus and --mfu missing: --params, --tokens, --gpus and --mfu go together, or --run alone"),
        (["time", "--run", "llama3-405b", "--gpus", "8"], "--run sets --gpus itself: give --run alone"),
        (["failures", "--interruptions", "3"], "--window-s and --checkpoint-interval-s missing"),
        (["failures", "--preset", "llama3-405b", "--window-s", "100"], "--preset sets --window-s itself"),
    ],
)
def test_a_partial_option_group_is_refused_rather_than_ignored_or_read_as_none(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.startswith(f"error: {message}"), err
    assert "None" not in err and out == ""


def test_the_full_attention_term_is_counted(capsys):
    plain = json.loads(run(capsys, "flops", "--params", "8e9", "--tokens", "15e12", "--json")[1])
    attention = ["--layers", "32", "--heads", "32", "--head-dim", "128", "--seq-len", "8192"]
    full = json.loads(run(capsys, "flops", "--params", "8e9", "--tokens", "15e12", *attention, "--json")[1])
    assert full["training_flops"] > plain["training_flops"]


def commands() -> list:
    """Every command the parser declares, read from it rather than listed by hand."""
    from estimators.__main__ import parser

    return [name for action in parser()._subparsers._group_actions for name in action.choices]


@pytest.mark.parametrize("command", commands())
def test_every_commands_help_runs(capsys, command):
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    assert f"python -m estimators {command}" in capsys.readouterr().out


def test_module_entry_point_help_and_error_without_traceback():
    help_text = subprocess.run([sys.executable, "-m", "estimators", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert help_text.returncode == 0
    for command in ("flops", "time", "params", "memory", "activations", "checkpoint", "failures",
                    "storage", "lora", "finetune", "optimal", "presets"):
        assert command in help_text.stdout
    bad = subprocess.run([sys.executable, "-m", "estimators", "memory", "--params", "-1"],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr == "error: --params -1 is not allowed: at least 1, one parameter\n"


@pytest.mark.parametrize(
    "argv, option",
    [
        (["flops", "--params", "1e-320", "--tokens", "1e12"], "--params"),
        (["checkpoint", "--params", "1e-320"], "--params"),
        (["time", "--params", "8e9", "--tokens", "1e-320", "--gpus", "8", "--mfu", "0.4"], "--tokens"),
        (["time", "--params", "8e9", "--tokens", "1e12", "--gpus", "8", "--mfu", "1e-320"], "--mfu"),
        (["failures", "--interruptions", "1", "--window-s", "1e-320", "--checkpoint-interval-s", "0.5"], "--window-s"),
        (["failures", "--interruptions", "3", "--window-s", "86400", "--checkpoint-interval-s", "1e-320"], "--checkpoint-interval-s"),
        (["storage", "--params", "7e9", "--tokens-per-param", "1e-320"], "--tokens-per-param"),
        (["optimal", "--flops", "1e-320"], "--flops"),
    ],
)
def test_a_value_below_an_options_meaningful_minimum_is_refused_with_it(capsys, argv, option):
    # 1e-320 parameters once printed "2e-320 B" of weights, as the widgets' fields once printed 9.36e-298 FLOPs.
    from estimators import units
    from estimators.__main__ import MINIMUMS

    code, out, err = run(capsys, *argv)
    minimum, _ = MINIMUMS[option]
    assert code == 2 and out == ""
    assert err.startswith(f"error: {option} 1e-320 is not allowed: at least {units.plain(minimum)}"), err
    # The minimum itself is answered.
    at = [units.plain(minimum) if a == "1e-320" else a for a in argv]
    assert run(capsys, *at)[0] == 0
