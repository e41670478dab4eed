"""The training article reads for a newcomer: a quantity is named before the page prices it, a table's
inputs are stated before the table, no sentence runs on past what a reader holds at once, and a table
and the widget beside it each count what they say they count.

Read from the built page's structure (its sections, its paragraphs, list items and table rows, the
figures each prints with their values, the glossary's cards) against the estimators' values, never
from its sentences: a reworded page passes; a page that prices a weight before saying what N is, or
prints a figure the estimators did not make, fails.
"""

import dataclasses
import html
import re
from html.parser import HTMLParser

import pytest

import estimators
import pyodide_widgets
from estimators import units
from harness import markup
from pyodide_widgets.widgets import loop_bill

PRESETS = estimators.load_presets()
# The most words between two stops (. ! ? ; :) a reader is asked to hold; the one-forward-one-backward
# sentence this replaced ran to about ninety.
LONGEST_SENTENCE_WORDS = 60
# The loop's worked example, as the page's first section sets it: Llama 3 8B on one server's sequences.
LOOP_SETUP = PRESETS.setup("llama3-8b-node")
LOOP = estimators.loop_costs(PRESETS.model(LOOP_SETUP.model).config, LOOP_SETUP.seq_len)
BLOCKS = ("p", "li", "tr")


@dataclasses.dataclass
class Block:
    """A paragraph, list item or table row of the article, under the h2 whose id is `section`."""

    kind: str
    section: str
    start: int  # where its text begins in the article's text
    text: str = ""
    lead: str = ""  # the text of its first <strong>
    figures: list = dataclasses.field(default_factory=list)  # (text, value) of each printed number
    links: list = dataclasses.field(default_factory=list)  # the href of each link in it


@dataclasses.dataclass
class Event:
    """A printed number ("figure") or a glossary card ("card") at `at` in the article's text."""

    what: str
    section: str
    at: int
    text: str
    value: float | None = None


class Article(HTMLParser):
    """The article's text, blocks and events, in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.blocks, self.events = "", [], []
        self._section, self._open, self._data, self._card, self._strong = "", [], None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2" and a.get("id"):
            self._section = a["id"]
        if tag in BLOCKS:
            block = Block(tag, self._section, len(self.text))
            self.blocks.append(block)
            self._open.append(block)
        if tag == "data" and "value" in a:
            self._data = Event("figure", self._section, len(self.text), "", float(a["value"]))
        if tag == "abbr" and "data-card" in a:
            self._card = Event("card", self._section, len(self.text), "")
        if tag == "a" and "href" in a:
            for block in self._open:
                block.links.append(a["href"])
        if tag == "strong" and self._open and not self._open[-1].lead:
            self._strong = self._open[-1]

    def handle_endtag(self, tag):
        if tag in BLOCKS and self._open and self._open[-1].kind == tag:
            self._open.pop()
        if tag == "data" and self._data is not None:
            figure = (" ".join(self._data.text.split()), self._data.value)
            for block in self._open:
                block.figures.append(figure)
            self.events.append(self._data)
            self._data = None
        if tag == "abbr" and self._card is not None:
            self.events.append(self._card)
            self._card = None
        if tag == "strong":
            self._strong = None

    def handle_data(self, data):
        self.text += data
        for block in self._open:
            block.text += data
        for event in (self._data, self._card):
            if event is not None:
                event.text += data
        if self._strong is not None:
            self._strong.lead += data

    def first(self, section: str, what: str, text: str = None, value: float = None) -> Event:
        """The first event of a kind in a section: a card of the term `text`, a figure of `value`."""
        for e in self.events:
            if e.section == section and e.what == what and (text is None or e.text.strip() == text) and (
                    value is None or e.value == pytest.approx(value, rel=1e-9)):
                return e
        raise AssertionError(f"section {section!r} has no {what} {text or value!r}")

    def in_section(self, section: str, kind: str) -> list:
        return [b for b in self.blocks if b.section == section and b.kind == kind]


@pytest.fixture(scope="module")
def article(built_site) -> Article:
    raw = markup.well_formed((built_site / "training" / "index.html").read_text("utf-8"))
    parsed = Article()
    parsed.feed(raw[raw.index("<article"):raw.index("</article>")])
    return parsed


def test_n_and_the_flop_are_named_before_the_loop_prices_a_weight(article):
    section = "what-training-is"
    priced = article.first(section, "figure", value=LOOP.forward_flops)
    # N is given its value, and the FLOP its glossary card, before a weight's FLOPs are counted.
    assert article.first(section, "figure", value=LOOP.params).at < priced.at
    assert article.first(section, "card", text="FLOPs").at < priced.at


def test_the_training_state_is_named_before_it_is_priced(article):
    # The name the loop's tile gives it ("Memory: the training state"), before the page first prices it.
    memory = next(o for o in loop_bill.OUTPUTS if o.key == "memory")
    name = memory.label.partition(": ")[2].removeprefix("the ")
    priced = article.first("what-training-is", "figure", value=LOOP.optimizer_bytes)
    assert 0 <= article.text.find(name) < priced.at


def test_what_the_loop_consumes_is_one_item_per_tile_of_its_widget(article):
    # The prose's list: each item led by the name of what it counts (the widget's own lists lead with none).
    items = [item for item in article.in_section("what-the-loop-consumes", "li") if item.lead]
    assert [item.lead.strip().lower() for item in items] == [o.key for o in loop_bill.OUTPUTS]


def test_zero_is_carded_before_its_stages_are_counted_stage_by_stage(article):
    section = "the-memory-bill-where-the-memory-goes"
    small, server = PRESETS.model("llama3-8b"), PRESETS.run("gpt2-124m-10b-8xh100")
    per_stage = [estimators.zero_bytes_per_gpu(small.params, server.gpus, stage) for stage in range(4)]
    rows = article.in_section(section, "tr")
    counted = [[(units.bytes_(b), pytest.approx(b, rel=1e-9))] for b in per_stage]
    # One row a stage, 0 to 3 in turn, each printing that stage's bill alone.
    tables = [i for i in range(len(rows)) if [r.figures for r in rows[i:i + len(counted)]] == counted]
    assert tables, [r.figures for r in rows]
    assert article.first(section, "card", text="ZeRO").at < rows[tables[0]].start


def test_no_sentence_runs_past_what_a_reader_holds_at_once(article):
    sentences = [s for b in article.blocks if b.kind in ("p", "li") for s in re.split(r"(?<=[.!?;:])\s+", b.text)]
    longest = max(sentences, key=lambda s: len(s.split()))
    assert len(longest.split()) <= LONGEST_SENTENCE_WORDS, longest


def test_the_loss_fits_table_states_the_compute_it_spends_before_its_rows(article):
    section = "compute-optimal-or-over-trained-tokens-per-parameter"
    flops = estimators.run_preset_estimate("llama3-405b").flops
    n, _ = estimators.chinchilla_optimal(flops, "hoffmann2022")
    rows = [r for r in article.in_section(section, "tr") if (units.count(n), pytest.approx(n, rel=1e-9)) in r.figures]
    stated = [b for b in article.in_section(section, "p") if (units.sci(flops), pytest.approx(flops, rel=1e-9)) in b.figures]
    assert rows and stated and stated[0].start < rows[0].start


def test_each_checkpoint_save_prints_its_link_and_its_division(article):
    section = "checkpoints-and-what-each-interruption-costs"
    run, failure = PRESETS.run("llama3-405b"), PRESETS.failure("llama3-405b")
    host, storage = PRESETS.interconnect("pcie5-h100"), PRESETS.storage_system("llama3-tectonic")
    size = estimators.checkpoint_bytes(PRESETS.model(run.model).params)
    stall = estimators.checkpoint_stall(size, run.gpus, host.bandwidth_bytes_per_s, storage.write_bytes_per_s,
                                        window_s=failure.window_seconds,
                                        checkpoint_interval_s=failure.checkpoint_interval_seconds)
    # A synchronous save: the whole checkpoint over the storage's write rate; an asynchronous one: a shard over the
    # GPU-to-host link. Each is printed beside the rate it divides by, in one paragraph.
    assert stall.sync_s == pytest.approx(size / storage.write_bytes_per_s, rel=1e-12)
    assert stall.async_s == pytest.approx(stall.shard_bytes / host.bandwidth_bytes_per_s, rel=1e-12)
    figures = [f for b in article.in_section(section, "p") for f in b.figures]
    for value, text in ((storage.write_bytes_per_s, units.si(storage.write_bytes_per_s, "B/s")),
                        (stall.sync_s, units.duration(stall.sync_s)),
                        (host.bandwidth_bytes_per_s, units.si(host.bandwidth_bytes_per_s, "B/s")),
                        (stall.async_s, units.duration(stall.async_s))):
        assert (text, pytest.approx(value, rel=1e-9)) in figures, text


def test_the_fine_tuning_table_counts_the_model_state_and_the_widget_adds_the_activations(article):
    section = "fine-tuning-full-lora-and-qlora"
    ft = PRESETS.finetune("lora-7b")
    config, card = PRESETS.model(ft.model).config, PRESETS.gpu(ft.gpu)
    widget = pyodide_widgets.module("finetune_fit")
    outputs = widget.update(widget.presets()["lora-7b"]["state"])["outputs"]
    rows = article.in_section(section, "tr")
    for method in ("full", "lora", "qlora"):
        state = estimators.finetune_breakdown(method, config, ft.rank, ft.modules, quantization=ft.quantization)
        bill = estimators.finetune_bill(method, config, ft.rank, ft.modules, ft.quantization, seq_len=ft.seq_len,
                                        micro_batch=ft.micro_batch, recompute=ft.recompute,
                                        budget_bytes=card.memory_bytes)
        # The table's row: the model state alone, in GB and in GiB, against the card in the card's unit (GiB) ...
        row = next(r for r in rows if (units.bytes_(state.total), pytest.approx(state.total, rel=1e-9)) in r.figures)
        assert units.bytes_(state.total, binary=True) in [text for text, _ in row.figures], method
        fit = estimators.memory_fit(state.total, card.memory_bytes)
        if fit.fits:
            assert units.bytes_(fit.spare, binary=True) in [text for text, _ in row.figures], method
        # ... the widget's: the same state with one micro-batch's activations on top, its margin in the same unit.
        assert bill.total > state.total and outputs[method] == units.bytes_(bill.total), method
        if bill.fit.fits:
            assert units.bytes_(bill.fit.spare, binary=True) in outputs[f"{method}_fit"], method


def test_the_loops_forward_figure_is_the_weights_alone_and_attention_is_added_to_it():
    widget = pyodide_widgets.module("training_loop")
    state = next(iter(widget.presets().values()))["state"]
    outputs = widget.update(state)["outputs"]
    model = PRESETS.model(state["model"])
    costs = estimators.loop_costs(model.config, int(str(state["seq_len"]).replace(",", "")))
    # The forward figure is 2N alone; each attention figure is printed apart from it.
    assert outputs["forward"].startswith(units.count(costs.forward_flops))
    assert units.count(costs.forward_flops + costs.forward_attention_flops) not in outputs["forward"]
    assert units.count(costs.forward_attention_flops) in outputs["forward_attention"]
    assert units.count(costs.backward_attention_flops) in outputs["backward_attention"]
