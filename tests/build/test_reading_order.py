"""Terms a reader meets are introduced where first used, or carry a glossary card; the site's
sentences are its own, not the seed articles'."""

import pytest

import estimators
from estimators import units
from site_build import glossary
from site_build.cards import HEADING as HOW_MADE
from tests.build.test_build import page_text

ARTICLES = ("training", "ten-steps", "methods")


@pytest.fixture(scope="module")
def texts(built_site) -> dict:
    return {page: " ".join(page_text(built_site, page).split()) for page in ARTICLES}


def test_the_glossary_defines_the_terms_the_articles_lean_on():
    terms = {t.term for t in glossary.load()}
    assert {"FLOPs", "activations", "micro-batch", "recomputation", "SFT", "GRPO", "1F1B", "MTBF",
            "data-parallel degree"} <= terms


@pytest.mark.parametrize("term, introduced_by", [
    ("SwiGLU", "widens the vector twice, through a gate and an up projection"),
    ("GeLU", "a smooth activation function"),
    ("grouped-query attention", "several query heads share one set of keys and values"),
    ("dropout", "a random share of values is zeroed at each step"),
    ("1F1B", "alternate a forward pass of one micro-batch with a backward pass of another"),
])
def test_a_term_of_the_memory_bill_is_explained_where_the_page_first_uses_it(texts, term, introduced_by):
    text = texts["training"]
    first = text.index(term)
    explained = text.index(introduced_by)
    assert abs(explained - first) < 400, f"{term!r} is first used {explained - first} characters from its explanation"


@pytest.mark.parametrize("run", [
    "every GPU holds a full copy of the",  # the training article, on data parallelism
    "stages from raw text to a reasoning model",  # a methods heading
    "Compute: C = 6 × N × D",  # a widget label
])
def test_no_run_of_words_of_the_seed_articles_is_printed_again(texts, run):
    for page, text in texts.items():
        assert run.casefold() not in text.casefold(), page


def test_the_articles_speak_of_models_and_settings_not_of_the_projects_presets_or_tests(texts):
    for page in ("training", "ten-steps"):
        # The prose, not the end-of-page list of derivations, which names the estimators by their code names.
        text = texts[page].split(HOW_MADE)[0]
        assert " preset" not in text.replace("Start from a preset", ""), page
        assert "the tests keep" not in text, page
    assert "Llama 3 405B pretraining made a guess" not in texts["training"]
    assert "Llama 3 405B made a guess" in texts["training"]


def test_c_equals_6nd_is_derived_once_and_referred_back_to(texts):
    text = texts["training"]
    assert text.count("twice that on the way back") == 1  # the derivation, in what the loop consumes
    assert "two per parameter for each token on the way forward" not in text
    assert text.count("C = 6 × N × D of what the loop consumes") == 1


def test_the_densest_passages_meet_the_reader_one_new_number_at_a_time(texts):
    text = texts["training"]
    # The step's arithmetic: stations, then the FLOPs, then the optimizer, each a paragraph of its own.
    assert "the move. The first and third stations are where the arithmetic is" in text
    # The traffic table opens with one row worked through.
    traffic = estimators.layout_preset_traffic("llama3-405b-8k").cuts[0]
    assert (f"Read the table a row at a time. In the first, the tensor-parallel cut joins "
            f"{units.integer(traffic.group_gpus)} GPUs of one server. Each of them sends {units.bytes_(traffic.traffic_bytes)}") in text
    assert f"that takes {units.duration(traffic.link_seconds)}" in text
