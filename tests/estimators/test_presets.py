"""presets.toml: what it holds, and the loader's errors naming the preset and the field."""

import inspect
from importlib import resources

import pytest

from estimators import DecoderConfig, EstimatorError, load_presets, token_id_bytes
from estimators.presets import address_of, parse_presets
from estimators.provenance import quantity_of

PRESETS = load_presets()

GPU = """
[gpus.h100]
name = "H100"
memory_bytes = 80e9
peak_flops = { bf16 = 989e12 }
nvlink_domain_gpus = 8
hbm_bytes_per_s = 3.35e12
streaming_multiprocessors = 132
attention_share = 0.35
matmul_rate = "h100-bf16"
source = "datasheet"

[matmul_rates.h100-bf16]
name = "H100, BF16 matrix multiply"
gpu = "h100"
precision = "bf16"
matmul_flops = 792.1e12
source = "a search over shapes"
"""
RUN = """
[runs.r]
name = "a run"
params = 202048
tokens = 15e12
gpus = 8
gpu = "h100"
model = "m"
precision = "bf16"
mfu = 0.4
source = "paper"
"""
MODEL = """
[models.m]
name = "a model"
layers = 2
d_model = 64
heads = 4
kv_heads = 2
ffn_dim = 128
vocab = 1000
source = "config.json"
"""


def test_every_preset_has_a_source_and_a_name():
    tables = [PRESETS.gpus, PRESETS.runs, PRESETS.models, PRESETS.datasets, PRESETS.failures]
    for table in tables:
        for key, preset in table.items():
            assert preset.source.strip(), key
            assert preset.name.strip(), key


def test_existing_keys_are_kept():
    for key in ("h100-sxm", "gb200"):
        PRESETS.gpu(key)
    for key in ("llama3-405b", "llama3-405b-gb200-fp8"):
        PRESETS.run(key)


def test_gpus_the_articles_need_with_dense_peaks():
    for key in ("a100-sxm", "h100-sxm", "h200-sxm", "b200", "gb200", "mi300x", "rtx-a5000", "rtx-4090", "rtx-a6000"):
        assert PRESETS.gpu(key).peak_flops["bf16"] > 0
    assert PRESETS.gpu("rtx-a5000").memory_bytes == 24 * GIB  # GPT-2 one-GPU example
    assert PRESETS.gpu("rtx-a6000").memory_bytes == 48 * GIB  # QLoRA's 48 GB GPU


GIB = 2**30
MIB = 2**20


@pytest.mark.parametrize(
    "key, datasheet_gb, driver_mib",
    [
        # Datasheet "GB" figures; the usable capacity nvidia-smi reports, in MiB, where recorded.
        ("h100-sxm", 80, 81_559),  # NVIDIA H100 datasheet, 80 GB HBM3; nvidia-smi 81,559 MiB
        ("a100-sxm", 80, 81_920),  # NVIDIA A100 80GB datasheet, HBM2e; nvidia-smi 81,920 MiB
        ("rtx-a5000", 24, 24_564),  # NVIDIA RTX A5000 datasheet, 24 GB GDDR6
        ("rtx-4090", 24, 24_564),  # NVIDIA Ada whitepaper, RTX 4090 24 GB GDDR6X
        ("rtx-a6000", 48, 49_140),  # NVIDIA RTX A6000 datasheet, 48 GB GDDR6
        ("h200-sxm", 141, None),
        ("b200", 180, None),
        ("gb200", 186, None),
        ("mi300x", 192, None),
    ],
)
def test_gpu_memory_is_the_datasheet_figure_in_binary_units(key, datasheet_gb, driver_mib):
    gpu = PRESETS.gpu(key)
    # A card's "80 GB" is 80 GiB: memory is built in power-of-two dies and stacks.
    assert gpu.memory_bytes == datasheet_gb * GIB
    assert "GiB" in gpu.source  # the source states the unit it was read in
    if driver_mib is not None:
        # The driver reports what it can hand out: at most the card's capacity, and within 1% of it.
        assert 0.99 * gpu.memory_bytes <= driver_mib * MIB <= gpu.memory_bytes


def test_gpu_memory_must_be_whole_bytes():
    with pytest.raises(EstimatorError) as error:
        parse_presets(GPU.replace("memory_bytes = 80e9", "memory_bytes = 80.5"))
    assert error.value.argument == "gpus.h100.memory_bytes"


def test_gpt2_runs_use_the_gpt2_model_count():
    gpt2 = PRESETS.model("gpt2-124m").params
    for key in ("gpt2-124m-10b-a5000", "gpt2-124m-10b-8xh100"):
        assert PRESETS.run(key).params == gpt2


def test_llama3_failures_preset():
    f = PRESETS.failure("llama3-405b")
    assert (f.interruptions, f.unexpected, f.hardware_share) == (466, 419, 0.78)
    assert f.window_seconds == 54 * 86400


def test_dataset_id_widths_follow_the_vocabulary():
    # GPT-2's 50,257 ids fit in 2 bytes; Llama 3's 128,256 need 4
    assert token_id_bytes(PRESETS.dataset("fineweb-edu-10b").vocab) == 2
    assert token_id_bytes(PRESETS.model("llama3-8b").config.vocab) == 4


def test_a_valid_document_parses():
    presets = parse_presets(GPU + MODEL + RUN)
    assert presets.run("r").params == 202048.0  # a whole number is a valid float field
    assert presets.model("m").params > 0


@pytest.mark.parametrize(
    "text, where",
    [
        (GPU.replace("memory_bytes = 80e9", "memory_gb = 80"), "gpus.h100.memory_gb"),  # unit slip
        (GPU.replace('source = "datasheet"\n', ""), "gpus.h100.source"),  # missing field
        (GPU.replace("bf16 = 989e12", "bf16 = -1"), "gpus.h100.peak_flops.bf16"),
        (GPU + MODEL + RUN.replace("mfu = 0.4", "mfu = 1.5"), "runs.r.mfu"),
        (GPU + MODEL + RUN.replace("gpus = 8", "gpus = 0"), "runs.r.gpus"),
        (GPU + MODEL + RUN.replace("gpus = 8", "gpus = 8.5"), "runs.r.gpus"),
        (GPU + MODEL + RUN.replace("gpus = 8", "gpus = true"), "runs.r.gpus"),
        (GPU + MODEL + RUN.replace('gpu = "h100"', 'gpu = "h200"'), "runs.r.gpu"),  # unknown GPU
        (GPU + MODEL + RUN.replace('precision = "bf16"', 'precision = "fp8"'), "runs.r.precision"),
        (GPU + MODEL + RUN.replace('model = "m"', 'model = "llama9"'), "runs.r.model"),  # unknown model
        (GPU + MODEL + RUN.replace("tokens = 15e12", 'tokens = "15T"'), "runs.r.tokens"),
        (MODEL.replace("kv_heads = 2", "kv_heads = 3"), "models.m.kv_heads"),  # config's own check
        (MODEL.replace("layers = 2", "layers = 0"), "models.m.layers"),
        (MODEL.replace('source = "config.json"\n', ""), "models.m.source"),
        (MODEL.replace('source = "config.json"', 'source = ""'), "models.m.source"),  # an empty source cites nothing
        (GPU.replace('source = "datasheet"', 'source = "  "'), "gpus.h100.source"),
        (MODEL.replace("vocab = 1000", "vocab = 1000\nmla = 3"), "models.m.mla"),
        (MODEL + "\n[moe_models.m]\nname = 'x'\nsource = 'y'\n", "moe_models.m"),  # key used twice
        ("[checkpoints.x]\nname = 'x'\n", "checkpoints"),  # unknown table
    ],
)
def test_loader_errors_name_the_preset_and_the_field(text, where):
    with pytest.raises(EstimatorError) as caught:
        parse_presets(text)
    assert caught.value.argument == where


@pytest.mark.parametrize("lookup", ["gpu", "run", "model", "dataset", "failure"])
def test_unknown_preset_key_is_an_error(lookup):
    with pytest.raises(EstimatorError, match="not allowed"):
        getattr(PRESETS, lookup)("no-such-preset")


def test_training_setups_name_known_dense_models_and_gpus():
    for key, setup in PRESETS.setups.items():
        assert isinstance(PRESETS.model(setup.model).config, DecoderConfig), key
        assert PRESETS.gpu(setup.gpu).memory_bytes > 0


def test_gpt2_setup_uses_gpt2s_whole_context():
    setup = PRESETS.setup("gpt2-one-gpu")
    assert setup.seq_len == PRESETS.model(setup.model).config.max_positions


SETUP = """
[setups.s]
name = "a setup"
model = "m"
gpu = "h100"
gpus = 8
optimizer = "adam"
zero_stage = 0
seq_len = 2048
micro_batch = 1
recompute = "none"
tp = 1
source = "a choice"
"""


@pytest.mark.parametrize(
    "change, where",
    [
        (('model = "m"', 'model = "x"'), "setups.s.model"),
        (('gpu = "h100"', 'gpu = "h200"'), "setups.s.gpu"),
        (('optimizer = "adam"', 'optimizer = "lion"'), "setups.s.optimizer"),
        (("zero_stage = 0", "zero_stage = 4"), "setups.s.zero_stage"),
        (('recompute = "none"', 'recompute = "some"'), "setups.s.recompute"),
        (("seq_len = 2048", "seq_len = 0"), "setups.s.seq_len"),
        (("tp = 1", "tp = 1.5"), "setups.s.tp"),
    ],
)
def test_setup_errors_name_the_setup_and_the_field(change, where):
    with pytest.raises(EstimatorError) as caught:
        parse_presets(GPU + MODEL + SETUP.replace(*change))
    assert caught.value.argument == where


def test_finetune_setups_name_dense_models_known_gpus_and_modules():
    for key, ft in PRESETS.finetunes.items():
        assert isinstance(PRESETS.model(ft.model).config, DecoderConfig), key
        assert PRESETS.gpu(ft.gpu).memory_bytes > 0
        assert isinstance(ft.modules, tuple) and ft.modules, key


def test_lora_7b_is_the_seed_example_on_llama2_7b():
    # The seed's example: d = 4096, 32 layers (Llama 2 7B's config.json), r = 16, 4 modules.
    ft = PRESETS.finetune("lora-7b")
    config = PRESETS.model(ft.model).config
    assert (config.d_model, config.layers, ft.rank, len(ft.modules)) == (4096, 32, 16, 4)


def test_qlora_65b_is_llama_65b_on_a_48_gb_gpu():
    ft = PRESETS.finetune("qlora-65b")
    assert ft.model == "llama-65b"
    assert PRESETS.gpu(ft.gpu).memory_bytes == 48 * GIB  # the paper's "48 GB" card


def test_llama3_8b_run_is_its_configurations_count_on_15t_tokens():
    # meta-llama/Meta-Llama-3-8B config.json: 8,030,261,248 parameters; the model card: over 15T tokens.
    run = PRESETS.run("llama3-8b")
    assert (run.params, run.tokens, run.model) == (8_030_261_248, 15e12, "llama3-8b")


@pytest.mark.parametrize("key", ["llama3-405b", "llama3-405b-gb200-fp8"])
def test_the_llama3_405b_runs_count_the_released_configurations_parameters(key):
    # meta-llama/Llama-3.1-405B config.json gives 405,853,388,800 parameters; Meta's paper rounds them
    # to 405B. One count per model: the run and its model say the same.
    assert PRESETS.run(key).params == PRESETS.model("llama3-405b").params == 405_853_388_800


def test_a_run_whose_count_is_not_its_models_is_refused():
    with pytest.raises(EstimatorError) as error:
        parse_presets(GPU + RUN.replace("params = 202048", "params = 8000000000") + MODEL)
    assert error.value.argument == "runs.r.params"


FINETUNE = """
[finetunes.f]
name = "a fine-tune"
model = "m"
gpu = "h100"
rank = 16
modules = ["q", "v"]
quantization = "nf4"
seq_len = 512
micro_batch = 1
recompute = "full"
source = "a paper"
"""


@pytest.mark.parametrize(
    "change, where",
    [
        (('model = "m"', 'model = "x"'), "finetunes.f.model"),
        (('gpu = "h100"', 'gpu = "h200"'), "finetunes.f.gpu"),
        (("rank = 16", "rank = 0"), "finetunes.f.rank"),
        (("rank = 16", "rank = 1.5"), "finetunes.f.rank"),
        (('modules = ["q", "v"]', 'modules = "q"'), "finetunes.f.modules"),
        (('modules = ["q", "v"]', "modules = []"), "finetunes.f.modules"),
        (('modules = ["q", "v"]', 'modules = ["q", "mlp"]'), "finetunes.f.modules"),
        (('modules = ["q", "v"]', 'modules = ["q", "q"]'), "finetunes.f.modules"),
        (('quantization = "nf4"', 'quantization = "int4"'), "finetunes.f.quantization"),
        (('rank = 16', 'rank = 16\nalpha = 32'), "finetunes.f.alpha"),
        (('recompute = "full"', 'recompute = "some"'), "finetunes.f.recompute"),
    ],
)
def test_finetune_errors_name_the_preset_and_the_field(change, where):
    with pytest.raises(EstimatorError) as caught:
        parse_presets(GPU + MODEL + FINETUNE.replace(*change))
    assert caught.value.argument == where


def test_a_valid_finetune_loads_with_its_modules_as_a_tuple():
    ft = parse_presets(GPU + MODEL + FINETUNE).finetune("f")
    assert ft.modules == ("q", "v")
    with pytest.raises(EstimatorError, match="not allowed"):
        PRESETS.finetune("no-such-preset")


def test_llama3_mfu_is_a_round_value_inside_the_reported_range():
    # Llama 3 paper §3.3, table 4: BF16 MFU of 38-43% on 8K to 16K H100s; the site computes with 40%.
    run = load_presets().run("llama3-405b")
    assert run.mfu_reported == (0.38, 0.43)
    assert run.mfu_reported[0] <= run.mfu <= run.mfu_reported[1]


@pytest.mark.parametrize("reported", ["[0.41, 0.43]", "[0.38]", "[0.38, 1.5]"])
def test_a_reported_mfu_range_must_hold_the_run_mfu(reported):
    text = resources.files("estimators").joinpath("presets.toml").read_text("utf-8")
    text = text.replace("mfu_reported = [0.38, 0.43]", f"mfu_reported = {reported}", 1)
    with pytest.raises(EstimatorError, match="mfu_reported"):
        parse_presets(text)


def test_every_entry_knows_the_table_and_key_it_lives_at():
    for table in PRESETS.tables:
        for key, entry in getattr(PRESETS, table).items():
            assert address_of(entry) in {f"{name}.{key}" for name, t in PRESETS.declared.items() if t.holder == table}
    assert address_of(PRESETS.run("llama3-405b")) == "runs.llama3-405b"
    assert address_of(PRESETS.model("deepseek-v3")) == "moe_models.deepseek-v3"  # kept apart in the file, one namespace
    with pytest.raises(EstimatorError):
        address_of(DecoderConfig(layers=2, d_model=64, heads=4, kv_heads=2, ffn_dim=128, vocab=1000))


@pytest.mark.parametrize(
    "table, field, printed, unit, binary",
    [
        ("gpus", "memory_bytes", "bytes", "", True),
        ("gpus", "peak_flops", "si", "FLOP/s", False),
        ("runs", "params", "count", "", False),
        ("runs", "tokens", "count", "", False),
        ("runs", "mfu", "percent", "", False),
        ("runs", "gpus", "integer", "", False),
        ("failures", "window_seconds", "duration", "", False),
        ("interconnects", "bandwidth_bytes_per_s", "si", "B/s", False),
        ("models", "params", "count", "", False),
    ],
)
def test_an_entry_field_declares_how_its_number_reads(table, field, printed, unit, binary):
    declared = quantity_of(PRESETS.tables[table].entry, field)
    assert (declared.printed, declared.unit, declared.binary) == (printed, unit, binary)


def test_every_number_of_every_table_declares_how_it_reads():
    for name, table in PRESETS.tables.items():
        for field in table.fields:
            if field.type in ("number", "whole"):
                assert quantity_of(table.entry, field.name) is not None, (name, field.name)


WIDGET_TABLE = """
[tables.lenses]
lookup = "lens"
title = "Lenses"

[tables.lenses.fields]
name = { type = "text", column = "lens" }
gpu = { type = "text", key_of = "gpus", column = "GPU" }
focal_seconds = { type = "number", check = "positive", printed = "duration", column = "focus", note = "time to focus" }
source = { type = "text", check = "source", column = "source" }

[lenses.wide]
name = "a wide lens"
gpu = "h100"
focal_seconds = 2
source = "a catalogue"
"""


def test_a_table_declared_in_the_file_gets_its_dataclass_lookup_and_checks():
    presets = parse_presets(GPU + WIDGET_TABLE)
    lens = presets.lens("wide")
    assert (lens.name, lens.focal_seconds, address_of(lens)) == ("a wide lens", 2, "lenses.wide")
    assert presets.lookups["lens"] == "lenses"
    assert quantity_of(type(lens), "focal_seconds").printed == "duration"
    for change, where in [
        (("focal_seconds = 2", "focal_seconds = -2"), "lenses.wide.focal_seconds"),
        (('gpu = "h100"', 'gpu = "h200"'), "lenses.wide.gpu"),
        (('source = "a catalogue"', 'source = ""'), "lenses.wide.source"),
        (('check = "positive"', 'check = "big"'), "tables.lenses.fields.focal_seconds.check"),
        (('printed = "duration"', 'printed = "hours"'), "tables.lenses.fields.focal_seconds.printed"),
    ]:
        with pytest.raises(EstimatorError) as caught:
            parse_presets(GPU + WIDGET_TABLE.replace(*change))
        assert caught.value.argument == where


def test_a_lookup_is_a_method_as_the_pages_call_it():
    # A page's `load_presets().scale("rack")` is traced as a method call (site_build.derivation).
    assert inspect.ismethod(PRESETS.scale)
    assert PRESETS.scale("rack") is PRESETS.scales["rack"]
