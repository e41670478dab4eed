"""The training page's first half as built: what training is (training_loop), what the loop
consumes (loop_bill), dense against mixture-of-experts (moe_routing) and the five stages (stages), in the source article's order.

Each expected text is computed here with the estimators and `units` formatters the page uses.
"""

import pytest

import estimators
from estimators import units
from harness import markup
from site_build import numbers
from tests.build.test_build import page_text
from tests.build.test_training_sections import prints

PRESETS = estimators.load_presets()
SETUP_8B = PRESETS.setup("llama3-8b-node")  # Llama 3 8B at 8,192 tokens a sequence
SETUP_GPT2 = PRESETS.setup("gpt2-one-gpu")  # GPT-2 124M at its 1,024 tokens


@pytest.fixture(scope="module")
def text(built_site) -> str:
    return " ".join(page_text(built_site, "training").split())


def test_loop_costs_in_the_prose_are_the_estimators(built_site):
    printed = [e for e in numbers.read(built_site) if e.page == "training.md"]
    c = estimators.loop_costs(PRESETS.model(SETUP_8B.model).config, SETUP_8B.seq_len)
    g = estimators.loop_costs(PRESETS.model(SETUP_GPT2.model).config, SETUP_GPT2.seq_len)
    for costs, field, text in [(c, "forward_flops", units.count), (c, "forward_attention_flops", units.count),
                               (c, "attention_share", units.percent), (g, "attention_share", units.percent),
                               (c, "optimizer_bytes", units.bytes_)]:
        value = getattr(costs, field)
        prints(printed, value, text(value), "loop_costs(", f".{field}")


def test_training_loop_widget_shows_every_station_without_javascript(built_site):
    page = markup.parse((built_site / "training" / "index.html").read_text("utf-8"))
    for key in estimators.loop.STATIONS:
        assert page.find(class_="widget__option", data_when=f"station={key}")
        # The diagram's box for the station, a button of the picture.
        box = page.find("g", data_when=f"station={key}", role="button")
        assert box and box.children[0].tag == "rect", key


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
    page = markup.parse((built_site / "training" / "index.html").read_text("utf-8"))
    for key, stage in PRESETS.stages.items():
        assert page.find(class_="widget__option", data_when=f"stage={key}")
        assert stage.example in page.text()


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


def test_where_the_llama_3_headline_figures_first_appear_the_round_size_figures_stand_beside_them(text):
    # The source articles work Llama 3 405B at 405B parameters (67.7 days, 26.62M GPU-hours, 6.48 TB of
    # training state, 810 GB of weights) and Llama 3 8B at 8B (1,875 tokens per parameter, about 94×); the
    # site counts the released configurations. The round counts are the ones the models' names give.
    r, r8 = PRESETS.run("llama3-405b"), PRESETS.run("llama3-8b")
    big, small = PRESETS.example("llama3-405b-round"), PRESETS.example("llama3-8b-round")
    assert units.count(big.params) in PRESETS.model(r.model).name and units.count(small.params) in PRESETS.model(r8.model).name
    site = estimators.run_preset_estimate("llama3-405b")
    peak = PRESETS.gpu(r.gpu).peak_flops[r.precision]
    round_run = estimators.run_estimate(big.params, r.tokens, r.gpus, peak, r.mfu)
    after_the_tiles = text.split("The sections that follow take each tile in turn")[1][:800]
    assert f"released configuration, {units.count(r.params)}" in after_the_tiles
    for figure in (units.duration(round_run.seconds), units.apart(round_run.gpu_hours, site.gpu_hours),
                   units.bytes_(estimators.model_state_bytes(big.params)), units.bytes_(estimators.weights_bytes(big.params))):
        assert figure in after_the_tiles, figure
    assert (units.duration(round_run.seconds), units.bytes_(estimators.weights_bytes(big.params))) == ("67.7 days", "810 GB")
    ratio = f"{units.number(estimators.tokens_per_param(r8.params, r8.tokens))} tokens per parameter"
    beside = text.split(ratio)[1][:300]
    assert units.number(estimators.tokens_per_param(small.params, r8.tokens)) in beside
    assert units.times(estimators.compute_multiple(small.params, r8.tokens)) in text.split(ratio)[1][:900]
