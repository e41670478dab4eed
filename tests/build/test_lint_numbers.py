"""The hand-typed-number lint: what it allows, what it reports, and that the real docs/ pass."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_build.lint import Finding, find_quantities, main

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "lint"
EXPECT = re.compile(r"<!-- expect: (.*?) -->")


def texts(markdown: str) -> list[str]:
    return [finding.text for finding in find_quantities(markdown)]


@pytest.mark.parametrize(
    "markdown",
    [
        pytest.param("GPT-2, H100, GB200 NVL72, DeepSeek-V3, ZeRO-3, top-2, H100s", id="names"),
        pytest.param("FP8, BF16, FP32, NF4, INT8, uint32, v3, V3, Qwen2.5, W8", id="identifiers"),
        pytest.param("Llama 3, Llama 3.1, Claude 3.5, GPT 4, ZeRO 3, RTX 4090", id="versions"),
        pytest.param("ZeRO stage 3, stages 0–3, steps 1, 2 and 3, layer 12, Eq. 2", id="indices"),
        pytest.param("3D parallelism, C = 6ND, 2N, 16Ψ bytes, 1F1B", id="glued-formulas"),
        pytest.param("C = 6 × N × D, 2 × d × r, 16 · Ψ, T/2", id="formula-coefficients"),
        pytest.param("8-bit Adam, 16-bit floats", id="number-formats"),
        pytest.param("the 1st, 2nd, 3rd and 4th stages of the 2020s", id="ordinals-decades"),
        pytest.param("Hoffmann et al. 2022 and its replication (2024)", id="years"),
        pytest.param("as of 20 Oct 2026, on Oct 20, 2026, or 2026-10-20", id="dates"),
        pytest.param("1. first\n  2) second\n## 3. Heading", id="list-ordinals"),
        pytest.param("see [1], [2, 3] and [1–4], a note[^1], arXiv:2407.21783", id="citations"),
    ],
)
def test_allowed_digit_passes(markdown):
    assert any(char.isdigit() for char in markdown)  # the case proves something
    assert find_quantities(markdown) == []


@pytest.mark.parametrize(
    "markdown",
    [
        pytest.param("---\ntitle: 405B\n---\nText.", id="front-matter"),
        pytest.param("```python\nn = 405e9\n```\n~~~\n16 bytes\n~~~", id="fenced-code"),
        pytest.param("the `405B` model and ``6 * 405e9``", id="code-spans"),
        pytest.param("{{ flops(n=405e9,\n  d=15.6e12) }} {% set k = 3 %} {# 16 B #}", id="jinja"),
        pytest.param("text <!-- 30 minutes,\n466 times -->", id="html-comments"),
        pytest.param('<div data-n="16384" style="width: 300px">text</div> &#215;', id="html"),
        pytest.param('[paper](https://x.org/2407.21783 "Table 4") ![c](img/c2.svg)', id="links"),
        pytest.param("[ref]: https://x.org/405 'Title 7'\nhttps://x.org/v2/8", id="addresses"),
        pytest.param("## Heading {#step-3}\n![chart](c.svg){ width=\"300\" }", id="attr-lists"),
        pytest.param("the 1 in 3 odds <!-- lint-numbers: allow -->", id="escape-hatch"),
    ],
)
def test_markup_and_code_are_not_read(markdown):
    assert find_quantities(markdown) == []


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        pytest.param("405 and 15.6", ["405", "15.6"], id="bare-number"),
        pytest.param("3.79e25 or 10^25", ["3.79e25", "10^25"], id="exponent"),
        pytest.param("1,024 GPUs", ["1,024 GPUs"], id="thousands-separator"),
        pytest.param("16K, 70B, 15.6T, 3bn, 7b", ["16K", "70B", "15.6T", "3bn", "7b"],
                     id="glued-magnitude"),
        pytest.param("10GB, 989TFLOPS, 16.2EFLOP/s, 40ms, 3h, 10Gbps",
                     ["10GB", "989TFLOPS", "16.2EFLOP/s", "40ms", "3h", "10Gbps"],
                     id="glued-unit"),
        pytest.param("40% of 94× at ~5x", ["40%", "94×", "5x"], id="share-and-multiple"),
        pytest.param("94× a run, 16,384 × 989", ["94×", "16,384 ×", "989"],
                     id="multiple-of-a-word-or-number"),
        pytest.param("MFU 38–43%", ["38", "43%"], id="range"),
        pytest.param("16 bytes, 80 GB, 989 TFLOPS, 4 GPUs, 54 days, 40 %",
                     ["16 bytes", "80 GB", "989 TFLOPS", "4 GPUs", "54 days", "40 %"],
                     id="spaced-unit"),
        pytest.param("30-minute checkpoints of a 405-billion model",
                     ["30-minute", "405-billion"], id="hyphenated-unit"),
        pytest.param("Llama 3 8B and Llama-3.1-405B", ["8B", "405B"], id="model-size-in-name"),
        pytest.param("2048 tokens; stage 3 GB", ["2048 tokens", "3 GB"],
                     id="unit-overrides-year-and-index"),
        pytest.param("10²⁵ FLOPs and ½", ["10²⁵ FLOPs", "½"], id="unicode-digits"),
        pytest.param("| W8 | 405 |", ["405"], id="table-cell"),
        pytest.param("```\n1\n```\n466 and {{ x }} 117 h", ["466", "117 h"],
                     id="prose-after-code-and-macro"),
    ],
)
def test_typed_quantity_fails(markdown, expected):
    assert texts(markdown) == expected


def test_finding_names_line_and_column():
    assert find_quantities("First line.\n\nIt took 54 days.") == [Finding(3, 9, "54 days")]


def test_escape_hatch_allows_only_its_own_line():
    markdown = "odds of 1 in 3 <!-- lint-numbers: allow -->\n405 layers"
    assert find_quantities(markdown) == [Finding(2, 1, "405 layers")]


def test_clean_prose_passes(capsys):
    assert main([str(FIXTURES / "clean.md")]) == 0
    assert "no hand-typed quantity in 1 Markdown file" in capsys.readouterr().out


def test_page_of_allowed_digits_passes(capsys):
    assert main([str(FIXTURES / "allowed.md")]) == 0, capsys.readouterr().out


def test_page_of_quantities_names_file_line_column_and_fix(capsys):
    # Each offending line of the fixture ends with <!-- expect: a | b -->, in order.
    page = FIXTURES / "quantities.md"
    expected = [
        (line_number, text)
        for line_number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1)
        if (expect := EXPECT.search(line))
        for text in expect.group(1).split(" | ")
    ]

    assert main([str(page)]) == 1

    *reports, summary = capsys.readouterr().out.splitlines()
    reported = []
    for report in reports:
        path, line_number, column, message = report.split(":", 3)
        assert path == str(page) and int(column) >= 1
        assert message.endswith(
            "— compute it with a macro or put it in estimators/presets.toml with a source")
        reported.append((int(line_number), re.search(r"'(.*)'", message).group(1)))
    assert reported == expected
    assert summary == (
        f"lint-numbers: {len(expected)} hand-typed quantities in 1 of 1 Markdown file(s)")


def test_directories_are_searched_recursively_for_markdown(tmp_path, capsys):
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "page.md").write_text("It took 54 days.\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("It took 54 days.\n", encoding="utf-8")
    (tmp_path / "index.md").write_text("No number here.\n", encoding="utf-8")

    assert main([str(tmp_path)]) == 1

    out = capsys.readouterr().out
    assert f"{tmp_path / 'guide' / 'page.md'}:1:9: hand-typed quantity '54 days'" in out
    assert "notes.txt" not in out
    assert out.endswith("1 hand-typed quantity in 1 of 2 Markdown file(s)\n")


def test_missing_path_is_a_usage_error_not_a_pass(tmp_path, capsys):
    assert main([str(tmp_path / "no-such-dir")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_real_docs_pass_with_the_default_path():
    # Run as CI and `make lint` do; with no argument the command lints docs/.
    result = subprocess.run(
        [sys.executable, "-m", "site_build.lint"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    pages = len(list((REPO / "docs").rglob("*.md")))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith(f"no hand-typed quantity in {pages} Markdown file(s)\n")
