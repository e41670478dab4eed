"""The training page's sections on tokens per parameter, checkpoints and interruptions, storage and
fine-tuning, as built.

Each expected text is computed here from the same presets with the same estimators and `units`
formatters the page's macros use, so a page that typed or miscomputed a figure fails. Where a source
article gives a figure for exactly the same inputs, the test also holds the computed text to
that published figure; where the inputs differ (an exact parameter count against the seed's round
one), the comment says so and no published figure is asserted.
"""

import pytest

import estimators
from estimators import units
from tests.build.test_build import page_text

PRESETS = estimators.load_presets()
LLAMA3 = PRESETS.run("llama3-405b")  # N = 405,853,388,800 (the configuration's count), D = 15.6e12
LLAMA3_8B = PRESETS.run("llama3-8b")  # N = 8,030,261,248, D = 15e12
FAILURES = PRESETS.failure("llama3-405b")  # 466 interruptions (419 unexpected) in 54 days, 30-min checkpoints
LLAMA2_7B = PRESETS.model("llama2-7b")  # 6,738,415,616 parameters, d = 4096, 32 layers
LORA = PRESETS.finetune("lora-7b")  # r = 16 on q, k, v, o
QLORA = PRESETS.finetune("qlora-65b")  # LLaMA 65B, r = 64 on all seven linear layers, a 48 GB GPU


@pytest.fixture(scope="module")
def text(built_site) -> str:
    """The page's visible text with every run of whitespace (line wraps, table cells) one space."""
    return " ".join(page_text(built_site, "training").split())


# --- The memory bill: activations of a real block ----------------------------------------------


def test_llama3_8b_activations_counted_for_its_own_block(text):
    setup, config = PRESETS.setup("llama3-8b-node"), PRESETS.model("llama3-8b").config
    s, b = setup.seq_len, setup.micro_batch
    gpt3 = estimators.activation_bytes_per_layer(s, b, config.d_model, config.heads, recompute=setup.recompute)
    own = estimators.activation_bytes_per_layer(
        s, b, config.d_model, config.heads, recompute=setup.recompute,
        kv_heads=config.kv_heads, ffn_dim=config.ffn_dim, mlp=config.mlp, dropout=config.dropout,
    )
    assert own / gpt3 == 41 / 34  # see test_published_figures: 41 sbh for Llama 3 8B's block, 34 for GPT-3's
    assert f"keeps {units.bytes_(own)}, where the GPT-3 count gives {units.bytes_(gpt3)}: {units.percent(own / gpt3 - 1)} more" in text
    head = estimators.activation_output_bytes(s, b, config.d_model, config.vocab)
    assert f"makes {units.bytes_(head)}, as much as {units.number(head / own)} layers" in text


# --- Compute-optimal or over-trained ------------------------------------------------------------


def test_sections_are_in_the_seeds_order(text):
    headings = [
        "What training is",
        "What the loop consumes",
        "The memory bill: where the memory goes",
        "Architecture: dense vs mixture-of-experts",
        "The five stages",
        "Compute-optimal or over-trained: tokens per parameter",
        "Six ways to cut one training job",
        "How long does a training run take?",
        "Checkpoints and what each interruption costs",
        "What a run keeps on disk",
        "Fine-tuning: full, LoRA and QLoRA",
        "Audit, logging and reproducibility",
        "The training stack, layer by layer",
        "The closing",
    ]
    # The article body starts after the navigation and the table of contents, which list them too.
    body = text[text.index("Training builds a model from nothing but text"):]
    positions = [body.index(heading + " ¶") for heading in headings]
    assert positions == sorted(positions)


def test_llama3_8b_tokens_per_parameter_counts_the_configurations_parameters(text):
    # meta-llama/Meta-Llama-3-8B: 8,030,261,248 parameters (config.json) on over 15T tokens (model card).
    ratio = estimators.tokens_per_param(LLAMA3_8B.params, LLAMA3_8B.tokens)
    assert f"{units.count(LLAMA3_8B.params)} parameters, on over {units.count(LLAMA3_8B.tokens)} tokens: {units.number(ratio)} tokens per parameter" in text
    assert units.number(ratio) == "1,868"  # the seed's 1,875 is 15e12 / a round 8e9 (tests/estimators/test_seed_figures.py)


def test_chinchilla_ratio_comes_from_the_estimators_constant(text):
    k = estimators.compute_constants()
    assert f"roughly {k.chinchilla_tokens_per_param} tokens for each parameter" in text
    assert f"D / ({k.chinchilla_tokens_per_param} × N)" in text


def test_compute_multiple_is_93x_at_the_configurations_count(text):
    multiple = estimators.compute_multiple(LLAMA3_8B.params, LLAMA3_8B.tokens)  # 1,868 / 20
    assert f"= {units.times(multiple)} the compute" in text
    assert units.times(multiple) == "93.4×"  # the seed's ≈ 94× is at a round 8e9


def test_same_compute_spent_the_chinchilla_way(text):
    flops = estimators.training_flops(LLAMA3_8B.params, LLAMA3_8B.tokens)
    n, d = estimators.compute_optimal(flops)  # N = √(C / 6·20), D = 20·N
    assert f"same {units.sci(flops)} FLOPs would have bought a model of about {units.count(n)} parameters" in text
    assert f"trained on {units.count(d)} tokens" in text


def test_rule_of_thumb_against_both_loss_fits_for_llama3_405b(text):
    flops = estimators.training_flops(LLAMA3.params, LLAMA3.tokens)
    n, d = estimators.compute_optimal(flops)
    assert f"the rule of thumb {units.count(n)} {units.count(d)} 20" in text
    ratios = {}
    for key, fit in estimators.loss_fits().items():
        n, d = estimators.chinchilla_optimal(flops, key)
        ratios[key] = estimators.tokens_per_param(n, d)
        assert (
            f"loss-law optimum, {fit.source} {units.count(n)} {units.count(d)} {units.number(ratios[key])}"
        ) in text
    ratio = estimators.tokens_per_param(LLAMA3.params, LLAMA3.tokens)
    assert f"what Meta trained {units.count(LLAMA3.params)} {units.count(LLAMA3.tokens)} {units.number(ratio)}" in text
    apart = ratios["hoffmann2022"] / ratios["besiroglu2024"]
    assert f"by a factor of {units.times(apart)} at this budget" in text
    # The point of the table: the fits straddle the rule, so 20 is a rule of thumb.
    assert ratios["besiroglu2024"] < 20 < ratios["hoffmann2022"]


def test_rounded_hoffmann_constants_are_a_row_of_their_own(text):
    # Hoffmann et al. 2022 §3.3 prints α = 0.34, β = 0.28; the fit is α = 0.3392, β = 0.2849
    # (Besiroglu et al. 2024, table 1). The page names both and says how far the rounding moves N.
    flops = estimators.training_flops(LLAMA3.params, LLAMA3.tokens)
    fit, printed = estimators.chinchilla_optimal(flops, "hoffmann2022"), estimators.chinchilla_optimal(flops, "hoffmann2022-rounded")
    assert f"move the optimum from {units.count(fit[0])} to {units.count(printed[0])} parameters" in text
    assert "constants as printed (rounded to two decimals)" in text


def test_zero_papers_7_5b_example_where_zero_is_introduced(text):
    # Rajbhandari et al. 2020, §3.1: 16Ψ for Ψ = 7.5B is 120 GB.
    example = PRESETS.example("zero-7-5b")
    state = estimators.model_state_bytes(example.params)
    assert units.bytes_(state) == "120 GB"  # source article, same input
    assert f"a model of {units.count(example.params)} parameters, whose state comes to {units.bytes_(state)}" in text


# --- Checkpoints and interruptions --------------------------------------------------------------


def test_checkpoint_bytes_both_ways_labelled(text):
    resumable, with_gradients = estimators.checkpoint_bytes_per_param(), estimators.checkpoint_bytes_per_param(True)
    assert (resumable, with_gradients) == (14, 16)  # 2 + 4 + 4 + 4; + 2 of BF16 gradients
    minimum = estimators.resume_bytes_per_param()
    assert minimum == 4 + 4 + 4  # FP32 master weights and both moments
    assert f"the least a resume needs, {units.plain(minimum)} B/param" in text
    assert f"as Megatron-LM and DeepSpeed write it, {units.plain(resumable)} B/param" in text
    assert f"with gradients, {units.plain(with_gradients)} B/param" in text
    assert f"the FP32 master weights and both of Adam's moments, {units.plain(minimum)} bytes per parameter" in text
    l70 = PRESETS.model("llama3-70b")
    assert (
        f"({units.count(l70.params)} parameters) {units.bytes_(minimum * l70.params)} "
        f"{units.bytes_(estimators.checkpoint_bytes(l70.params))} "
        f"{units.bytes_(estimators.checkpoint_bytes(l70.params, True))}"
    ) in text
    # The seed's 1.12 TB is 16 B × a round 70e9; the page counts the configuration's 70.55B (1.13 TB)
    # and says that its counts are the configurations'.
    assert "count every parameter of the released configuration" in text
    m405 = PRESETS.model("llama3-405b")
    big = estimators.checkpoint_bytes(m405.params, True)
    assert (
        f"({units.count(m405.params)} parameters) {units.bytes_(minimum * m405.params)} "
        f"{units.bytes_(estimators.checkpoint_bytes(m405.params))} {units.bytes_(big)}"
    ) in text
    assert round(big / 1e12, 1) == 6.5  # source article: ≈ 6.5 TB at 16 B/param


def test_interruptions_one_every_3_hours(text):
    mtbf = estimators.mtbf_seconds(FAILURES.interruptions, FAILURES.window_seconds)  # 4,665,600 s / 466
    assert f"{units.integer(FAILURES.interruptions)} interruptions, on average one every {units.duration(mtbf)}" in text
    assert round(mtbf / units.SECONDS_PER_HOUR) == 3  # source article: one every ≈ 3 h, same inputs
    assert f"{units.integer(FAILURES.unexpected)} of them were unexpected" in text
    assert f"about {units.percent(FAILURES.hardware_share)} of those came from hardware" in text
    assert f"the other {units.integer(FAILURES.interruptions - FAILURES.unexpected)} were planned" in text


def test_mean_time_between_failures_counts_the_unexpected_interruptions(text):
    # Llama 3 paper §3.3.4: 419 of the 466 were unexpected; 47 were planned (no failure).
    assert FAILURES.interruptions - FAILURES.unexpected == 47
    mtbf = estimators.mtbf_seconds(FAILURES.unexpected, FAILURES.window_seconds)  # 4,665,600 s / 419
    assert round(mtbf / units.SECONDS_PER_HOUR, 1) == 3.1  # the paper's figure
    assert f"counts the unexpected ones alone: one every {units.duration(mtbf)}" in text
    assert f"the {units.duration(mtbf)} between unexpected interruptions, Daly's interval" in text


def test_work_thrown_away_all_and_unexpected_only(text):
    interval, window = FAILURES.checkpoint_interval_seconds, FAILURES.window_seconds
    lost = estimators.lost_work_seconds(FAILURES.interruptions, interval)  # 466 × 1800 / 2 = 419,400 s
    assert (f"the {units.integer(FAILURES.interruptions)} interruptions throw away {units.duration(lost, 'h')} of work, "
            f"{units.percent(lost / window)} of the window") in text
    # source article: ≈ 117 h, ≈ 9.0%, same inputs: 116.5 h, in hours, its half rounded up.
    assert lost / units.SECONDS_PER_HOUR == 116.5
    assert units.duration(lost, "h") == "117 h"
    assert round(lost / window * 100, 1) == 9.0
    unexpected = estimators.lost_work_seconds(FAILURES.unexpected, interval)  # 419 × 1800 / 2
    assert (
        f"only the {units.integer(FAILURES.unexpected)} unexpected ones, which gives {units.duration(unexpected, 'h')} "
        f"({units.percent(unexpected / window)})"
    ) in text
    assert f"first figure comes to {units.count(estimators.gpu_hours(lost, LLAMA3.gpus))} GPU-hours" in text
    share = estimators.effective_training_time(window, FAILURES.interruptions, interval).effective_share
    assert f"keeps {units.percent(share)} of its time" in text
    assert f"more than {units.percent(FAILURES.effective_share)}" in text


# --- Storage --------------------------------------------------------------------------------------


def test_storage_at_llama2_7bs_exact_count(text):
    s = estimators.storage_footprint(LLAMA2_7B.params)  # 20 tokens/param, 4 B/token, 5 kept, 14 B/param
    g = estimators.storage_footprint(LLAMA2_7B.params, include_gradients=True)
    assert f"Its exact count is {units.count(LLAMA2_7B.params)} parameters" in text
    assert (
        f"Give it {units.plain(s.tokens / LLAMA2_7B.params)} tokens per parameter ({units.count(s.tokens)} tokens), "
        f"store each token id in {units.plain(s.dataset / s.tokens)} bytes, and keep "
        f"{units.plain(s.retained / s.checkpoint)} checkpoints"
    ) in text
    rows = [
        ("dataset", s.dataset, g.dataset),
        ("shipped weights (BF16)", s.weights, g.weights),
        ("one checkpoint", s.checkpoint, g.checkpoint),
        ("the checkpoints kept", s.retained, g.retained),
    ]
    for label, resumable, with_gradients in rows:
        assert f"{label} {units.bytes_(resumable)} {units.bytes_(with_gradients)}" in text, label
    assert f"total {units.bytes_(s.total)} {units.bytes_(g.total)}" in text
    # The seed's 560 / 14 / 112 / 560 GB are for a round 7e9 at 16 B/param: the page's third column.
    assert LLAMA2_7B.params != 7e9
    seed = PRESETS.example("round-7b")
    r = estimators.storage_footprint(seed.params, include_gradients=True)
    assert seed.params == 7e9
    for (label, exact, with_gradients), value, published in zip(
        rows,
        (r.dataset, r.weights, r.checkpoint, r.retained),
        ("560 GB", "14 GB", "112 GB", "560 GB"),  # source article: 7e9 × 20 × 4 B; × 2 B; × 16 B; × 5 kept
    ):
        assert units.bytes_(value) == published
        assert f"{label} {units.bytes_(exact)} {units.bytes_(with_gradients)} {published}" in text, label
    assert f"fits {units.plain(estimators.token_id_bytes(LLAMA2_7B.config.vocab))} bytes an id" in text


def test_fineweb_files_text_and_token_ids_each_named(text):
    fineweb = PRESETS.dataset("fineweb")
    width = estimators.token_id_bytes(fineweb.vocab)  # GPT-2's 50,257 ids: 2 bytes
    uint32 = estimators.token_id_bytes(PRESETS.model("llama3-8b").config.vocab)  # 128,256 ids: 4 bytes
    assert (width, uint32) == (2, 4)
    # The dataset card's 44 TB is its compressed Parquet files, not the text.
    assert units.bytes_(fineweb.parquet_bytes) == "44 TB"  # the source article's figure, now named for what it is
    assert f"its files take {units.bytes_(fineweb.parquet_bytes)} on disk. Those files are compressed Parquet" in text
    # Raw text at ≈ 4 characters per GPT-2 token (OpenAI's tokenizer guide): 15e12 × 4 B = 60 TB.
    raw = estimators.raw_text_bytes(fineweb.tokens, fineweb.chars_per_token)
    assert units.bytes_(raw) == "60 TB"
    assert f"puts the plain text near {units.bytes_(raw)}" in text
    assert f"needs {units.bytes_(estimators.dataset_bytes(fineweb.tokens, width))}, half the text" in text
    as_uint32 = units.bytes_(estimators.dataset_bytes(fineweb.tokens, uint32))
    assert as_uint32 == "60 TB"  # source article: ≈ 60 TB as uint32 ids, same inputs
    assert f"it takes {as_uint32}, about as much as the text" in text
    assert "bytes of text per token" not in text and "more than the text it came from" not in text


def test_largest_preset_and_checkpoints_written(text):
    largest = max(PRESETS.models.values(), key=lambda m: m.params)
    s = estimators.storage_footprint(largest.params)
    assert (
        f"{largest.name} with {units.count(largest.params)} parameters in all, comes to {units.bytes_(s.total)}"
    ) in text
    assert f"{units.bytes_(s.dataset)} of data, {units.bytes_(s.weights)} of weights" in text
    assert f"{units.bytes_(s.retained)} of kept checkpoints" in text
    written = int(FAILURES.window_seconds // FAILURES.checkpoint_interval_seconds)  # 54 days / 30 min = 2,592
    total = estimators.storage_footprint(LLAMA3.params, checkpoints_kept=written).retained
    assert f"makes {units.integer(written)} of them" in text
    assert f"they would fill {units.bytes_(total)}" in text
    # What the section claims: kept stays in terabytes, written reaches petabytes.
    assert s.total < 1e15 <= total


# --- Fine-tuning ----------------------------------------------------------------------------------


def lora_adapters() -> int:
    config = LLAMA2_7B.config
    return estimators.lora_trainable_params(config.d_model, LORA.rank, len(LORA.modules), config.layers)


def test_lora_trainable_parameters_are_the_seeds(text):
    config = LLAMA2_7B.config
    per_module = estimators.lora_trainable_params(config.d_model, LORA.rank, 1, 1)  # 2 × 4096 × 16
    adapters = lora_adapters()  # × 4 modules × 32 layers
    # Llama 2 7B's q, k, v and o are square (32 KV heads), so the true shapes give the same count.
    assert adapters == estimators.lora_decoder_params(config, LORA.rank, LORA.modules)
    assert f"so one adapter holds 2 × d × r = {units.count(per_module)} parameters" in text
    assert f"all of them together {units.count(adapters)}" in text
    assert (units.count(per_module), units.count(adapters)) == ("131K", "16.8M")  # source article, same inputs
    share = adapters / LLAMA2_7B.params
    assert f"{units.percent(share)} of the base model's {units.count(LLAMA2_7B.params)}" in text
    # The seed's 0.24% divides by a round 7e9; the exact 6.74B gives 0.25%.
    assert round(share * 100, 2) == 0.25


def test_lora_shapes_are_the_papers(text):
    # Hu et al. 2021, §4.1: W₀ is d × k, B is d × r, A is r × k.
    assert "A weight W of d × k (d outputs, k inputs) gets an update B·A, where B is d × r and A is r × k" in text
    assert "A of d × r" not in text and "B of r × d" not in text


def test_full_lora_qlora_memory_component_by_component_in_gb_and_gib(text):
    card = PRESETS.gpu(LORA.gpu)
    for method, label in (("full", "full fine-tune"), ("lora", "LoRA"), ("qlora", "QLoRA")):
        m = estimators.finetune_breakdown(method, LLAMA2_7B.config, LORA.rank, LORA.modules, LORA.quantization)
        fit = estimators.memory_fit(m.total, card.memory_bytes)
        verdict = (
            f"fits, {units.bytes_(fit.spare, binary=True)} to spare" if fit.fits else f"does not fit: {units.times(fit.ratio)} its memory"
        )
        trained = m.trainable_weights_bytes + m.gradients_bytes + m.optimizer_bytes
        assert (
            f"{label} {units.count(m.trainable_params)} ({units.percent(m.trainable_share)}) "
            f"{units.bytes_(m.base_quantized_bytes) if m.base_quantized_bytes else 'none'} "
            f"{units.bytes_(m.base_16bit_bytes) if m.base_16bit_bytes else 'none'} {units.bytes_(trained)} "
            f"{units.bytes_(m.total)} {units.bytes_(m.total, binary=True)} {verdict}"
        ) in text, method
    assert "(GB) the same in GiB" in text
    # QLoRA §3: BF16 adapter, BF16 gradient, two FP32 moments; a full fine-tune pays ZeRO's 16.
    assert f"{units.plain(2 + 2 + 8)} bytes for each adapter parameter, where a full fine-tune pays 16" in text


def test_qlora_65b_on_one_48_gb_gpu(text):
    base, card = PRESETS.model(QLORA.model), PRESETS.gpu(QLORA.gpu)
    m = estimators.finetune_breakdown("qlora", base.config, QLORA.rank, QLORA.modules, QLORA.quantization)
    fit = estimators.memory_fit(m.total, card.memory_bytes)
    assert f"the adapters come to {units.count(m.trainable_params)} parameters" in text
    assert (
        f"takes {units.bytes_(m.base_quantized_bytes)} for its 4-bit blocks and {units.bytes_(m.base_16bit_bytes)} "
        "for the embedding and output layer it keeps in BF16"
    ) in text
    trained = m.trainable_weights_bytes + m.gradients_bytes + m.optimizer_bytes
    assert f"gradients and Adam moments take {units.bytes_(trained)}" in text
    assert (
        f"That is {units.bytes_(m.total)} in all, against the {units.bytes_(card.memory_bytes, binary=True)} "
        f"({units.bytes_(card.memory_bytes)}) of an {card.name}"
    ) in text
    # The QLoRA paper's claim, computed: about 44 GB of model state fits one 48 GiB card, a few GB spare.
    assert fit.fits and round(m.total / 1e9) == 44
    assert f"The claim holds: the model state fits with {units.bytes_(fit.spare)} to spare" in text
    full = estimators.finetune_breakdown("full", base.config)
    lora = estimators.finetune_breakdown("lora", base.config, QLORA.rank, QLORA.modules)
    assert f"would need {units.bytes_(full.total)} of model state at this site's 16 bytes per parameter, LoRA on a BF16 base {units.bytes_(lora.total)}" in text
    # QLoRA §1: a 16-bit full fine-tune of LLaMA 65B needs "more than 780 GB": 12 B/param, no master copy.
    paper = estimators.model_state_bytes(base.params, QLORA.full_optimizer_reported)
    assert f"more than {units.bytes_(QLORA.full_bytes_reported)}, because it keeps no FP32 master copy" in text
    assert f"12 bytes per parameter, {units.bytes_(paper)} for this model" in text


# --- The widgets of these sections, as built ---------------------------------------------------


def test_tokens_per_param_widget_prints_llama3_8bs_multiple(text):
    n, d = LLAMA3_8B.params, LLAMA3_8B.tokens
    multiple = estimators.compute_multiple(n, d)  # 15e12 / (20 × 8,030,261,248)
    flops = estimators.training_flops(n, d)
    for fit in ("hoffmann2022", "besiroglu2024"):
        opt_n, opt_d = estimators.chinchilla_optimal(flops, fit)
        assert f"{units.count(opt_n)} on {units.count(opt_d)} tokens" in text
    assert f"Tokens per parameter {units.number(d / n)}" in text
    assert f"Compute over a compute-optimal run of its size {units.times(multiple)}" in text


def test_finetune_widget_prints_each_methods_bill_at_the_seeds_lora_setting(text):
    config, gpu = LLAMA2_7B.config, PRESETS.gpu(LORA.gpu)
    for method, label in (("full", "Full fine-tune"), ("lora", "LoRA"), ("qlora", "QLoRA")):
        bill = estimators.finetune_bill(method, config, LORA.rank, LORA.modules, LORA.quantization,
                                        LORA.seq_len, LORA.micro_batch, LORA.recompute, gpu.memory_bytes)
        assert f"{label} {units.bytes_(bill.total)}" in text
    adapters = estimators.lora_decoder_params(config, LORA.rank, LORA.modules)
    assert units.count(adapters) == "16.8M"  # source article: 16.8M, d = 4096, r = 16, 4 modules, 32 layers
    assert f"Trained by LoRA and QLoRA {units.count(adapters)} parameters" in text


def test_storage_widget_starts_at_the_seeds_7b_figures(text):
    seed = PRESETS.example("round-7b")  # 7B, 20 tokens per parameter, 4 B a token, 5 kept, 16 B/param
    s = estimators.storage_footprint(seed.params, seed.tokens_per_param, seed.token_bytes, seed.checkpoints_kept,
                                     seed.checkpoint_gradients)
    # Source article: 560 GB of data, 112 GB a checkpoint, 560 GB for the five kept; 14 GB of weights.
    assert [units.bytes_(v) for v in (s.dataset, s.weights, s.checkpoint, s.retained)] == [
        "560 GB", "14 GB", "112 GB", "560 GB"]
    assert (f"Dataset {units.bytes_(s.dataset)} {units.count(s.tokens)} tokens × {seed.token_bytes} B "
            f"Shipped weights (BF16) {units.bytes_(s.weights)} One checkpoint {units.bytes_(s.checkpoint)}") in text


def test_the_later_stages_state_their_ranges_from_their_published_runs(text):
    # s1 (appendix D): 16 H100s for 26 minutes over 1,000 examples; QLoRA (§5): Guanaco on one GPU for
    # 24 hours; Alpaca: 52K examples; Zephyr (§4): 16 A100s for two to four hours over UltraFeedback's
    # 64K prompts; DeepSeek-V3 (table 1): 119K GPU-hours of context extension on 2,048 GPUs; DeepSeek-R1
    # (Nature, supplementary): R1-Zero for about 198 hours on 512 H800s.
    sft, pref, mid, rl = (estimators.stage_span(k) for k in ("sft", "preference", "mid-training", "rl"))
    assert (f"Supervised fine-tuning spans {units.integer(sft.gpus_low)} to {units.integer(sft.gpus_high)} GPUs and "
            f"{units.duration(sft.seconds_low)} to {units.duration(sft.seconds_high)}, "
            f"{units.count(sft.gpu_hours_low)} to {units.count(sft.gpu_hours_high)} GPU-hours, on "
            f"{units.count(sft.examples_low)} to {units.count(sft.examples_high)} examples") in text
    assert f"as small as an adapter of {units.bytes_(sft.artifact_low)}" in text
    assert (f"used {units.integer(pref.gpus_low)} GPUs for {units.duration(pref.seconds_low)} to "
            f"{units.duration(pref.seconds_high)} over about {units.count(pref.examples_low)} ranked prompts") in text
    assert (f"{units.integer(mid.gpus_low)} GPUs for {units.duration(mid.seconds_low)} and "
            f"{units.integer(rl.gpus_low)} GPUs for {units.duration(rl.seconds_low)}") in text
    assert f"{units.bytes_(rl.artifact_high)} in BF16" in text


def test_every_audit_practice_and_stack_layer_reads_without_javascript(text):
    from pyodide_widgets.widgets import audit_lanes, training_stack

    for widget in (audit_lanes, training_stack):
        for option in widget.OPTIONS.values():
            for heading, detail in option["details"]:
                assert f"{heading} {detail}" in text, (option["name"], heading)


def test_closing_footnote_sets_the_sparse_peak_beside_the_dense_one(text):
    gpu = PRESETS.gpu(LLAMA3.gpu)
    dense = gpu.peak_flops[LLAMA3.precision]  # H100 BF16: 989 TFLOP/s dense
    sparse = estimators.sparse_peak_flops(dense)  # 2 × 989 = 1,978: the datasheet's 1,979 with sparsity, rounded
    assert f"{units.si(sparse, 'FLOP/s')} at BF16 against the dense {units.si(dense, 'FLOP/s')}" in text


def test_deepspeeds_zero2_count_is_2_plus_18_over_n_not_megatrons_18(text, built_site):
    # deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs:
    # gpu_mem = 2 * total_params + 18 * total_params / total_gpus (18 = 16-bit and 32-bit gradients,
    # 32-bit master weights, two 32-bit moments), 20 bytes per parameter on one GPU.
    fp32 = estimators.bytes_per_param("adam_fp32_grads")
    assert fp32.total == 18  # Megatron-LM: BF16 weights, FP32 gradients, master, two moments
    shared = fp32.total - fp32.weights + estimators.bytes_per_param("adam").gradients
    assert (fp32.weights, shared) == (2, 18)
    assert f"Megatron-LM comes to {units.plain(fp32.total)} bytes per parameter that way" in text
    # DeepSpeed's count, which needs ZeRO's stages, is set out on the methods page.
    methods = " ".join(page_text(built_site, "methods").split())
    assert f"plus {units.plain(shared)} bytes shared out among the GPUs, so {units.plain(fp32.weights + shared)} bytes" in methods


def test_the_closing_calls_its_gpu_hours_ideal_and_shows_metas_published_figure(text):
    # Llama 3.1 model card: 30.84M H100-hours for the 405B model.
    ideal = estimators.run_preset_estimate("llama3-405b").gpu_hours
    assert f"the ideal ones of one finished run: the {units.count(ideal)} GPU-hours" in text
    assert f"Meta's model card reports {units.count(LLAMA3.gpu_hours_reported)} H100-hours" in text
    assert f"{units.times(LLAMA3.gpu_hours_reported / ideal)} the ideal" in text


def test_mixtrals_12_9b_is_credited_to_mistral_ais_announcement_not_the_paper(text):
    # The paper (Jiang et al. 2024) prints 47B and 13B; 46.7B and 12.9B are the announcement's.
    active = estimators.moe_params(PRESETS.model("mixtral-8x7b").config).active
    assert f"Mistral AI's announcement of Mixtral 8x7B arrives at its {units.count(active)}" in text
    assert "paper arrives at" not in text
    assert "Mistral AI's announcement" in PRESETS.model("mixtral-8x7b").source


def test_gpt2s_sequence_counts_its_output_layer_beside_its_twelve_layers(text):
    # Korthikanti et al. 2022, §4.1: the per-layer table leaves the output layer out; GPT-2's
    # config.json (n_ctx 1,024, n_embd 768, vocab 50,257): 4sbh + 4sbV = 209 MB more for the logits.
    c = PRESETS.model("gpt2-124m").config
    layers = estimators.activation_bytes(c.max_positions, 1, c.d_model, c.heads, c.layers)
    output = estimators.activation_output_bytes(c.max_positions, 1, c.d_model, c.vocab)
    assert units.bytes_(output) == "209 MB"
    assert (f"keeps {units.bytes_(layers)} of them in its {c.layers} layers, and the output layer another "
            f"{units.bytes_(output)} for the logits the loss reads") in text


def test_the_lora_paragraph_says_d_equals_k_in_a_sentence_of_its_own(text):
    assert "holds with d = k that is" not in text
    per = estimators.lora_trainable_params(LLAMA2_7B.config.d_model, LORA.rank, 1, 1)
    assert f"These projections are square, d = k, so one adapter holds 2 × d × r = {units.count(per)} parameters" in text


def test_the_trainable_share_states_its_convention_beside_peft_s(text):
    # PEFT's print_trainable_parameters divides by all parameters, base and adapters: for Llama 2 7B
    # with r = 16 on q, k, v, o it prints 0.2484%; the site divides by the base, 0.249%.
    adapters = estimators.lora_trainable_params(LLAMA2_7B.config.d_model, LORA.rank, len(LORA.modules), LLAMA2_7B.config.layers)
    assert adapters == 16_777_216
    assert round(100 * adapters / (LLAMA2_7B.params + adapters), 4) == 0.2484
    assert f"{units.percent(adapters / LLAMA2_7B.params)} of the base model's {units.count(LLAMA2_7B.params)}. That share divides by the base alone" in text
    assert f"over base and adapters together, which gives {units.percent(adapters / (LLAMA2_7B.params + adapters))}" in text


def test_the_long_context_dp_group_is_said_to_be_replicas_times_context_parallel_gpus(text):
    # Llama 3 paper, table 4 and §3.3.2: the 128K stage is DP 8 × CP 16; the gradients' all-reduce
    # spans both, 128 GPUs, the group the traffic table prints.
    l128 = PRESETS.layout("llama3-405b-128k")
    traffic = estimators.layout_preset_traffic("llama3-405b-128k")
    dp = next(c for c in traffic.cuts if c.cut == "dp")
    assert dp.group_gpus == l128.dp * l128.cp == 128 and l128.dp == 8
    assert f"drops to {l128.dp} replicas. Its gradients are still averaged over {units.integer(dp.group_gpus)} GPUs, the replicas times the context-parallel GPUs" in text


def test_the_405b_pipeline_bill_is_called_an_upper_bound_with_what_would_make_it_fit(text):
    # Llama 3 trained on 80 GiB H100s (§3.3); the paper does not publish its memory savings. The
    # selective-recomputation count exceeds the card; full recomputation brings it inside.
    s = PRESETS.setup("llama3-405b-3d")
    config, memory = PRESETS.model(s.model).config, PRESETS.gpu(s.gpu).memory_bytes
    bill = {rc: estimators.memory_bill(config, s.gpus, s.zero_stage, s.optimizer, s.seq_len, s.micro_batch, rc, s.tp, memory, s.pp)
            for rc in ("selective", "full")}
    assert not bill["selective"].fit.fits and bill["full"].fit.fits
    assert "Read the figure as an upper bound" in text
    assert f"the whole bill to {units.bytes_(bill['full'].memory.total)}, well inside the card" in text
    assert "the tests keep the two side by side" not in text


def test_the_7b_fine_tuning_ranges_are_computed_at_the_settings_that_give_them(text):
    # The seed's ranges for a 7B model: a full fine-tune about 100-120 GB, LoRA about 15-23 GB,
    # QLoRA under 10 GB. At the widget's first setting the site's bills fall inside or beside them.
    config, gpu = LLAMA2_7B.config, PRESETS.gpu(LORA.gpu)
    bills = {m: estimators.finetune_bill(m, config, LORA.rank, LORA.modules, LORA.quantization, LORA.seq_len,
                                         LORA.micro_batch, LORA.recompute, gpu.memory_bytes) for m in ("full", "lora", "qlora")}
    assert 100e9 < bills["full"].total < 120e9 and bills["qlora"].total < 10e9
    assert 10e9 < bills["lora"].total < 23e9
    assert f"a full fine-tune, {units.bytes_(bills['full'].total)}" in text
    assert f"LoRA, {units.bytes_(bills['lora'].total)}, nearly all of it the frozen BF16 base" in text
    assert f"QLoRA, {units.bytes_(bills['qlora'].total)}" in text


def test_lora_and_qlora_quality_is_said_as_their_papers_report_it(text):
    # Hu et al. 2021 (LoRA), tables 2-4: on par with or better than full fine-tuning; Dettmers et al.
    # 2023 (QLoRA), §5: NF4 with LoRA on all linear layers matches 16-bit LoRA and full fine-tuning.
    assert "matching or beating a full fine-tune of GPT-3 on most of its benchmarks" in text
    assert "reproduces both 16-bit LoRA and a 16-bit full fine-tune" in text
    q = PRESETS.finetune("qlora-65b")
    share = estimators.finetune_breakdown("qlora", PRESETS.model(q.model).config, q.rank, q.modules, q.quantization).trainable_share
    assert f"trains {units.percent(share)}" in text
    assert "an adapter can be added into W once training is over" in text


def test_the_pretraining_stage_gives_its_range_and_its_artifact(text):
    # DeepSeek-V3 report, table 1: 2,048 H800 GPUs; Llama 3 paper §3.3: 16,384 H100s, 15.6T tokens,
    # 3.8e25 FLOPs. The artifact: 2 bytes a weight of the 405,853,388,800 (the seed: "405B -> ~810 GB").
    pre = PRESETS.stage("pretraining")
    weights = estimators.weights_bytes(PRESETS.model("llama3-405b").params)
    assert units.bytes_(weights) == "812 GB"
    assert (f"from those {units.integer(pre.gpus)} GPUs to the {units.integer(LLAMA3.gpus)} of Llama 3 405B, "
            f"whose {units.count(LLAMA3.tokens)} tokens cost") in text
    assert f"the base weights, is {units.bytes_(weights)} in BF16" in text
