"""The constants the methods page shows are the ones the formulas use.

Each public function that hands a page a module's constants (compute_constants,
activation_coefficients, loss_fits, quantization_layout) is checked against the
formula it documents, so the page cannot show a constant the code does not use.
"""

import pytest

import estimators
from estimators import EstimatorError
from estimators.finetune import QUANTIZATION_BITS


def test_compute_constants_are_the_coefficients_of_the_flop_formulas():
    k = estimators.compute_constants()
    n, d = 8e9, 15e12
    assert (k.forward, k.backward, k.training) == (2, 4, 6)  # Kaplan et al. 2020 §2.1
    assert estimators.forward_flops_per_token(n) == k.forward * n
    assert estimators.backward_flops_per_token(n) == k.backward * n
    assert estimators.training_flops(n, d) == k.training * n * d
    # PaLM appendix B: 12·L·H·Q·T; GPT-2 124M at its full context, 12 × 12 × 12 × 64 × 1024.
    assert estimators.attention_flops_per_token(12, 12, 64, 1024) == k.attention * 12 * 12 * 64 * 1024
    # Hoffmann et al. 2022, Table 3: D ≈ 20·N; compute_optimal splits C with that ratio.
    n_opt, d_opt = estimators.compute_optimal(5.76e23)
    assert d_opt / n_opt == pytest.approx(k.chinchilla_tokens_per_param)
    assert estimators.compute_multiple(n, d) == pytest.approx(d / n / k.chinchilla_tokens_per_param)


def test_activation_coefficients_rebuild_korthikanti_table_2():
    k = estimators.activation_coefficients()
    assert (k.unsplit, k.split, k.attention, k.full_recompute) == (10, 24, 5, 2)
    s, b, h, a, t = 2048, 1, 4096, 32, 8
    sbh = s * b * h
    per_layer = estimators.activation_bytes_per_layer
    assert per_layer(s, b, h, a) == pytest.approx(sbh * (k.unsplit + k.split + k.attention * a * s / h))
    assert per_layer(s, b, h, a, tp=t) == pytest.approx(sbh * (k.unsplit + k.split / t + k.attention * a * s / (h * t)))
    assert per_layer(s, b, h, a, tp=t, sequence_parallel=True, recompute="selective") == pytest.approx(
        sbh * (k.unsplit + k.split) / t)
    assert per_layer(s, b, h, a, recompute="full") == k.full_recompute * sbh


def test_loss_fits_are_the_laws_chinchilla_loss_evaluates():
    fits = estimators.loss_fits()
    assert set(fits) == {"hoffmann2022", "hoffmann2022-rounded", "besiroglu2024"}
    n, d = 70e9, 1.4e12
    for name, f in fits.items():
        assert f.source
        assert estimators.chinchilla_loss(n, d, name) == f.e + f.a / n**f.alpha + f.b / d**f.beta
        assert estimators.optimal_exponents(name) == (f.beta / (f.alpha + f.beta), f.alpha / (f.alpha + f.beta))
    # Hoffmann et al. 2022 §3.3 prints E = 1.69, A = 406.4, B = 410.7, α = 0.34, β = 0.28 ...
    h = fits["hoffmann2022-rounded"]
    assert (h.e, h.a, h.b, h.alpha, h.beta) == (1.69, 406.4, 410.7, 0.34, 0.28)
    # ... rounded from its fit, which Besiroglu et al. 2024, table 1, give as E = 1.6934,
    # α = 0.3392, β = 0.2849 (A and B as printed); their own refit has E = 1.8172.
    h = fits["hoffmann2022"]
    assert (h.e, h.a, h.b, h.alpha, h.beta) == (1.6934, 406.4, 410.7, 0.3392, 0.2849)
    assert "rounded" in fits["hoffmann2022-rounded"].source and "unrounded" in h.source
    assert fits["besiroglu2024"].e == 1.8172
    # A copy: a page cannot change the fits the estimators use.
    fits.clear()
    assert estimators.loss_fits()


@pytest.mark.parametrize(
    "quantization, bits",
    [
        ("nf4-codes-only", 4),  # the codes alone
        ("nf4", 4 + 32 / 64),  # QLoRA §3: one FP32 absmax per block of 64 weights
        ("nf4-double-quant", 4 + 8 / 64 + 32 / (64 * 256)),  # FP8 constants, one FP32 per 256 of them
    ],
)
def test_quantization_layout_gives_the_bits_a_qlora_fine_tune_charges(quantization, bits):
    layout = estimators.quantization_layout(quantization)
    assert layout.bits_per_weight == pytest.approx(bits)
    assert QUANTIZATION_BITS[quantization] == layout.bits_per_weight
    config = estimators.load_presets().model("llama2-7b").config
    linear = estimators.decoder_params(config)
    stored = estimators.finetune_breakdown("qlora", config, quantization=quantization).base_quantized_bytes
    assert stored == pytest.approx((linear.attention + linear.mlp) * layout.bits_per_weight / 8)


def test_quantization_layout_rejects_an_unknown_storage():
    with pytest.raises(EstimatorError) as caught:
        estimators.quantization_layout("nf3")
    assert caught.value.argument == "quantization"
