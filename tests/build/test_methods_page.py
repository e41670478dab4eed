"""The methods page: its preset tables are generated from load_presets(), so every
preset's name and source appears on the built page, and its disagreements show
both figures."""

import pytest

import estimators
from estimators import checkpoint_bytes, load_presets, units
from tests.build.test_build import page_text

PRESETS = load_presets()
# Every table of presets.toml, so that a new kind cannot be left off the page.
KINDS = tuple(PRESETS.tables)


@pytest.fixture(scope="module")
def methods_text(built_site) -> str:
    # Whitespace as a reader sees it: Markdown reflows nothing inside a table cell,
    # but tags stripped to spaces can leave runs of them.
    return " ".join(page_text(built_site, "methods").split())


@pytest.mark.parametrize(
    "kind, key",
    [(kind, key) for kind in KINDS for key in getattr(PRESETS, kind)],
)
def test_every_preset_is_listed_with_its_name_and_source(methods_text, kind, key):
    preset = getattr(PRESETS, kind)[key]
    assert " ".join(preset.name.split()) in methods_text, (kind, key, "name")
    assert " ".join(preset.source.split()) in methods_text, (kind, key, "source")


def test_every_preset_kind_has_presets():
    # A kind with no presets would make its table, and the test above, empty.
    assert all(getattr(PRESETS, kind) for kind in KINDS)


def test_both_checkpoint_sizes_and_both_h100_peaks_are_shown(methods_text):
    run = PRESETS.run("llama3-405b")
    h100 = PRESETS.gpu(run.gpu)
    for with_gradients in (False, True):
        assert units.bytes_(checkpoint_bytes(run.params, with_gradients)) in methods_text
    assert units.si(h100.peak_flops[run.precision], "FLOP/s") in methods_text


def test_the_two_h100_peaks_print_the_digits_that_tell_them_apart(methods_text):
    # NVIDIA's H100 datasheet: 989 TFLOPS dense BF16; the Hopper whitepaper's 528 tensor cores ×
    # 1,024 FLOPs per clock × 1.83 GHz make 989.4. The site's three digits print both as 989.
    run = PRESETS.run("llama3-405b")
    h100 = PRESETS.gpu(run.gpu)
    rounded, exact = h100.peak_flops[run.precision], h100.peak_flops_unrounded[run.precision]
    assert units.si(rounded, "FLOP/s") == units.si(exact, "FLOP/s")
    assert "989 TFLOP/s (datasheet, used)" in methods_text and "989.4 TFLOP/s (whitepaper)" in methods_text
    hours = [estimators.run_estimate(run.params, run.tokens, run.gpus, peak, run.mfu).gpu_hours for peak in (rounded, exact)]
    assert f"(datasheet, used) {units.apart(hours[0], hours[1])}" in methods_text
    assert f"(whitepaper) {units.apart(hours[1], hours[0])}" in methods_text
    assert units.apart(hours[0], hours[1]) != units.apart(hours[1], hours[0])


def test_gpu_peaks_are_printed_by_the_units_filter(methods_text):
    for gpu in PRESETS.gpus.values():
        for precision, flops in gpu.peak_flops.items():
            assert f"{precision.upper()} {units.si(flops, 'FLOP/s')}" in methods_text, gpu.name
        assert units.bytes_(gpu.memory_bytes, binary=True) in methods_text
