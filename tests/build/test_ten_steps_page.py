"""The ten-steps page as built: each number it shows is the estimators' number for its presets.

Every expected text below is computed here from the same presets with the same estimators and
the same `units` formatters the page's macros use, so a change to a preset or a formula moves the
page and this test together, and a page that typed or miscomputed a figure fails.
"""

import re
from html.parser import HTMLParser

import pytest

import estimators
from estimators import units
from harness import markup
from pyodide_widgets.widgets import ten_steps, training_time

PRESETS = estimators.load_presets()
LADDER = ("gpu", "server", "rack", "cluster", "frontier")


class _Page(HTMLParser):
    """The article's text, and its tables as lists of rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.text: list[str] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None
        self._in_article = False

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self._in_article = True
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "article":
            self._in_article = False
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(_squeeze("".join(self._cell)))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_article:
            self.text.append(data)


def _squeeze(text: str) -> str:
    """Collapse the line breaks the Markdown source wraps prose with."""
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def page(built_site):
    parsed = _Page()
    parsed.feed(markup.well_formed((built_site / "ten-steps" / "index.html").read_text(encoding="utf-8")))
    return parsed


@pytest.fixture(scope="module")
def prose(page) -> str:
    return _squeeze("".join(page.text))


@pytest.fixture(scope="module")
def scale_table(page) -> dict:
    """'Where scale changes the answer', as {scale: (what gets hard, example)}."""
    [table] = [t for t in page.tables if t and t[0] == ["Scale", "What gets hard", "Example"]]
    return {row[0]: tuple(row[1:]) for row in table[1:]}


def ideal_seconds(key: str) -> float:
    """C = 6ND over GPUs × dense peak × MFU, for a run preset."""
    return estimators.run_preset_estimate(key).seconds


def test_the_table_has_one_row_per_rung_in_ladder_order(scale_table):
    assert list(scale_table) == [PRESETS.scale(key).name for key in LADDER]


def test_one_gpu_row_is_the_gpt2_a5000_run(scale_table):
    run = PRESETS.run("gpt2-124m-10b-a5000")
    _, example = scale_table[PRESETS.scale("gpu").name]
    flops = estimators.training_flops(run.params, run.tokens)
    assert example == (
        f"{PRESETS.model('gpt2-124m').name} on one {PRESETS.gpu(run.gpu).name} for {units.count(run.tokens)} tokens: "
        f"{units.sci(flops)} FLOPs, {units.duration(ideal_seconds('gpt2-124m-10b-a5000'))} at an assumed "
        f"{units.percent(run.mfu)} MFU"
    )


def test_one_server_row_is_the_same_run_on_eight_h100s(scale_table):
    run = PRESETS.run("gpt2-124m-10b-8xh100")
    hard, example = scale_table[PRESETS.scale("server").name]
    assert f"between {units.integer(PRESETS.scale('server').max_gpus)} GPUs" in hard
    # The ideal time beside a published one and the MFU that one implies (modded-nanogpt's README: llm.c's
    # GPT-2 124M reproduction, 45 minutes for 10B tokens on 8 × H100).
    e = estimators.run_preset_estimate("gpt2-124m-10b-8xh100")
    mfu = estimators.implied_mfu(e.flops, run.seconds_reported, run.gpus, e.peak_flops_per_gpu)
    assert example == (
        f"The same run on {units.integer(run.gpus)} × {PRESETS.gpu(run.gpu).name}: "
        f"{units.duration(ideal_seconds('gpt2-124m-10b-8xh100'))} ideally, at the same assumed MFU; "
        f"llm.c's published run of this setup took {units.duration(run.seconds_reported)}, which is an MFU of {units.percent(mfu)}"
    )
    assert mfu < run.mfu  # the realistic time is the longer one
    # Same model, same tokens, so the same C = 6ND as the one-GPU row.
    one = PRESETS.run("gpt2-124m-10b-a5000")
    assert (run.params, run.tokens) == (one.params, one.tokens)


def test_one_rack_row_shards_llama3_405b_over_an_nvl72(scale_table):
    llama = PRESETS.run("llama3-405b")
    rack = PRESETS.scale("rack").max_gpus
    gpus = estimators.min_data_parallel_gpus(llama.params, 3, PRESETS.gpu("gb200").memory_bytes)
    assert gpus <= rack  # the point of the row: it fits inside one NVLink domain
    _, example = scale_table[PRESETS.scale("rack").name]
    assert example == (
        f"GB200 NVL72: {PRESETS.model('llama3-405b').name}'s training state, "
        f"{units.bytes_(estimators.model_state_bytes(llama.params))} before activations, "
        f"needs at least {units.integer(gpus)} of its {units.integer(rack)} GPUs when ZeRO-3 shards it, "
        "and never leaves NVLink"
    )


def test_cluster_row_is_a_llama3_70b_checkpoint(scale_table):
    model = PRESETS.model("llama3-70b")
    _, example = scale_table[PRESETS.scale("cluster").name]
    assert example == f"{model.name}: {units.bytes_(estimators.checkpoint_bytes(model.params))} to write at every checkpoint"


def test_frontier_row_is_llama3(scale_table):
    run, failures = PRESETS.run("llama3-405b"), PRESETS.failure("llama3-405b")
    _, example = scale_table[PRESETS.scale("frontier").name]
    assert example == (
        f"{PRESETS.model('llama3-405b').name}: {units.count(run.tokens)} tokens on up to "
        f"{units.integer(run.gpus)} {PRESETS.gpu(run.gpu).name} GPUs; "
        f"{units.integer(failures.unexpected)} unexpected interruptions in {units.duration(failures.window_seconds)}"
    )


def test_the_ladder_is_stated_from_the_presets(prose):
    assert f"up to {units.integer(PRESETS.scale('server').max_gpus)} GPUs in one chassis" in prose
    assert f"up to {units.integer(PRESETS.scale('rack').max_gpus)} GPUs that share a single NVLink domain" in prose
    cluster, frontier = PRESETS.scale("cluster"), PRESETS.scale("frontier")
    assert f"from {units.integer(cluster.min_gpus)} to {units.integer(cluster.max_gpus)} GPUs" in prose
    assert f"{units.integer(frontier.min_gpus)} GPUs and up" in prose


def test_the_rung_follows_what_the_job_crosses(prose):
    # Nine GPUs (one more than an HGX server's eight, NVIDIA HGX H100 datasheet) inside one GB200
    # NVL72 (72 GPUs in one NVLink domain, its datasheet) stay on NVLink: a rack job. Nine H100s span
    # two servers and cross InfiniBand: a cluster job.
    scales = PRESETS.scales
    nine = PRESETS.scale("rack").min_gpus
    assert nine == PRESETS.scale("server").max_gpus + 1
    assert estimators.scale_rung(nine, PRESETS.gpu("gb200").nvlink_domain_gpus, scales) == "rack"
    assert estimators.scale_rung(nine, PRESETS.gpu("h100-sxm").nvlink_domain_gpus, scales) == "cluster"
    assert f"{units.integer(nine)} GPUs inside one GB200 NVL72 rack talk over NVLink" in prose
    assert f"make a job for {PRESETS.scale('rack').name};" in prose
    assert f"which makes them a job for {PRESETS.scale('cluster').name}." in prose


def test_every_step_names_the_rung_it_needs_attention_from(prose):
    # The seed article's rungs for steps 1 to 10.
    rungs = ("gpu", "gpu", "cluster", "server", "rack", "gpu", "cluster", "gpu", "gpu", "gpu")
    found = re.findall(r"Needs real attention from: (.+?)\.", prose)
    assert [PRESETS.scale(step.rung).name for step in ten_steps.STEPS.values()] == found
    assert found == [PRESETS.scale(key).name for key in rungs]


def test_gpt2_dataset_is_two_byte_ids(prose):
    vocab = PRESETS.model("gpt2-124m").config.vocab
    width = estimators.token_id_bytes(vocab)
    assert width == 2  # 50,257 ids fit in an unsigned 16-bit integer
    tokens = PRESETS.dataset("fineweb-edu-10b").tokens
    size = estimators.dataset_bytes(tokens, width)
    assert size == 20e9  # the seed's figure: 10B tokens × 2 B
    assert f"every id fits in {units.plain(width)} bytes, and the {units.count(tokens)} tokens" in prose
    assert f"take {units.bytes_(size)} on disk" in prose


def test_model_state_and_checkpoint_bytes(prose):
    per = estimators.bytes_per_param("adam")
    small = PRESETS.model("llama3-8b")
    h100 = PRESETS.gpu("h100-sxm")
    assert f"Adam keeps {units.plain(per.total)} bytes of state for every parameter" in prose
    assert (
        f"it comes to {units.bytes_(estimators.model_state_bytes(small.params))}, which no single "
        f"{h100.name} with its {units.bytes_(h100.memory_bytes, binary=True)} can hold"
    ) in prose
    assert f"smaller, {units.plain(estimators.checkpoint_bytes_per_param())} bytes per parameter" in prose
    assert f"({units.plain(estimators.checkpoint_bytes_per_param(include_gradients=True))} if they are)" in prose


def test_llama3_failures_and_mfu(prose):
    f, run = PRESETS.failure("llama3-405b"), PRESETS.run("llama3-405b")
    low, high = run.mfu_reported
    assert f"Meta reports an MFU of {units.percent(low)} to {units.percent(high)}" in prose
    assert f"This site computes with {units.percent(run.mfu)}, a round value inside that range" in prose
    assert (
        f"across {units.duration(f.window_seconds)} of pretraining, the job was interrupted unexpectedly "
        f"{units.integer(f.unexpected)} times, roughly one stop every "
        f"{units.duration(estimators.mtbf_seconds(f.unexpected, f.window_seconds))}, "
        f"with hardware to blame for about {units.percent(f.hardware_share)} of them"
    ) in prose
    assert f"more than {units.percent(f.effective_share)} of the time went to training" in prose
    model = PRESETS.model("llama3-70b")
    assert f"A single checkpoint of {model.name}, for instance, is {units.bytes_(estimators.checkpoint_bytes(model.params))}" in prose


def test_the_prose_says_the_gpt2_mfu_is_an_assumption(prose):
    assert "assumed" in PRESETS.run("gpt2-124m-10b-a5000").source or "assumption" in PRESETS.run("gpt2-124m-10b-a5000").source
    assert f"The {units.percent(PRESETS.run('gpt2-124m-10b-a5000').mfu)} MFU behind both is an assumption" in prose


def test_widget_starts_from_the_gpt2_preset(built_site):
    page = markup.parse((built_site / "ten-steps" / "index.html").read_text(encoding="utf-8"))
    assert len(list(page.iter(data_widget="training_time"))) == 1
    outputs = training_time.update(training_time.presets()["gpt2-124m-10b-a5000"]["state"])["outputs"]
    duration = page.find(data_output="duration").text()
    assert duration == outputs["duration"] == units.duration(ideal_seconds("gpt2-124m-10b-a5000"))


def test_step_6_ties_each_reported_mfu_to_its_layout_not_to_the_gpu_count_alone(built_site):
    # Llama 3 paper, table 4: 43% on 8,192 GPUs and 41% on 16,384 at 8K-token sequences; 38% on the
    # same 16,384 GPUs at 131K tokens. The low end is the long-context run, not a larger fleet.
    from tests.build.test_build import page_text

    text = " ".join(page_text(built_site, "ten-steps").split())
    l8, l128 = PRESETS.layout("llama3-405b-8k"), PRESETS.layout("llama3-405b-128k")
    assert (l8.mfu, l128.mfu) == (0.41, 0.38)
    assert l8.tp * l8.cp * l8.pp * l8.dp == l128.tp * l128.cp * l128.pp * l128.dp == 16384
    assert (f"on all {units.integer(16384)} it is {units.percent(l8.mfu)} with {units.integer(l8.seq_len)}-token "
            f"sequences and {units.percent(l128.mfu)} on the same GPUs once the sequences grow to "
            f"{units.integer(l128.seq_len)} tokens") in text
    assert "depending on how many GPUs shared the job" not in text


def test_step_4_gives_zeros_own_7_5b_example(built_site):
    # ZeRO, figure 1: 7.5B parameters, 120 GB on every GPU of plain data parallelism, 1.9 GB at stage 3 over 64.
    from tests.build.test_build import page_text

    text = " ".join(page_text(built_site, "ten-steps").split())
    example = PRESETS.example("zero-7-5b")
    assert (f"a model of {units.count(example.params)} parameters: plain data parallelism gives every GPU all "
            f"{units.bytes_(estimators.model_state_bytes(example.params))} of its state") in text
    assert f"leaves each with {units.bytes_(estimators.zero_bytes_per_gpu(example.params, example.gpus, 3))}" in text


def test_no_row_of_the_scale_table_calls_a_step_hard_below_the_rung_it_needs_attention_from(scale_table):
    # The ten-steps widget and each step's own paragraph say from which rung a step needs real attention
    # (ten_steps.toml); the table once called step 4 hard at one GPU, which step 4 puts at one server.
    steps = list(ten_steps.STEPS.values())
    for key in LADDER:
        hard, _ = scale_table[PRESETS.scale(key).name]
        named = re.search(r"\(steps? ([\d, and]+)\)", hard)
        assert named, hard
        for number in map(int, re.findall(r"\d+", named.group(1))):
            step = steps[number - 1]
            assert LADDER.index(step.rung) <= LADDER.index(key), (key, number, step.title, step.rung)
