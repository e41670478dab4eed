"""A training stage's range spans its published runs (estimators.stage_span): each bound is one
run's reported figure, and the artifact is the weights or adapter that run hands on."""

import pytest

import estimators
from estimators import units

PRESETS = estimators.load_presets()


def test_supervised_fine_tuning_spans_one_gpu_to_sixteen():
    # Dettmers et al. 2023 (QLoRA), §5: Guanaco 65B, 24 hours on one GPU; Muennighoff et al. 2025 (s1),
    # appendix D: 26 minutes on 16 H100s over 1,000 examples; Stanford Alpaca (March 2023): 3 hours on
    # eight A100s over 52K examples.
    span = estimators.stage_span("sft")
    assert (span.gpus_low, span.gpus_high) == (1, 16)
    assert (units.duration(span.seconds_low), units.duration(span.seconds_high)) == ("26 min", "1 day")
    assert (span.examples_low, span.examples_high) == (1000, 52000)
    assert span.tokens_low is None
    # The artifact is Guanaco's adapter: LoRA r = 64 on all seven linear layers of LLaMA 65B, 16-bit.
    q = PRESETS.finetune("qlora-65b")
    adapter = estimators.lora_decoder_params(PRESETS.model(q.model).config, q.rank, q.modules)
    assert span.artifact_low == span.artifact_high == 2 * adapter


def test_pretraining_spans_deepseek_v3_to_llama_3_405b():
    # DeepSeek-V3 report, table 1: 2,664K H800 GPU-hours on 2,048 GPUs over 14.8T tokens; Llama 3 paper
    # §3.3: 16,384 H100s over 15.6T tokens, timed here at the run's MFU.
    span = estimators.stage_span("pretraining")
    llama = estimators.run_preset_estimate("llama3-405b")
    assert (span.gpus_low, span.gpus_high) == (2048, 16384)
    assert span.seconds_low == pytest.approx(2664e3 * 3600 / 2048)
    assert span.seconds_high == llama.seconds
    assert (span.tokens_low, span.tokens_high) == (14.8e12, 15.6e12)
    # The artifacts, each as its publisher released it: Llama 3 405B's BF16 weights (the seed's
    # "405B -> ~810 GB" at the exact count), and DeepSeek-V3's FP8 weights, trained and shipped in FP8.
    assert span.artifact_high == 2 * PRESETS.model("llama3-405b").params and units.bytes_(span.artifact_high) == "812 GB"
    assert span.artifact_low == 1 * PRESETS.model("deepseek-v3").params


def test_deepseek_v3s_stages_hand_on_its_weights_in_fp8_as_released():
    # DeepSeek-V3 report §3.3: trained in FP8; its released checkpoint stores FP8 weights (about 0.69 TB
    # with the multi-token-prediction module). Its stages say which precision their bytes are in.
    from pyodide_widgets.widgets import stages

    ds = PRESETS.model("deepseek-v3")
    assert ds.released_precision == "fp8" and PRESETS.model("llama3-405b").released_precision == "bf16"
    out = stages.update({"stage": "rl"})["outputs"]
    assert out["rl_bytes"] == f"{units.bytes_(ds.params)} of FP8 weights, as released"
    assert out["pretraining_bytes"] == (f"{units.bytes_(ds.params)} to {units.bytes_(2 * PRESETS.model('llama3-405b').params)} "
                                        "of weights as released: FP8 for DeepSeek-V3, BF16 for Llama 3 405B")


@pytest.mark.parametrize("key", list(PRESETS.stages))
def test_every_run_lies_inside_its_stages_range(key):
    span = estimators.stage_span(key)
    assert span.runs[0].address == f"stages.{key}"
    for run in span.runs:
        assert span.gpus_low <= run.gpus <= span.gpus_high
        assert span.seconds_low <= run.seconds <= span.seconds_high
        assert run.gpu_hours == pytest.approx(run.gpus * run.seconds / 3600)
    assert len(span.runs) == 1 + sum(r.stage == key for r in PRESETS.stage_runs.values()) + (PRESETS.stage(key).run is not None)


def test_a_stage_with_one_run_has_a_range_of_one_point():
    span = estimators.stage_span("rl")
    assert span.gpus_low == span.gpus_high == PRESETS.stage("rl").gpus
    assert span.seconds_low == span.seconds_high == PRESETS.stage("rl").seconds


def test_the_pretraining_range_tells_the_estimated_run_from_the_published_ones():
    # DeepSeek-V3's report gives its GPU-hours; the Llama 3 paper gives neither time nor GPU-hours of its
    # 16,384-GPU run, so those are this site's ideal estimate, and the model card's 30.84M H100-hours
    # are what Meta published: the widget says which is which.
    from pyodide_widgets.widgets import stages

    deepseek, llama = estimators.stage_span("pretraining").runs
    estimate = estimators.run_preset_estimate("llama3-405b")
    assert deepseek.reported == "gpu_hours" and deepseek.gpu_hours == PRESETS.stage("pretraining").gpu_hours
    assert llama.reported == "" and llama.gpu_hours == estimate.gpu_hours
    assert llama.gpu_hours_reported == PRESETS.run("llama3-405b").gpu_hours_reported
    text = stages.update({"stage": "pretraining"})["outputs"]["pretraining_range"]
    computed = text.split("computed here, not published:")[1]
    for figure in (units.duration(estimate.seconds), units.count(estimate.gpu_hours), units.percent(estimate.mfu),
                   units.count(llama.gpu_hours_reported)):
        assert figure in computed
    # A stage whose every run is published says nothing is computed.
    assert "computed here" not in stages.update({"stage": "sft"})["outputs"]["sft_range"]
