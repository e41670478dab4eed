"""The training page's sections on tokens per parameter, checkpoints and interruptions, storage and
fine-tuning, as built.

Each figure is found by what made it, not by the sentence around it: in the build's numbers manifest
(`site/numbers.json`), an entry of the page whose derivation calls the same estimators on the same
presets, whose raw value is the one computed here and whose text is what the `units` formatter this
test calls writes for it. So a page that typed, miscomputed or misformatted a figure fails, and a
reworded sentence does not. Where a figure's place is the point (a table's row, the closing's
footnote, the order of the sections), it is read from the built HTML's structure. Where a source
article gives a figure for exactly the same inputs, the test also holds the computed text to that
published figure; where the inputs differ (an exact parameter count against the seed's round one),
the comment says so and no published figure is asserted.
"""

import dataclasses
import functools
import math
import re
from html.parser import HTMLParser

import pytest

import estimators
from estimators import units
from harness import markup
from site_build import numbers
from tests.contract.test_widget_wording import holds

PAGE = "training"
PRESETS = estimators.load_presets()
LLAMA3 = PRESETS.run("llama3-405b")  # N = 405,853,388,800 (the configuration's count), D = 15.6e12
LLAMA3_8B = PRESETS.run("llama3-8b")  # N = 8,030,261,248, D = 15e12
FAILURES = PRESETS.failure("llama3-405b")  # 466 interruptions (419 unexpected) in 54 days, 30-min checkpoints
LLAMA2_7B = PRESETS.model("llama2-7b")  # 6,738,415,616 parameters, d = 4096, 32 layers
LORA = PRESETS.finetune("lora-7b")  # r = 16 on q, k, v, o
QLORA = PRESETS.finetune("qlora-65b")  # LLaMA 65B, r = 64 on all seven linear layers, a 48 GB GPU

# The seed's widgets W1-W14 (../shared/BRIEF.md), one section each in the seed's order, W9 and W10
# sharing the section on checkpoints; the closing follows them with none.
SEED_SECTIONS = (
    ("training_loop",), ("loop_bill",), ("memory_bill",), ("moe_routing",), ("stages",), ("tokens_per_param",),
    ("parallel_cuts",), ("training_time",), ("checkpoint_modes", "interruptions"), ("storage_scale",),
    ("finetune_fit",), ("audit_lanes",), ("training_stack",), (),
)


# --- what the page printed: the manifest ------------------------------------------------------------


@pytest.fixture(scope="module")
def printed(built_site) -> list:
    """The build's manifest entries of the training page."""
    return [e for e in numbers.read(built_site) if e.page == f"{PAGE}.md"]


# A preset lookup (`model("x")`, `load_presets().setup("x")`, `load_presets().stages["x"]`) stands for
# its key, so that a figure is found by the entry it reads, however the page looked it up.
_LOOKUP = re.compile(
    r'(?:load_presets\(\)\.|(?<![\w.]))(?:%s)\("([^"]+)"\)|load_presets\(\)\.\w+\["([^"]+)"\]'
    % "|".join(sorted(map(re.escape, PRESETS.lookups), key=len, reverse=True))
)


@functools.cache
def keyed(derivation: str) -> str:
    """`tokens_per_param(run("llama3-8b").params, …)` as `tokens_per_param(«llama3-8b».params, …)`."""
    return _LOOKUP.sub(lambda m: f"«{m.group(1) or m.group(2)}»", derivation)


@functools.cache
def _whole(part: str) -> re.Pattern:
    """`part` standing whole: `activation_bytes(` not inside `model_activation_bytes(`."""
    start = r"(?<![\w.])" if re.match(r"\w", part[0]) else ""
    end = r"(?!\w)" if re.match(r"\w", part[-1]) else ""
    return re.compile(start + re.escape(part) + end)


def _names(part: str, derivation: str) -> bool:
    return _whole(part).search(keyed(derivation)) is not None


def prints(printed: list, value: float, text: str, *made_of: str) -> list:
    """The page's entries for `value`, printed as `text`, whose derivation goes through each of `made_of`:
    an estimator's call (`"tokens_per_param("`), a preset's field (`"«llama3-8b».tokens"`, the entry by its
    key), a field of a result (`".effective_share"`) or a literal argument (`'"hoffmann2022"'`).
    Fails, listing what the page printed through the first of `made_of` instead, when there is none."""
    found = [e for e in printed if e.value is not None and e.text == text and math.isclose(e.value, value, rel_tol=1e-9)
             and all(_names(p, e.derivation) for p in made_of)]
    if found:
        return found
    near = [e for e in printed if e.value is not None and _names(made_of[0], e.derivation)]
    raise AssertionError(
        f"the training page prints no {text!r} ({value!r}) made of {made_of}; through {made_of[0]!r} it prints: "
        + "; ".join(f"{e.where} {e.text!r} ({e.value!r}) = {e.derivation}" for e in near[:6])
    )


def widget_output(printed: list, widget: str, key: str) -> numbers.Entry:
    """The build-time output `key` of the page's widget `widget`."""
    found = [e for e in printed if re.fullmatch(rf'widget\("{widget}"[^)]*\)\.{key}', e.derivation)]
    assert found, f"the training page shows no output {key!r} of {widget}"
    return found[0]


# --- where the page printed it: the built HTML's structure ------------------------------------------


@dataclasses.dataclass
class Section:
    """One h2 section of the page (site_build/sections.py): its heading's id, its widgets, the
    footnotes it refers to."""

    headings: list = dataclasses.field(default_factory=list)  # the id of each h2 it holds
    widgets: list = dataclasses.field(default_factory=list)
    footnote_refs: list = dataclasses.field(default_factory=list)
    figures: list = dataclasses.field(default_factory=list)  # (text, value) of each printed number


@dataclasses.dataclass
class Built:
    sections: list
    tables: list  # each a list of rows, each a list of cells: (cell text, ((figure text, value), ...))
    footnotes: dict  # footnote id: (text, value) of each number it prints
    options: dict  # (widget, "field=value"): the text of each element a pick-one option shows


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


class _Structure(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.built = Built([], [], {}, {})
        self._stack = []  # (tag, what it opened)
        self._data = None  # [text, value] of the <data> being read
        self._cell = None  # [text, figures] of the table cell being read
        self._footnote = ""
        self._widget = ""
        self._options = []  # keys of the open option elements

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        opened = []
        if tag == "section" and "page-section" in (a.get("class") or "").split():
            self.built.sections.append(Section())
            opened.append("section")
        section = self.built.sections[-1] if self.built.sections else None
        if tag == "h2" and section is not None:
            section.headings.append(a.get("id", ""))
        if "data-widget" in a:
            self._widget = a["data-widget"]
            if section is not None:
                section.widgets.append(a["data-widget"])
            opened.append("widget")
        if "data-when" in a and self._widget:
            key = (self._widget, a["data-when"])
            self.built.options.setdefault(key, []).append("")
            self._options.append(key)
            opened.append("option")
        if tag == "sup" and (a.get("id") or "").startswith("fnref:") and section is not None:
            section.footnote_refs.append(a["id"].removeprefix("fnref:"))
        if tag == "li" and (a.get("id") or "").startswith("fn:"):
            self._footnote = a["id"].removeprefix("fn:")
            self.built.footnotes[self._footnote] = []
            opened.append("footnote")
        if tag == "table":
            self.built.tables.append([])
        if tag == "tr" and self.built.tables:
            self.built.tables[-1].append([])
        if tag in ("td", "th") and self.built.tables:
            self._cell = ["", []]
            opened.append("cell")
        if tag == "data" and "value" in a:
            self._data = ["", float(a["value"])]
            opened.append("data")
        if tag not in _VOID:
            self._stack.append((tag, opened))

    def handle_endtag(self, tag):
        if tag not in (open_tag for open_tag, _ in self._stack):
            return  # an end tag the HTML never opened
        while self._stack:
            open_tag, opened = self._stack.pop()
            for what in opened:
                self._close(what)
            if open_tag == tag:
                break

    def _close(self, what):
        if what == "data":
            figure = (" ".join(self._data[0].split()), self._data[1])
            if self.built.sections:
                self.built.sections[-1].figures.append(figure)
            if self._cell is not None:
                self._cell[1].append(figure)
            if self._footnote:
                self.built.footnotes[self._footnote].append(figure)
            self._data = None
        elif what == "cell":
            self.built.tables[-1][-1].append((" ".join(self._cell[0].split()), tuple(self._cell[1])))
            self._cell = None
        elif what == "footnote":
            self._footnote = ""
        elif what == "widget":
            self._widget = ""
        elif what == "option":
            self._options.pop()

    def handle_data(self, data):
        if self._data is not None:
            self._data[0] += data
        if self._cell is not None:
            self._cell[0] += data
        for key in self._options:
            self.built.options[key][-1] += data


@pytest.fixture(scope="module")
def built(built_site) -> Built:
    parser = _Structure()
    parser.feed(markup.well_formed((built_site / PAGE / "index.html").read_text("utf-8")))
    return parser.built


def figures_of(cells) -> list:
    """The texts of the numbers a row's cells print, cell by cell: [("563B",), ("11.3T",), ...]."""
    return [tuple(text for text, _ in figures) for _, figures in cells]


def row_printing(built: Built, *cells: tuple) -> list:
    """The table row whose cells after the first print exactly `cells` (each a tuple of figure texts)."""
    rows = [row for table in built.tables for row in table if figures_of(row[1:]) == list(cells)]
    assert rows, f"no table row of the training page prints {cells}"
    return rows[0]


# --- The order of the sections ----------------------------------------------------------------------


def test_sections_hold_the_seeds_widgets_in_the_seeds_order(built):
    sections = built.sections
    # One h2 heading a section, each with an anchor of its own.
    assert all(len(s.headings) == 1 and s.headings[0] for s in sections)
    assert len({s.headings[0] for s in sections}) == len(sections)
    assert [tuple(s.widgets) for s in sections[: len(SEED_SECTIONS)]] == list(SEED_SECTIONS)
    # What follows the closing is the build's own (the numbers' list, citing): no widget.
    assert not any(s.widgets for s in sections[len(SEED_SECTIONS):])


# --- The memory bill: activations of a real block ----------------------------------------------


def test_llama3_8b_activations_counted_for_its_own_block(printed):
    setup, config = PRESETS.setup("llama3-8b-node"), PRESETS.model("llama3-8b").config
    s, b = setup.seq_len, setup.micro_batch
    gpt3 = estimators.activation_bytes_per_layer(s, b, config.d_model, config.heads, recompute=setup.recompute)
    own = estimators.activation_bytes_per_layer(
        s, b, config.d_model, config.heads, recompute=setup.recompute,
        kv_heads=config.kv_heads, ffn_dim=config.ffn_dim, mlp=config.mlp, dropout=config.dropout,
    )
    assert own / gpt3 == 41 / 34  # see test_published_figures: 41 sbh for Llama 3 8B's block, 34 for GPT-3's
    block = ("activation_bytes_per_layer(", "«llama3-8b-node».seq_len", "«llama3-8b-node».micro_batch", "«llama3-8b».config.d_model")
    prints(printed, own, units.bytes_(own), *block, "«llama3-8b».config.kv_heads", "«llama3-8b».config.ffn_dim")
    prints(printed, gpt3, units.bytes_(gpt3), *block)
    prints(printed, own / gpt3 - 1, units.percent(own / gpt3 - 1), *block, "«llama3-8b».config.kv_heads")
    head = estimators.activation_output_bytes(s, b, config.d_model, config.vocab)
    output = ("activation_output_bytes(", "«llama3-8b-node».seq_len", "«llama3-8b».config.vocab")
    prints(printed, head, units.bytes_(head), *output)
    prints(printed, head / own, units.number(head / own), *output, *block, "«llama3-8b».config.kv_heads")


# --- Compute-optimal or over-trained ------------------------------------------------------------


def test_llama3_8b_tokens_per_parameter_counts_the_configurations_parameters(printed):
    # meta-llama/Meta-Llama-3-8B: 8,030,261,248 parameters (config.json) on over 15T tokens (model card).
    assert LLAMA3_8B.params == PRESETS.model("llama3-8b").params
    prints(printed, LLAMA3_8B.params, units.count(LLAMA3_8B.params), "«llama3-8b».params")
    prints(printed, LLAMA3_8B.tokens, units.count(LLAMA3_8B.tokens), "«llama3-8b».tokens")
    ratio = estimators.tokens_per_param(LLAMA3_8B.params, LLAMA3_8B.tokens)
    prints(printed, ratio, units.number(ratio), "tokens_per_param(", "«llama3-8b».params", "«llama3-8b».tokens")
    assert units.number(ratio) == "1,868"  # the seed's 1,875 is 15e12 / a round 8e9 (tests/estimators/test_seed_figures.py)


def test_chinchilla_ratio_comes_from_the_estimators_constant(printed):
    k = estimators.compute_constants().chinchilla_tokens_per_param
    # Stated in the prose and in the compute multiple's formula: each time the estimators' constant.
    assert len(prints(printed, k, units.number(k), "compute_constants(", ".chinchilla_tokens_per_param")) >= 2
    # The rule of thumb's split of a budget comes back to the same ratio.
    flops = estimators.training_flops(LLAMA3.params, LLAMA3.tokens)
    assert math.isclose(estimators.tokens_per_param(*estimators.compute_optimal(flops)), k)


def test_compute_multiple_is_93x_at_the_configurations_count(printed):
    multiple = estimators.compute_multiple(LLAMA3_8B.params, LLAMA3_8B.tokens)  # 1,868 / 20
    prints(printed, multiple, units.times(multiple), "compute_multiple(", "«llama3-8b».params", "«llama3-8b».tokens")
    assert units.times(multiple) == "93.4×"  # the seed's ≈ 94× is at a round 8e9


def test_same_compute_spent_the_chinchilla_way(printed):
    flops = estimators.training_flops(LLAMA3_8B.params, LLAMA3_8B.tokens)
    n, d = estimators.compute_optimal(flops)  # N = √(C / 6·20), D = 20·N
    budget = ("training_flops(", "«llama3-8b».params", "«llama3-8b».tokens")
    prints(printed, flops, units.sci(flops), *budget)
    prints(printed, n, units.count(n), "compute_optimal(", *budget)
    prints(printed, d, units.count(d), "compute_optimal(", *budget)


def test_rule_of_thumb_against_both_loss_fits_for_llama3_405b(printed, built):
    flops = estimators.training_flops(LLAMA3.params, LLAMA3.tokens)
    budget = 'run_preset_estimate("llama3-405b")'
    n, d = estimators.compute_optimal(flops)
    ratio = estimators.tokens_per_param(n, d)
    row_printing(built, (units.count(n),), (units.count(d),), (units.number(ratio),))
    for value in (n, d):
        prints(printed, value, units.count(value), "compute_optimal(", budget)
    ratios = {}
    for key, fit in estimators.loss_fits().items():
        n, d = estimators.chinchilla_optimal(flops, key)
        ratios[key] = estimators.tokens_per_param(n, d)
        # Each fit a row of its own, credited to its source.
        label, _ = row_printing(built, (units.count(n),), (units.count(d),), (units.number(ratios[key]),))[0]
        assert fit.source in label, key
        for value in (n, d):
            prints(printed, value, units.count(value), "chinchilla_optimal(", budget, f'"{key}"')
        prints(printed, ratios[key], units.number(ratios[key]), "tokens_per_param(", "chinchilla_optimal(", f'"{key}"')
    ratio = estimators.tokens_per_param(LLAMA3.params, LLAMA3.tokens)
    row_printing(built, (units.count(LLAMA3.params),), (units.count(LLAMA3.tokens),), (units.number(ratio),))
    prints(printed, ratio, units.number(ratio), "tokens_per_param(", "«llama3-405b».params", "«llama3-405b».tokens")
    apart = ratios["hoffmann2022"] / ratios["besiroglu2024"]
    prints(printed, apart, units.times(apart), "tokens_per_param(", '"hoffmann2022"', '"besiroglu2024"')
    # The point of the table: the fits straddle the rule, so 20 is a rule of thumb.
    assert ratios["besiroglu2024"] < 20 < ratios["hoffmann2022"]


def test_rounded_hoffmann_constants_are_a_row_of_their_own(printed, built):
    # Hoffmann et al. 2022 §3.3 prints α = 0.34, β = 0.28; the fit is α = 0.3392, β = 0.2849
    # (Besiroglu et al. 2024, table 1). The page names both and says how far the rounding moves N.
    flops = estimators.training_flops(LLAMA3.params, LLAMA3.tokens)
    fits = estimators.loss_fits()
    labels = {}
    for key in ("hoffmann2022", "hoffmann2022-rounded"):
        n, d = estimators.chinchilla_optimal(flops, key)
        ratio = estimators.tokens_per_param(n, d)
        labels[key] = row_printing(built, (units.count(n),), (units.count(d),), (units.number(ratio),))[0][0]
        assert fits[key].source in labels[key], key
        # Once in its row, once where the prose says how far the rounding moves N.
        assert len(prints(printed, n, units.count(n), "chinchilla_optimal(", f'"{key}"')) >= 2, key
    assert labels["hoffmann2022"] != labels["hoffmann2022-rounded"]
    assert units.count(estimators.chinchilla_optimal(flops, "hoffmann2022")[0]) != units.count(
        estimators.chinchilla_optimal(flops, "hoffmann2022-rounded")[0])


def test_zero_papers_7_5b_example_is_its_120_gb(printed):
    # Rajbhandari et al. 2020, §3.1: 16Ψ for Ψ = 7.5B is 120 GB.
    example = PRESETS.example("zero-7-5b")
    state = estimators.model_state_bytes(example.params)
    assert units.bytes_(state) == "120 GB"  # source article, same input
    prints(printed, example.params, units.count(example.params), "«zero-7-5b».params")
    prints(printed, state, units.bytes_(state), "model_state_bytes(", "«zero-7-5b».params")


# --- Checkpoints and interruptions --------------------------------------------------------------


def test_checkpoint_bytes_three_ways_per_model_at_the_configurations_count(printed, built):
    resumable, with_gradients = estimators.checkpoint_bytes_per_param(), estimators.checkpoint_bytes_per_param(True)
    assert (resumable, with_gradients) == (14, 16)  # 2 + 4 + 4 + 4; + 2 of BF16 gradients
    minimum = estimators.resume_bytes_per_param()
    assert minimum == 4 + 4 + 4  # FP32 master weights and both moments
    prints(printed, minimum, units.plain(minimum), "resume_bytes_per_param(")
    prints(printed, resumable, units.plain(resumable), "checkpoint_bytes_per_param(")
    prints(printed, with_gradients, units.plain(with_gradients), "checkpoint_bytes_per_param(")
    # The table: one column per way of counting, its bytes per parameter in its heading; a row per model
    # at its configuration's count (the seed's 1.12 TB is 16 B × a round 70e9; the page counts 70.55B).
    per_param = [(units.plain(minimum),), (units.plain(resumable),), (units.plain(with_gradients),)]
    assert any(figures_of(table[0][1:]) == per_param for table in built.tables)
    for key in ("llama3-70b", "llama3-405b"):
        params = PRESETS.model(key).params
        label, *cells = row_printing(
            built, (units.bytes_(minimum * params),), (units.bytes_(estimators.checkpoint_bytes(params)),),
            (units.bytes_(estimators.checkpoint_bytes(params, True)),))
        assert label[1] == ((units.count(params), params),), key  # the row's model, at its configuration's count
        prints(printed, params, units.count(params), f"«{key}».params")
        prints(printed, minimum * params, units.bytes_(minimum * params), "resume_bytes_per_param(", f"«{key}».params")
        prints(printed, estimators.checkpoint_bytes(params), units.bytes_(estimators.checkpoint_bytes(params)),
               "checkpoint_bytes(", f"«{key}».params")
        prints(printed, estimators.checkpoint_bytes(params, True), units.bytes_(estimators.checkpoint_bytes(params, True)),
               "checkpoint_bytes(", f"«{key}».params")
    big = estimators.checkpoint_bytes(PRESETS.model("llama3-405b").params, True)
    assert round(big / 1e12, 1) == 6.5  # source article: ≈ 6.5 TB at 16 B/param


def test_interruptions_one_every_3_hours(printed):
    mtbf = estimators.mtbf_seconds(FAILURES.interruptions, FAILURES.window_seconds)  # 4,665,600 s / 466
    prints(printed, FAILURES.interruptions, units.integer(FAILURES.interruptions), "«llama3-405b».interruptions")
    prints(printed, mtbf, units.duration(mtbf), "mtbf_seconds(", "«llama3-405b».interruptions", "«llama3-405b».window_seconds")
    assert round(mtbf / units.SECONDS_PER_HOUR) == 3  # source article: one every ≈ 3 h, same inputs
    prints(printed, FAILURES.unexpected, units.integer(FAILURES.unexpected), "«llama3-405b».unexpected")
    prints(printed, FAILURES.hardware_share, units.percent(FAILURES.hardware_share), "«llama3-405b».hardware_share")
    planned = FAILURES.interruptions - FAILURES.unexpected
    prints(printed, planned, units.integer(planned), "«llama3-405b».interruptions", "«llama3-405b».unexpected")


def test_mean_time_between_failures_counts_the_unexpected_interruptions_and_sets_dalys_interval(printed):
    # Llama 3 paper §3.3.4: 419 of the 466 were unexpected; 47 were planned (no failure).
    assert FAILURES.interruptions - FAILURES.unexpected == 47
    mtbf = estimators.mtbf_seconds(FAILURES.unexpected, FAILURES.window_seconds)  # 4,665,600 s / 419
    assert round(mtbf / units.SECONDS_PER_HOUR, 1) == 3.1  # the paper's figure
    # Stated where it is defined and again beside Daly's interval, which is computed from it.
    assert len(prints(printed, mtbf, units.duration(mtbf), "mtbf_seconds(", "«llama3-405b».unexpected")) >= 2
    m405, host = PRESETS.model(LLAMA3.model), PRESETS.interconnect("pcie5-h100")
    stall = estimators.checkpoint_stall(
        estimators.checkpoint_bytes(m405.params), LLAMA3.gpus, host.bandwidth_bytes_per_s,
        PRESETS.storage_system("llama3-tectonic").write_bytes_per_s, FAILURES.window_seconds, FAILURES.checkpoint_interval_seconds)
    daly = estimators.optimal_checkpoint_interval(stall.sync_s, mtbf)
    prints(printed, daly, units.duration(daly), "optimal_checkpoint_interval(", "checkpoint_stall(", "mtbf_seconds(",
           "«llama3-405b».unexpected")


def test_work_thrown_away_all_and_unexpected_only(printed):
    interval, window = FAILURES.checkpoint_interval_seconds, FAILURES.window_seconds
    cadence = ("lost_work_seconds(", "«llama3-405b».checkpoint_interval_seconds")
    lost = estimators.lost_work_seconds(FAILURES.interruptions, interval)  # 466 × 1800 / 2 = 419,400 s
    prints(printed, lost, units.duration(lost, "h"), *cadence, "«llama3-405b».interruptions")
    prints(printed, lost / window, units.percent(lost / window), *cadence, "«llama3-405b».interruptions",
           "«llama3-405b».window_seconds")
    # source article: ≈ 117 h, ≈ 9.0%, same inputs: 116.5 h, in hours, its half rounded up.
    assert lost / units.SECONDS_PER_HOUR == 116.5
    assert units.duration(lost, "h") == "117 h"
    assert round(lost / window * 100, 1) == 9.0
    unexpected = estimators.lost_work_seconds(FAILURES.unexpected, interval)  # 419 × 1800 / 2
    prints(printed, unexpected, units.duration(unexpected, "h"), *cadence, "«llama3-405b».unexpected")
    prints(printed, unexpected / window, units.percent(unexpected / window), *cadence, "«llama3-405b».unexpected")
    hours = estimators.gpu_hours(lost, LLAMA3.gpus)
    prints(printed, hours, units.count(hours), "gpu_hours(", *cadence, "«llama3-405b».interruptions", "«llama3-405b».gpus")
    share = estimators.effective_training_time(window, FAILURES.interruptions, interval).effective_share
    prints(printed, share, units.percent(share), "effective_training_time(", ".effective_share")
    prints(printed, FAILURES.effective_share, units.percent(FAILURES.effective_share), "«llama3-405b».effective_share")


# --- Storage --------------------------------------------------------------------------------------


def test_storage_at_llama2_7bs_exact_count(printed, built):
    s = estimators.storage_footprint(LLAMA2_7B.params)  # 20 tokens/param, 4 B/token, 5 kept, 14 B/param
    g = estimators.storage_footprint(LLAMA2_7B.params, include_gradients=True)
    exact = ("storage_footprint(", "«llama2-7b».params")
    prints(printed, LLAMA2_7B.params, units.count(LLAMA2_7B.params), "«llama2-7b».params")
    # The inputs the footprint assumes, each printed from the footprint itself.
    prints(printed, s.tokens / LLAMA2_7B.params, units.plain(s.tokens / LLAMA2_7B.params), *exact, ".tokens")
    prints(printed, s.tokens, units.count(s.tokens), *exact, ".tokens")
    prints(printed, s.dataset / s.tokens, units.plain(s.dataset / s.tokens), *exact, ".dataset", ".tokens")
    prints(printed, s.retained / s.checkpoint, units.plain(s.retained / s.checkpoint), *exact, ".retained", ".checkpoint")
    # The table: a row per part, its exact count's bytes as written and with gradients, then the seed's.
    # The seed's 560 / 14 / 112 / 560 GB are for a round 7e9 at 16 B/param: the page's third column.
    assert LLAMA2_7B.params != 7e9
    seed = PRESETS.example("round-7b")
    r = estimators.storage_footprint(seed.params, include_gradients=True)
    assert seed.params == 7e9
    published = ("560 GB", "14 GB", "112 GB", "560 GB", None)  # source article: 7e9 × 20 × 4 B; × 2 B; × 16 B; × 5 kept
    for part, figure in zip(("dataset", "weights", "checkpoint", "retained", "total"), published):
        values = [getattr(f, part) for f in (s, g, r)]
        if figure:
            assert units.bytes_(values[2]) == figure, part
        row_printing(built, *((units.bytes_(v),) for v in values))
        prints(printed, values[0], units.bytes_(values[0]), *exact, f".{part}")
        prints(printed, values[1], units.bytes_(values[1]), *exact, "include_gradients=true", f".{part}")
        prints(printed, values[2], units.bytes_(values[2]), "storage_footprint(", "«round-7b».params", f".{part}")
    width = estimators.token_id_bytes(LLAMA2_7B.config.vocab)
    prints(printed, width, units.plain(width), "token_id_bytes(", "«llama2-7b».config.vocab")


def test_fineweb_files_text_and_token_ids_each_from_its_own_inputs(printed):
    fineweb = PRESETS.dataset("fineweb")
    width = estimators.token_id_bytes(fineweb.vocab)  # GPT-2's 50,257 ids: 2 bytes
    uint32 = estimators.token_id_bytes(PRESETS.model("llama3-8b").config.vocab)  # 128,256 ids: 4 bytes
    assert (width, uint32) == (2, 4)
    # The dataset card's 44 TB is its compressed Parquet files, not the text: printed as that field.
    assert units.bytes_(fineweb.parquet_bytes) == "44 TB"  # the source article's figure, now named for what it is
    prints(printed, fineweb.parquet_bytes, units.bytes_(fineweb.parquet_bytes), "«fineweb».parquet_bytes")
    # Raw text at ≈ 4 characters per GPT-2 token (OpenAI's tokenizer guide): 15e12 × 4 B = 60 TB.
    raw = estimators.raw_text_bytes(fineweb.tokens, fineweb.chars_per_token)
    assert units.bytes_(raw) == "60 TB"
    prints(printed, raw, units.bytes_(raw), "raw_text_bytes(", "«fineweb».tokens", "«fineweb».chars_per_token")
    as_uint16 = estimators.dataset_bytes(fineweb.tokens, width)
    prints(printed, as_uint16, units.bytes_(as_uint16), "dataset_bytes(", "«fineweb».tokens", "token_id_bytes(", "«fineweb».vocab")
    assert as_uint16 * 2 == raw  # what the page says of it: half the text
    as_uint32 = estimators.dataset_bytes(fineweb.tokens, uint32)
    prints(printed, as_uint32, units.bytes_(as_uint32), "dataset_bytes(", "«fineweb».tokens", "token_id_bytes(",
           "«llama3-8b».config.vocab")
    assert units.bytes_(as_uint32) == "60 TB"  # source article: ≈ 60 TB as uint32 ids, same inputs
    # About as much as the text, never more: the seed's "more than the text it came from" is gone.
    assert units.bytes_(as_uint32) == units.bytes_(raw)


def test_largest_preset_and_checkpoints_written(printed):
    key, largest = max(PRESETS.models.items(), key=lambda item: item[1].params)
    s = estimators.storage_footprint(largest.params)
    prints(printed, largest.params, units.count(largest.params), f"«{key}».params")
    for part in ("total", "dataset", "weights", "retained"):
        prints(printed, getattr(s, part), units.bytes_(getattr(s, part)), "storage_footprint(", f"«{key}».params", f".{part}")
    written = int(FAILURES.window_seconds // FAILURES.checkpoint_interval_seconds)  # 54 days / 30 min = 2,592
    prints(printed, written, units.integer(written), "«llama3-405b».window_seconds", "«llama3-405b».checkpoint_interval_seconds")
    total = estimators.storage_footprint(LLAMA3.params, checkpoints_kept=written).retained
    prints(printed, total, units.bytes_(total), "storage_footprint(", "«llama3-405b».params", "«llama3-405b».window_seconds",
           ".retained")
    # What the section claims: kept stays in terabytes, written reaches petabytes.
    assert s.total < 1e15 <= total


# --- Fine-tuning ----------------------------------------------------------------------------------

ADAPTERS = ("lora_trainable_params(", "«llama2-7b».config.d_model", "«lora-7b».rank")


def test_lora_trainable_parameters_are_the_seeds(printed):
    config = LLAMA2_7B.config
    per_module = estimators.lora_trainable_params(config.d_model, LORA.rank, 1, 1)  # 2 × 4096 × 16
    adapters = estimators.lora_trainable_params(config.d_model, LORA.rank, len(LORA.modules), config.layers)
    # Llama 2 7B's q, k, v and o are square (32 KV heads), so the true shapes give the same count.
    assert adapters == estimators.lora_decoder_params(config, LORA.rank, LORA.modules)
    prints(printed, per_module, units.count(per_module), *ADAPTERS)
    prints(printed, adapters, units.count(adapters), *ADAPTERS, "«llama2-7b».config.layers")
    assert (units.count(per_module), units.count(adapters)) == ("131K", "16.8M")  # source article, same inputs
    share = adapters / LLAMA2_7B.params
    prints(printed, share, units.percent(share), *ADAPTERS, "«llama2-7b».params")
    # The seed's 0.24% divides by a round 7e9; the exact 6.74B gives 0.25%.
    assert round(share * 100, 2) == 0.25


def test_full_lora_qlora_memory_component_by_component_in_gb_and_gib(printed, built):
    card = PRESETS.gpu(LORA.gpu)
    for method in ("full", "lora", "qlora"):
        m = estimators.finetune_breakdown(method, LLAMA2_7B.config, LORA.rank, LORA.modules, LORA.quantization)
        fit = estimators.memory_fit(m.total, card.memory_bytes)
        trained = m.trainable_weights_bytes + m.gradients_bytes + m.optimizer_bytes
        # A row per method: its trained parameters and share, each part of its state (an empty cell for a
        # part it has not), its total in GB and in GiB, and its room to spare or how far over the card it is.
        row_printing(
            built, (units.count(m.trainable_params), units.percent(m.trainable_share)),
            (units.bytes_(m.base_quantized_bytes),) if m.base_quantized_bytes else (),
            (units.bytes_(m.base_16bit_bytes),) if m.base_16bit_bytes else (),
            (units.bytes_(trained),), (units.bytes_(m.total),), (units.bytes_(m.total, binary=True),),
            (units.bytes_(fit.spare, binary=True),) if fit.fits else (units.times(fit.ratio),),
        )
        of = ("finetune_breakdown(", f'"{method}"', "«llama2-7b».config", "«lora-7b».rank")
        prints(printed, m.total, units.bytes_(m.total, binary=True), *of, ".total")
        prints(printed, trained, units.bytes_(trained), *of, ".trainable_weights_bytes", ".gradients_bytes", ".optimizer_bytes")
        if fit.fits:
            prints(printed, fit.spare, units.bytes_(fit.spare, binary=True), "memory_fit(", *of, "«rtx-4090».memory_bytes", ".spare")
        else:
            prints(printed, fit.ratio, units.times(fit.ratio), "memory_fit(", *of, "«rtx-4090».memory_bytes", ".ratio")
    # QLoRA §3: BF16 adapter, BF16 gradient, two FP32 moments; a full fine-tune pays ZeRO's 16.
    q = estimators.finetune_breakdown("qlora", LLAMA2_7B.config, LORA.rank, LORA.modules, LORA.quantization)
    per_adapter = (q.trainable_weights_bytes + q.gradients_bytes + q.optimizer_bytes) / q.trainable_params
    assert per_adapter == 2 + 2 + 8
    prints(printed, per_adapter, units.plain(per_adapter), "finetune_breakdown(", '"qlora"', ".trainable_params")
    prints(printed, 16, units.plain(16), "bytes_per_param(", '"adam"', ".total")


def test_qlora_65b_on_one_48_gb_gpu(printed):
    base, card = PRESETS.model(QLORA.model), PRESETS.gpu(QLORA.gpu)
    m = estimators.finetune_breakdown("qlora", base.config, QLORA.rank, QLORA.modules, QLORA.quantization)
    fit = estimators.memory_fit(m.total, card.memory_bytes)
    of = ("finetune_breakdown(", '"qlora"', f"«{QLORA.model}».config", "«qlora-65b».rank")
    prints(printed, m.trainable_params, units.count(m.trainable_params), *of, ".trainable_params")
    prints(printed, m.base_quantized_bytes, units.bytes_(m.base_quantized_bytes), *of, ".base_quantized_bytes")
    prints(printed, m.base_16bit_bytes, units.bytes_(m.base_16bit_bytes), *of, ".base_16bit_bytes")
    trained = m.trainable_weights_bytes + m.gradients_bytes + m.optimizer_bytes
    prints(printed, trained, units.bytes_(trained), *of, ".trainable_weights_bytes", ".gradients_bytes", ".optimizer_bytes")
    prints(printed, m.total, units.bytes_(m.total), *of, ".total")
    # The card's memory as its vendor means it, binary, and in the decimal unit of the bill beside it.
    memory = f"«{QLORA.gpu}».memory_bytes"
    prints(printed, card.memory_bytes, units.bytes_(card.memory_bytes, binary=True), memory)
    prints(printed, card.memory_bytes, units.bytes_(card.memory_bytes), memory)
    # The QLoRA paper's claim, computed: about 44 GB of model state fits one 48 GiB card, a few GB spare.
    assert fit.fits and round(m.total / 1e9) == 44
    prints(printed, fit.spare, units.bytes_(fit.spare), "memory_fit(", *of, memory, ".spare")
    full = estimators.finetune_breakdown("full", base.config)
    lora = estimators.finetune_breakdown("lora", base.config, QLORA.rank, QLORA.modules)
    prints(printed, full.total, units.bytes_(full.total), "finetune_breakdown(", '"full"', f"«{QLORA.model}».config", ".total")
    prints(printed, lora.total, units.bytes_(lora.total), "finetune_breakdown(", '"lora"', f"«{QLORA.model}».config", ".total")
    # QLoRA §1: a 16-bit full fine-tune of LLaMA 65B needs "more than 780 GB": 12 B/param, no master copy.
    optimizer = f'"{QLORA.full_optimizer_reported}"'
    paper = estimators.model_state_bytes(base.params, QLORA.full_optimizer_reported)
    prints(printed, QLORA.full_bytes_reported, units.bytes_(QLORA.full_bytes_reported), "«qlora-65b».full_bytes_reported")
    per_param = estimators.bytes_per_param(QLORA.full_optimizer_reported).total
    assert per_param == 12
    prints(printed, per_param, units.plain(per_param), "bytes_per_param(", optimizer, ".total")
    prints(printed, paper, units.bytes_(paper), "model_state_bytes(", f"«{QLORA.model}».params", optimizer)
    assert QLORA.full_bytes_reported < paper  # "more than": the paper's figure is below the count


# --- The widgets of these sections, as built ---------------------------------------------------


def test_tokens_per_param_widget_prints_llama3_8bs_multiple(printed):
    n, d = LLAMA3_8B.params, LLAMA3_8B.tokens
    multiple = estimators.compute_multiple(n, d)  # 15e12 / (20 × 8,030,261,248)
    flops = estimators.training_flops(n, d)
    for fit in ("hoffmann2022", "besiroglu2024"):
        opt_n, opt_d = estimators.chinchilla_optimal(flops, fit)
        output = widget_output(printed, "tokens_per_param", fit)
        assert output.about.startswith("chinchilla_optimal@llama3-8b")
        assert holds(output.text, units.count(opt_n), units.count(opt_d)), output.text
    ratio = widget_output(printed, "tokens_per_param", "ratio")
    assert ratio.about.startswith("tokens_per_param@llama3-8b") and ratio.text == units.number(d / n)
    shown = widget_output(printed, "tokens_per_param", "multiple")
    assert shown.about.startswith("compute_multiple@llama3-8b") and shown.text == units.times(multiple)


def test_finetune_widget_prints_each_methods_bill_at_the_seeds_lora_setting(printed):
    config, gpu = LLAMA2_7B.config, PRESETS.gpu(LORA.gpu)
    for method in ("full", "lora", "qlora"):
        bill = estimators.finetune_bill(method, config, LORA.rank, LORA.modules, LORA.quantization,
                                        LORA.seq_len, LORA.micro_batch, LORA.recompute, gpu.memory_bytes)
        output = widget_output(printed, "finetune_fit", method)
        assert output.about.startswith("finetune_bill@lora-7b") and output.text == units.bytes_(bill.total), method
    adapters = estimators.lora_decoder_params(config, LORA.rank, LORA.modules)
    assert units.count(adapters) == "16.8M"  # source article: 16.8M, d = 4096, r = 16, 4 modules, 32 layers
    trainable = widget_output(printed, "finetune_fit", "trainable")
    assert trainable.about.startswith("lora_decoder_params@lora-7b") and holds(trainable.text, units.count(adapters))


def test_storage_widget_starts_at_the_seeds_7b_figures(printed):
    seed = PRESETS.example("round-7b")  # 7B, 20 tokens per parameter, 4 B a token, 5 kept, 16 B/param
    s = estimators.storage_footprint(seed.params, seed.tokens_per_param, seed.token_bytes, seed.checkpoints_kept,
                                     seed.checkpoint_gradients)
    # Source article: 560 GB of data, 112 GB a checkpoint, 560 GB for the five kept; 14 GB of weights.
    assert [units.bytes_(v) for v in (s.dataset, s.weights, s.checkpoint, s.retained)] == [
        "560 GB", "14 GB", "112 GB", "560 GB"]
    for part in ("dataset", "weights", "checkpoint", "retained", "total"):
        output = widget_output(printed, "storage_scale", part)
        assert output.about.endswith("@round-7b@round-7b") and output.text == units.bytes_(getattr(s, part)), part
    note = widget_output(printed, "storage_scale", "dataset_note").text
    assert holds(note, units.count(s.tokens), units.plain(seed.token_bytes)), note


def test_the_later_stages_state_their_ranges_from_their_published_runs(printed):
    # s1 (appendix D): 16 H100s for 26 minutes over 1,000 examples; QLoRA (§5): Guanaco on one GPU for
    # 24 hours; Alpaca: 52K examples; Zephyr (§4): 16 A100s for two to four hours over UltraFeedback's
    # 64K prompts; DeepSeek-V3 (table 1): 119K GPU-hours of context extension on 2,048 GPUs; DeepSeek-R1
    # (Nature, supplementary): R1-Zero for about 198 hours on 512 H800s.
    formats = {"gpus": units.integer, "seconds": units.duration, "gpu_hours": units.count, "examples": units.count,
               "artifact": units.bytes_}
    stated = {
        "sft": ("gpus_low", "gpus_high", "seconds_low", "seconds_high", "gpu_hours_low", "gpu_hours_high",
                "examples_low", "examples_high", "artifact_low"),
        "preference": ("gpus_low", "seconds_low", "seconds_high", "examples_low"),
        "mid-training": ("gpus_low", "seconds_low"),
        "rl": ("gpus_low", "seconds_low", "artifact_high"),
    }
    for key, fields in stated.items():
        span = estimators.stage_span(key)
        for field in fields:
            value = getattr(span, field)
            text = formats[field.rsplit("_", 1)[0]](value)
            prints(printed, value, text, f'stage_span("{key}")', f".{field}")


def test_every_audit_practice_and_stack_layer_reads_without_javascript(built):
    from pyodide_widgets.widgets import audit_lanes, training_stack

    for widget in (audit_lanes, training_stack):
        field = widget.FIELDS[0].name
        for key, option in widget.OPTIONS.items():
            # The option's own element in the page's HTML, as the build wrote it: no script shows it.
            shown = [" ".join(text.split()) for text in built.options.get((widget.__name__.rsplit(".", 1)[-1], f"{field}={key}"), [])]
            assert shown, (widget.__name__, key)
            for heading, detail in option["details"]:
                assert any(heading in text and detail in text for text in shown), (option["name"], heading)


def test_closing_footnote_sets_the_sparse_peak_beside_the_dense_one(printed, built):
    gpu = PRESETS.gpu(LLAMA3.gpu)
    dense = gpu.peak_flops[LLAMA3.precision]  # H100 BF16: 989 TFLOP/s dense
    sparse = estimators.sparse_peak_flops(dense)  # 2 × 989 = 1,978: the datasheet's 1,979 with sparsity, rounded
    peak = 'run_preset_estimate("llama3-405b").peak_flops_per_gpu'
    prints(printed, sparse, units.si(sparse, "FLOP/s"), "sparse_peak_flops(", peak)
    prints(printed, dense, units.si(dense, "FLOP/s"), peak)
    # Both in one footnote, which the closing refers to.
    closing = built.sections[len(SEED_SECTIONS) - 1]
    both = {(units.si(sparse, "FLOP/s"), sparse), (units.si(dense, "FLOP/s"), dense)}
    notes = [key for key, figures in built.footnotes.items() if both <= set(figures)]
    assert notes and set(notes) & set(closing.footnote_refs)


def test_deepspeeds_zero2_count_is_2_plus_18_over_n_not_megatrons_18(built_site):
    # DeepSpeed's count needs ZeRO's stages: the methods page sets it out, under where the sources disagree.
    printed = [e for e in numbers.read(built_site) if e.page == "methods.md"]
    # deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs:
    # gpu_mem = 2 * total_params + 18 * total_params / total_gpus (18 = 16-bit and 32-bit gradients,
    # 32-bit master weights, two 32-bit moments), 20 bytes per parameter on one GPU.
    fp32 = estimators.bytes_per_param("adam_fp32_grads")
    assert fp32.total == 18  # Megatron-LM: BF16 weights, FP32 gradients, master, two moments
    shared = fp32.total - fp32.weights + estimators.bytes_per_param("adam").gradients
    assert (fp32.weights, shared) == (2, 18)
    of = ("bytes_per_param(", '"adam_fp32_grads"')
    prints(printed, fp32.total, units.plain(fp32.total), *of, ".total")
    prints(printed, fp32.weights, units.plain(fp32.weights), *of, ".weights")
    # The shared 18 is made of DeepSpeed's parts, not Megatron-LM's total: it reads the BF16 gradients too.
    prints(printed, shared, units.plain(shared), *of, ".weights", '"adam"', ".gradients")
    prints(printed, fp32.weights + shared, units.plain(fp32.weights + shared), *of, '"adam"', ".gradients")


def test_the_closing_sets_the_ideal_gpu_hours_beside_metas_published_figure(printed, built):
    # Llama 3.1 model card: 30.84M H100-hours for the 405B model.
    ideal = estimators.run_preset_estimate("llama3-405b").gpu_hours
    estimate = 'run_preset_estimate("llama3-405b")'
    prints(printed, ideal, units.count(ideal), estimate)
    reported = LLAMA3.gpu_hours_reported
    prints(printed, reported, units.count(reported), "«llama3-405b».gpu_hours_reported")
    prints(printed, reported / ideal, units.times(reported / ideal), "«llama3-405b».gpu_hours_reported", estimate)
    # All three in the closing.
    closing = built.sections[len(SEED_SECTIONS) - 1]
    for text, value in ((units.count(ideal), ideal), (units.count(reported), reported), (units.times(reported / ideal), None)):
        assert any(t == text and (value is None or math.isclose(v, value)) for t, v in closing.figures), text


def test_mixtrals_active_parameters_card_credits_a_source_that_gives_that_figure(printed):
    # The paper (Jiang et al. 2024) prints 47B and 13B; 46.7B and 12.9B are the announcement's. The
    # figure's card names its input's source, which gives the figure the page prints.
    model = PRESETS.model("mixtral-8x7b")
    active = estimators.moe_params(model.config).active
    for entry in prints(printed, active, units.count(active), "moe_params(", "«mixtral-8x7b».config", ".active"):
        assert any(model.source in line for line in entry.inputs), entry.inputs
    # The source the card credits gives the printed figures themselves, as computed from the configuration: not
    # only the paper's rounded ones.
    counted = estimators.moe_params(model.config)
    assert units.count(counted.active) in model.source and units.count(counted.total) in model.source


def test_gpt2s_sequence_counts_its_output_layer_beside_its_twelve_layers(printed):
    # Korthikanti et al. 2022, §4.1: the per-layer table leaves the output layer out; GPT-2's
    # config.json (n_ctx 1,024, n_embd 768, vocab 50,257): 4sbh + 4sbV = 209 MB more for the logits.
    c = PRESETS.model("gpt2-124m").config
    layers = estimators.activation_bytes(c.max_positions, 1, c.d_model, c.heads, c.layers)
    output = estimators.activation_output_bytes(c.max_positions, 1, c.d_model, c.vocab)
    assert units.bytes_(output) == "209 MB"
    prints(printed, layers, units.bytes_(layers), "activation_bytes(", "«gpt2-124m».config.max_positions", "«gpt2-124m».config.layers")
    prints(printed, c.layers, units.integer(c.layers), "«gpt2-124m».config.layers")
    prints(printed, output, units.bytes_(output), "activation_output_bytes(", "«gpt2-124m».config.max_positions",
           "«gpt2-124m».config.vocab")


def test_the_trainable_share_prints_the_sites_convention_and_peft_s_apart(printed):
    # PEFT's print_trainable_parameters divides by all parameters, base and adapters: for Llama 2 7B
    # with r = 16 on q, k, v, o it prints 0.2484%; the site divides by the base, 0.249%.
    adapters = estimators.lora_trainable_params(LLAMA2_7B.config.d_model, LORA.rank, len(LORA.modules), LLAMA2_7B.config.layers)
    assert adapters == 16_777_216
    assert round(100 * adapters / (LLAMA2_7B.params + adapters), 4) == 0.2484
    ours, peft = adapters / LLAMA2_7B.params, adapters / (LLAMA2_7B.params + adapters)
    prints(printed, ours, units.percent(ours), *ADAPTERS, "«llama2-7b».params")
    prints(printed, peft, units.percent(peft), *ADAPTERS, "«llama2-7b».params")
    assert units.percent(ours) != units.percent(peft)  # the two conventions read apart


def test_the_long_context_dp_group_is_the_replicas_times_the_context_parallel_gpus(printed, built):
    # Llama 3 paper, table 4 and §3.3.2: the 128K stage is DP 8 × CP 16; the gradients' all-reduce
    # spans both, 128 GPUs, the group the traffic table prints.
    l128 = PRESETS.layout("llama3-405b-128k")
    traffic = estimators.layout_preset_traffic("llama3-405b-128k")
    dp = next(c for c in traffic.cuts if c.cut == "dp")
    assert dp.group_gpus == l128.dp * l128.cp == 128 and l128.dp == 8
    prints(printed, l128.dp, units.integer(l128.dp), "«llama3-405b-128k».dp")
    prints(printed, l128.dp * l128.cp, units.integer(dp.group_gpus), "«llama3-405b-128k».dp", "«llama3-405b-128k».cp")
    prints(printed, dp.group_gpus, units.integer(dp.group_gpus), 'layout_preset_traffic("llama3-405b-128k")', ".group_gpus")


def test_the_405b_pipeline_bill_overflows_the_card_and_full_recomputation_brings_it_inside(printed):
    # Llama 3 trained on 80 GiB H100s (§3.3); the paper does not publish its memory savings. The
    # selective-recomputation count exceeds the card; full recomputation brings it inside.
    s = PRESETS.setup("llama3-405b-3d")
    config, memory = PRESETS.model(s.model).config, PRESETS.gpu(s.gpu).memory_bytes
    bill = {rc: estimators.memory_bill(config, s.gpus, s.zero_stage, s.optimizer, s.seq_len, s.micro_batch, rc, s.tp, memory, s.pp)
            for rc in ("selective", "full")}
    assert not bill["selective"].fit.fits and bill["full"].fit.fits
    of = ("memory_bill(", "«llama3-405b-3d».seq_len", ".memory")
    for rc in ("selective", "full"):
        total = bill[rc].memory.total
        prints(printed, total, units.bytes_(total), *of, f'"{rc}"', ".total")
    prints(printed, bill["full"].memory.activations, units.bytes_(bill["full"].memory.activations), *of, '"full"', ".activations")


def test_the_7b_fine_tuning_ranges_are_computed_at_the_settings_that_give_them(printed):
    # The seed's ranges for a 7B model: a full fine-tune about 100-120 GB, LoRA about 15-23 GB,
    # QLoRA under 10 GB. At the widget's first setting the site's bills fall inside or beside them.
    config, gpu = LLAMA2_7B.config, PRESETS.gpu(LORA.gpu)
    bills = {m: estimators.finetune_bill(m, config, LORA.rank, LORA.modules, LORA.quantization, LORA.seq_len,
                                         LORA.micro_batch, LORA.recompute, gpu.memory_bytes) for m in ("full", "lora", "qlora")}
    assert 100e9 < bills["full"].total < 120e9 and bills["qlora"].total < 10e9
    assert 10e9 < bills["lora"].total < 23e9
    for method, bill in bills.items():
        prints(printed, bill.total, units.bytes_(bill.total), f'finetune_bill("{method}"', "«lora-7b».seq_len",
               "«lora-7b».micro_batch", ".total")
    # LoRA's bill is nearly all the frozen BF16 base.
    lora = bills["lora"]
    assert lora.state.base_16bit_bytes / lora.total > 0.9


def test_lora_and_qlora_quality_is_set_beside_full_fine_tuning_as_their_papers_report_it(printed):
    # Hu et al. 2021 (LoRA), tables 2-4: on par with or better than full fine-tuning; Dettmers et al.
    # 2023 (QLoRA), §5: NF4 with LoRA matches 16-bit full fine-tuning. Each published pair of scores is
    # printed with the adapter's share of the full fine-tune's score, computed.
    for key, result in PRESETS.adapter_results.items():
        share = estimators.share_of_full_score(result.adapter_score, result.full_score)
        prints(printed, result.adapter_score, units.number(result.adapter_score), f"«{key}».adapter_score")
        prints(printed, result.full_score, units.number(result.full_score), f"«{key}».full_score")
        prints(printed, share, units.percent(share), "share_of_full_score(", f"«{key}».adapter_score", f"«{key}».full_score")
    q = PRESETS.finetune("qlora-65b")
    share = estimators.finetune_breakdown("qlora", PRESETS.model(q.model).config, q.rank, q.modules, q.quantization).trainable_share
    prints(printed, share, units.percent(share), "finetune_breakdown(", '"qlora"', "«qlora-65b».rank", ".trainable_share")


def test_the_pretraining_stage_gives_its_range_and_its_artifact(printed):
    # DeepSeek-V3 report, table 1: 2,048 H800 GPUs; Llama 3 paper §3.3: 16,384 H100s, 15.6T tokens,
    # 3.8e25 FLOPs. The artifact: 2 bytes a weight of the 405,853,388,800 (the seed: "405B -> ~810 GB").
    pre = PRESETS.stage("pretraining")
    weights = estimators.weights_bytes(PRESETS.model("llama3-405b").params)
    assert units.bytes_(weights) == "812 GB"
    prints(printed, pre.gpus, units.integer(pre.gpus), "«pretraining».gpus")
    prints(printed, LLAMA3.gpus, units.integer(LLAMA3.gpus), "«llama3-405b».gpus")
    prints(printed, LLAMA3.tokens, units.count(LLAMA3.tokens), "«llama3-405b».tokens")
    prints(printed, weights, units.bytes_(weights), "weights_bytes(", "«llama3-405b».params")
