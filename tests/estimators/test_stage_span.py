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
    # The artifacts: Llama 3 405B's BF16 weights (the seed's "405B -> ~810 GB" at the exact count) and
    # DeepSeek-V3's, 2 bytes a parameter each.
    assert units.bytes_(span.artifact_low) == "812 GB"
    assert span.artifact_high == 2 * PRESETS.model("deepseek-v3").params


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


def test_a_stage_reads_its_runs_tokens_as_ids_of_its_models_vocabulary():
    presets = estimators.load_presets()
    span = estimators.stage_span("pretraining")
    read = [r.dataset_bytes for r in span.runs if r.dataset_bytes is not None]
    assert read and (span.dataset_low, span.dataset_high) == (min(read), max(read))
    run = presets.run(presets.stage("pretraining").run)  # Llama 3 405B: 15.6T tokens of a 128K vocabulary, 4-byte ids
    assert estimators.dataset_bytes(run.tokens, estimators.token_id_bytes(presets.model(run.model).config.vocab)) in read
