"""The finetune_fit widget's own computation: adapters on the layers' true shapes, and each method's bill against a GPU."""

import pytest

import estimators
from estimators import units
from pyodide_widgets.widgets import finetune_fit

PRESETS = estimators.load_presets()


def test_grouped_query_keys_and_values_are_narrower_than_queries():
    config = PRESETS.model("llama3-8b").config  # d = 4096, 32 heads of 128, 8 key/value heads, 32 layers
    r = 16
    # q and o: r·(4096 + 4096); k and v: r·(4096 + 8·128); per layer, times 32 layers.
    expected = 32 * (2 * r * (4096 + 4096) + 2 * r * (4096 + 1024))
    assert estimators.lora_decoder_params(config, r, ("q", "k", "v", "o")) == expected
    # The MLP's gate and up read d and write F = 14,336; down the reverse.
    assert estimators.lora_decoder_params(config, r, ("gate", "up", "down")) == 32 * 3 * r * (4096 + 14336)


def test_a_rank_wider_than_the_narrowest_adapted_layer_is_refused():
    config = PRESETS.model("llama3-8b").config
    assert estimators.lora_decoder_params(config, 4096, ("q",))
    with pytest.raises(estimators.EstimatorError) as caught:
        estimators.lora_decoder_params(config, 1025, ("k",))  # k writes 8 × 128 = 1,024
    assert caught.value.argument == "rank"


def test_the_bill_is_the_model_state_plus_the_base_models_activations():
    ft = PRESETS.finetune("qlora-65b")
    config, gpu = PRESETS.model(ft.model).config, PRESETS.gpu(ft.gpu)
    bill = estimators.finetune_bill("qlora", config, ft.rank, ft.modules, ft.quantization,
                                    ft.seq_len, ft.micro_batch, ft.recompute, gpu.memory_bytes)
    state = estimators.finetune_breakdown("qlora", config, ft.rank, ft.modules, ft.quantization)
    activations = estimators.model_activation_bytes(config, ft.seq_len, ft.micro_batch, recompute=ft.recompute)
    assert bill.total == state.total + activations
    assert bill.fit.fits  # QLoRA's headline: a 65B model on one 48 GB card, a batch of the Guanaco script included


def test_the_widget_prints_the_seeds_lora_count_at_its_inputs():
    outputs = finetune_fit.update(finetune_fit.presets()["lora-7b"]["state"])["outputs"]
    assert outputs["trainable"].startswith("16.8M parameters")  # 2 × 4096 × 16 × 4 modules × 32 layers
    assert outputs["per_module"].count(units.integer(2 * 4096 * 16)) == 4

