"""python -m estimators: the same functions, text or --json, exit 2 on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
    out = run(capsys, "finetune", "--method", "full", "--params", "7e9")[1]
    assert "104 GiB" in out
    assert "671B" in run(capsys, "params", "--model", "deepseek-v3")[1]


@pytest.mark.parametrize(
    "argv, argument",
    [
        (["memory", "--params", "7e9", "--stage", "4"], "stage"),
        (["time", "--params", "1e9", "--tokens", "1e9", "--gpus", "0", "--mfu", "0.4"], "gpus"),
        (["time", "--params", "1e9", "--tokens", "1e9", "--gpus", "8", "--mfu", "1.5"], "mfu"),
        (["flops", "--params", "nan", "--tokens", "1e9"], "params"),
        (["memory", "--params", "7e9", "--optimizer", "lion"], "optimizer"),
        (["time", "--run", "no-such-run"], "run"),
    ],
)
def test_bad_input_exits_2_with_the_message(capsys, argv, argument):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith(f"error: {argument} = ")
    assert "Traceback" not in err and out == ""


def test_module_entry_point_help_and_error_without_traceback():
    help_text = subprocess.run([sys.executable, "-m", "estimators", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert help_text.returncode == 0
    for command in ("flops", "time", "params", "memory", "activations", "checkpoint", "failures",
                    "storage", "lora", "finetune", "optimal", "presets"):
        assert command in help_text.stdout
    bad = subprocess.run([sys.executable, "-m", "estimators", "memory", "--params", "-1"],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr == "error: params = -1 is not allowed: a number greater than 0\n"
