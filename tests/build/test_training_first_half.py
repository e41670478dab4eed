"""The training page's first half as built: what training is (training_loop), what the loop
consumes (loop_bill), dense against mixture-of-experts (moe_routing) and the five stages (stages), in the source article's order.

Each expected text is computed here with the estimators and `units` formatters the page uses.
"""

import html

import pytest

import estimators
from estimators import units
from tests.build.test_build import page_text

PRESETS = estimators.load_presets()
SETUP_8B = PRESETS.setup("llama3-8b-node")  # Llama 3 8B at 8,192 tokens a sequence
SETUP_GPT2 = PRESETS.setup("gpt2-one-gpu")  # GPT-2 124M at its 1,024 tokens


@pytest.fixture(scope="module")
def text(built_site) -> str:
    return " ".join(page_text(built_site, "training").split())


def test_loop_costs_in_the_prose_are_the_estimators(text):
    c = estimators.loop_costs(PRESETS.model(SETUP_8B.model).config, SETUP_8B.seq_len)
    g = estimators.loop_costs(PRESETS.model(SETUP_GPT2.model).config, SETUP_GPT2.seq_len)
    assert f"weights cost the forward pass 2 × N, that is {units.count(c.forward_flops)} FLOPs for each token" in text
    assert f"Attention adds {units.count(c.forward_attention_flops)} more" in text
    assert (f"attention is {units.percent(c.attention_share)} of the arithmetic; for GPT-2 at its "
            f"{units.integer(SETUP_GPT2.seq_len)} tokens it is {units.percent(g.attention_share)}") in text
    assert f"{units.bytes_(c.optimizer_bytes)} for Llama 3 8B with Adam" in text


def test_training_loop_widget_shows_every_station_without_javascript(built_site):
    raw = (built_site / "training" / "index.html").read_text("utf-8")
    for key in estimators.loop.STATIONS:
        assert f'class="widget__option" data-when="station={key}"' in raw
        assert f'data-when="station={key}"><rect' in raw  # the diagram's box for the station


def test_moe_figures_in_the_prose_are_computed_from_the_configurations(text):
    ds = estimators.moe_params(PRESETS.model("deepseek-v3").config)
    mx = estimators.moe_params(PRESETS.model("mixtral-8x7b").config)
    assert f"{units.count(mx.total)} parameters stored, {units.count(mx.active)} at work on a token" in text
    # The report's 37B leaves the input embedding out; the page says so once and gives both.
    without = ds.active - ds.embedding
    assert (f"the model has {units.count(without)} active, the figure the report rounds to whole billions; "
            f"with them, {units.count(ds.active)}") in text
    assert round(without / 1e9) == 37 and units.count(ds.total) == "671B"  # DeepSeek-V3 report
    assert f"training state is {units.bytes_(estimators.model_state_bytes(ds.total))}" in text


def test_stage_budgets_in_the_prose_are_the_presets(text):
    pre, rl, sft = PRESETS.stage("pretraining"), PRESETS.stage("rl"), PRESETS.stage("sft")
    seconds = estimators.seconds_for_gpu_hours(pre.gpu_hours, pre.gpus)  # DeepSeek-V3: 2,664K GPU-hours / 2,048 GPUs
    assert units.duration(seconds) == "54.2 days"  # the report: "less than two months"
    assert f"took {units.count(pre.gpu_hours)} GPU-hours over {units.count(pre.tokens)} tokens, {units.duration(seconds)} on {units.integer(pre.gpus)} H800 GPUs" in text
    assert f"one GPU for {units.duration(sft.seconds)}" in text  # QLoRA: 24 hours on a single GPU
    assert f"took {units.duration(rl.seconds)} on {units.integer(rl.gpus)} H800 GPUs" in text


def test_stages_widget_shows_every_stage_without_javascript(built_site):
    raw = (built_site / "training" / "index.html").read_text("utf-8")
    for key, stage in PRESETS.stages.items():
        assert f'class="widget__option" data-when="stage={key}"' in raw
        assert html.escape(stage.example, quote=False) in raw  # an apostrophe in text is itself (site_build.compact)


def test_the_published_layouts_bill_says_the_run_used_no_activation_checkpointing(text):
    # Llama 3 paper §3.3.2: the 8K-token pretraining ran without activation checkpointing, its memory
    # kept down by the pipeline schedule. The full-recomputation figures stand as what it did without.
    s = PRESETS.setup("llama3-405b-3d")
    config, memory = PRESETS.model(s.model).config, PRESETS.gpu(s.gpu).memory_bytes
    bill = estimators.memory_bill(config, s.gpus, s.zero_stage, s.optimizer, s.seq_len, s.micro_batch, s.recompute,
                                  s.tp, memory, s.pp)
    full = estimators.memory_bill(config, s.gpus, s.zero_stage, s.optimizer, s.seq_len, s.micro_batch, "full",
                                  s.tp, memory, s.pp)
    assert bill.memory.total > memory > full.memory.total  # over the card as counted, inside it recomputed
    said = text.split(f"Together that is {units.bytes_(bill.memory.total)}")[1].split("## ")[0]
    assert "ran without activation checkpointing" in said
    assert "the paper does not say which memory savings" not in said
    assert (f"would cut the activations to {units.bytes_(full.memory.activations)} and the whole bill to "
            f"{units.bytes_(full.memory.total)}") in said
