"""A GPU preset may hold a source's unrounded dense peak beside the rounded one it uses.

The H100 is the case: its datasheet rounds dense BF16 to 989 TFLOPS, its architecture
whitepaper gives 989.4 (528 tensor cores × 1,024 FLOPs per clock × 1.83 GHz). The site
computes with 989, which reproduces the seed's 26.62M GPU-hours at the seed's round N = 405e9;
the methods page shows both.
"""

import pytest

from estimators import EstimatorError, gpu_hours, load_presets, training_flops, training_seconds
from estimators.presets import parse_presets
from tests.estimators.test_presets import GPU  # a minimal H100 preset: bf16 = 989e12 only

PRESETS = load_presets()


def test_the_field_is_optional():
    assert parse_presets(GPU).gpu("h100").peak_flops_unrounded is None
    assert PRESETS.gpu("gb200").peak_flops_unrounded is None


def test_h100_holds_the_whitepaper_peaks():
    h100 = PRESETS.gpu("h100-sxm")
    # 528 × 1,024 × 1.83e9 = 989.4e12 (BF16); FP8 doubles the FLOPs per clock.
    assert h100.peak_flops_unrounded == {"bf16": 989.4e12, "fp8": 1978.9e12}
    for precision, exact in h100.peak_flops_unrounded.items():
        assert round(exact / 1e12) == h100.peak_flops[precision] / 1e12  # the datasheet rounds it


def test_the_rounded_peak_is_the_one_that_reproduces_26_62m_gpu_hours():
    run = PRESETS.run("llama3-405b")
    h100 = PRESETS.gpu(run.gpu)
    c = training_flops(405e9, run.tokens)  # the seed's round N

    def millions_of_hours(peak):
        # Four digits, as the paper gives them: the site's three ("26.6M") do not tell the two apart.
        return round(gpu_hours(training_seconds(c, run.gpus, peak, run.mfu), run.gpus) / 1e6, 2)

    assert millions_of_hours(h100.peak_flops[run.precision]) == 26.62
    assert millions_of_hours(h100.peak_flops_unrounded[run.precision]) == 26.61


@pytest.mark.parametrize(
    "line, where",
    [
        ("peak_flops_unrounded = { bf16 = -1 }", "gpus.h100.peak_flops_unrounded.bf16"),
        ("peak_flops_unrounded = { fp8 = 1978.9e12 }", "gpus.h100.peak_flops_unrounded"),  # no fp8 peak
        ("peak_flops_unrounded = 989.4e12", "gpus.h100.peak_flops_unrounded"),  # not a table
    ],
)
def test_bad_unrounded_peaks_name_the_field(line, where):
    with pytest.raises(EstimatorError) as caught:
        parse_presets(GPU.replace("peak_flops = { bf16 = 989e12 }\n", f"peak_flops = {{ bf16 = 989e12 }}\n{line}\n"))
    assert caught.value.argument == where


def test_the_h100_note_names_the_round_count_at_which_its_figure_comes_out_and_the_figure_does():
    # Every page's H100 note once said 989 "reproduces the Llama 3 article figure of 26.62M GPU-hours", a
    # figure no page printed beside the site's 26.7M: the note now names the round count it holds at, the
    # training page's round-size example, and that count gives the note's figure.
    import re

    run, h100 = PRESETS.run("llama3-405b"), PRESETS.gpu("h100-sxm")
    round_count = PRESETS.example("llama3-405b-round").params
    said = re.search(r"at (?:its|the) round ([\d.]+B) parameters[^.]*?([\d.]+)M GPU-hours", h100.source)
    assert said, h100.source
    from estimators import units

    assert said.group(1) == units.count(round_count)
    c = training_flops(round_count, run.tokens)
    hours = gpu_hours(training_seconds(c, run.gpus, h100.peak_flops[run.precision], run.mfu), run.gpus)
    assert round(hours / 1e6, 2) == float(said.group(2))
