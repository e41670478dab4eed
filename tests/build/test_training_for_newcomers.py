"""The training article reads for a newcomer: each term is introduced before it is used, no
sentence runs on past what a reader holds at once, a table and the widget beside it count in one
unit and say what each counts, and a figure reads as what it is."""

import html
import re

import pytest

import estimators
import pyodide_widgets
from estimators import units

PRESETS = estimators.load_presets()
# The most words between two stops (. ! ? ; :) a reader is asked to hold; the one-forward-one-backward
# sentence this replaced ran to about ninety.
LONGEST_SENTENCE_WORDS = 60


def text(raw: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))


@pytest.fixture(scope="module")
def article(built_site) -> str:
    raw = (built_site / "training" / "index.html").read_text("utf-8")
    return raw[raw.index("<article"):raw.index("</article>")]


@pytest.fixture(scope="module")
def prose(article) -> str:
    """The article's paragraphs and list items, without its widgets."""
    return " ".join(text(p) for _, p in re.findall(r"<(p|li)>(.*?)</\1>", article, re.S))


def section(article: str, heading_id: str) -> str:
    start = article.index(f'id="{heading_id}"')
    end = article.find("<h2", start)
    return article[start:end]


def test_n_and_the_flop_are_defined_before_the_loop_prices_a_weight(prose):
    first_use = prose.index("× N")
    assert "its parameters, N" in prose[:first_use]
    assert "one FLOP is one floating-point operation" in prose[:first_use]


def test_the_training_state_is_said_before_it_is_priced(prose):
    assert prose.index("training state") >= prose.index("This page calls those the training state") - len("This page calls those the ")


def test_what_the_loop_consumes_is_four_items(article):
    items = re.findall(r"<li>(.*?)</li>", section(article, "what-the-loop-consumes"), re.S)
    assert [text(i).split(":")[0].strip() for i in items] == ["Data", "Compute", "Memory", "Time"]


def test_zero_stages_are_defined_before_a_stage_is_counted_and_deepspeeds_count_is_on_methods(built_site, prose):
    assert "stage 2" not in prose[:prose.index("Stage 1 gives each")].lower()
    methods = text((built_site / "methods" / "index.html").read_text("utf-8"))
    assert "DeepSpeed keeps a BF16 gradient beside the FP32 one" in methods


def test_no_sentence_runs_past_what_a_reader_holds_at_once(article):
    paragraphs = [text(p) for _, p in re.findall(r"<(p|li)>(.*?)</\1>", article, re.S)]
    sentences = [s for p in paragraphs for s in re.split(r"(?<=[.!?;:])\s+", p)]
    longest = max(sentences, key=lambda s: len(s.split()))
    assert len(longest.split()) <= LONGEST_SENTENCE_WORDS, longest


def test_the_loss_laws_approach_is_explained_before_the_table_names_it(article):
    part = section(article, "compute-optimal-or-over-trained-tokens-per-parameter")
    explained = text(part).index("approach three")
    assert explained < text(part).index("approach 3")


def test_the_asynchronous_save_names_its_link_and_the_synchronous_one_its_division(prose):
    host = PRESETS.interconnect("pcie5-h100")
    assert f"over {host.name} takes" not in prose
    assert units.si(host.bandwidth_bytes_per_s, "B/s") in prose
    assert "the checkpoint's size divided by the write rate" in prose


def test_the_fine_tuning_table_gives_its_margins_in_the_widgets_unit(article):
    part = section(article, "fine-tuning-full-lora-and-qlora")
    table = part[part.index("<table"):part.index("</table>")]
    spares = re.findall(r"fits, ([^<]*?) to spare", text(table))
    widget = pyodide_widgets.module("finetune_fit")
    outputs = widget.update(next(iter(widget.presets().values()))["state"])["outputs"]
    unit = outputs["lora_fit"].split(" to spare")[0].split()[-1]
    assert spares and all(s.split()[-1] == unit for s in spares), (spares, unit)
    assert "counts the activations" in text(part) or "also counts the" in text(part)


def test_the_loops_forward_figure_is_the_weights_alone_and_attention_is_added_to_it():
    widget = pyodide_widgets.module("training_loop")
    state = next(iter(widget.presets().values()))["state"]
    outputs = widget.update(state)["outputs"]
    model = PRESETS.model(state["model"])
    costs = estimators.loop_costs(model.config, int(str(state["seq_len"]).replace(",", "")))
    assert outputs["forward"].startswith(units.count(costs.forward_flops)) and "weights" in outputs["forward"]
    assert outputs["forward_attention"].endswith(f"adds {units.count(costs.forward_attention_flops)} FLOPs")
    assert outputs["backward_attention"].endswith(f"adds {units.count(costs.backward_attention_flops)} FLOPs")
