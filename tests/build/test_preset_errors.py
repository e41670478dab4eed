"""A mistake in presets.toml stops the build with one line: file, line, table.key.field, what is valid."""

from pathlib import Path

import pytest

from estimators import data_file
from site_build import checks

REAL = checks.PRESETS_FILE.read_text("utf-8")


def broken(tmp_path: Path, old: str, new: str) -> tuple[Path, str]:
    assert old in REAL
    text = REAL.replace(old, new, 1)
    path = tmp_path / "presets.toml"
    path.write_text(text, "utf-8")
    return path, text


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_the_real_presets_load():
    assert checks.presets_problem() is None


def test_a_value_out_of_range_names_file_line_table_and_field(tmp_path):
    path, text = broken(tmp_path, "mfu = 0.4", "mfu = 4.0")
    problem = checks.presets_problem(path)
    assert "\n" not in problem
    assert problem.startswith(f"{path}:{line_of(text, 'mfu = 4.0')}: runs.")
    assert ".mfu = 4.0 is not allowed: a fraction greater than 0 and at most 1" in problem


def test_an_unknown_field_lists_the_known_ones(tmp_path):
    path, text = broken(tmp_path, "mfu = 0.4", "mfu_percent = 40")
    problem = checks.presets_problem(path)
    assert f":{line_of(text, 'mfu_percent = 40')}: runs." in problem and "a known field" in problem


def test_broken_toml_says_where(tmp_path):
    path, text = broken(tmp_path, "mfu = 0.4", "mfu = = 0.4")
    problem = checks.presets_problem(path)
    assert problem.startswith(f"{path}:{line_of(text, 'mfu = = 0.4')}: ") and "TOML" in problem and "\n" not in problem


@pytest.mark.parametrize("where", ["gpus.no-such-gpu.memory_bytes", "no_table.key"])
def test_an_unknown_place_has_no_line_rather_than_a_wrong_one(where):
    assert data_file.line(REAL, where) is None


def test_a_mistake_in_a_declaration_names_its_line(tmp_path):
    unknown = 'mfu = { type = "number", check = "fractional"'
    path, text = broken(tmp_path, 'mfu = { type = "number", check = "fraction"', unknown)
    problem = checks.presets_problem(path)
    assert problem.startswith(f"{path}:{line_of(text, unknown)}: tables.runs.fields.mfu.check")


@pytest.mark.parametrize("field", ["nvlink_domain_gpus", "hbm_bytes_per_s", "streaming_multiprocessors",
                                   "attention_share", "matmul_rate"])
def test_a_gpu_preset_missing_a_step_model_field_names_preset_and_field(tmp_path, field):
    # Every field the step model reads is required of a GPU preset: removing one from the MI300X stops the build.
    start = REAL.index("[gpus.mi300x]")
    line = next(l for l in REAL[start:].splitlines() if l.startswith(f"{field} = "))
    path, _ = broken(tmp_path, REAL[start:start + REAL[start:].index(line) + len(line) + 1],
                     REAL[start:start + REAL[start:].index(line)])
    problem = checks.presets_problem(path)
    assert "\n" not in problem and f"gpus.mi300x.{field}" in problem and "missing" in problem
