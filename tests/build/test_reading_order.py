"""Terms a reader meets are introduced where first used, or carry a glossary card; a formula is derived once
and referred back to; the densest passages give one new number at a time; the site's sentences are its
own, not the seed articles'.

Read from the built page's structure (tests/build/test_training_for_newcomers.Article: its sections,
blocks, figures and cards) against the estimators' values, not from its sentences.
"""

import pytest

import estimators
from estimators import units
from site_build import glossary
from tests.build.test_build import page_text
from tests.build.test_training_for_newcomers import LOOP, article  # noqa: F401 (a fixture)

ARTICLES = ("training", "ten-steps", "methods")
PRESETS = estimators.load_presets()
MEMORY_BILL = "the-memory-bill-where-the-memory-goes"


def approx(value: float):
    return pytest.approx(value, rel=1e-9)


@pytest.fixture(scope="module")
def texts(built_site) -> dict:
    return {page: " ".join(page_text(built_site, page).split()) for page in ARTICLES}


def test_the_glossary_defines_the_terms_the_articles_lean_on():
    terms = {t.term for t in glossary.load()}
    assert {"FLOPs", "activations", "micro-batch", "recomputation", "SFT", "GRPO", "1F1B", "MTBF",
            "data-parallel degree"} <= terms


@pytest.mark.parametrize("term", ["SwiGLU", "GeLU", "grouped-query attention", "dropout"])
def test_a_way_a_block_departs_from_gpt3_first_appears_in_the_list_before_its_count(article, term):
    # The list of the ways Llama's block departs from GPT-3's stands right before the paragraph that counts
    # a layer both ways (Korthikanti et al.'s per-layer count, and the block's own): each term is first used there.
    st, config = PRESETS.setup("llama3-8b-node"), PRESETS.model("llama3-8b").config
    gpt3 = estimators.activation_bytes_per_layer(st.seq_len, st.micro_batch, config.d_model, config.heads,
                                                 recompute=st.recompute)
    own = estimators.activation_bytes_per_layer(st.seq_len, st.micro_batch, config.d_model, config.heads,
                                                recompute=st.recompute, kv_heads=config.kv_heads,
                                                ffn_dim=config.ffn_dim, mlp=config.mlp, dropout=config.dropout)
    blocks = article.blocks
    counted = next(i for i, b in enumerate(blocks) if b.section == MEMORY_BILL and b.kind == "p"
                   and (units.bytes_(own), approx(own)) in b.figures and (units.bytes_(gpt3), approx(gpt3)) in b.figures)
    items = []
    for block in reversed(blocks[:counted]):
        if block.kind != "li":
            break
        items.append(block)
    first = article.text.index(term)
    assert items and any(item.start <= first < item.start + len(item.text) for item in items), term


def test_1f1b_is_carded_where_the_page_first_uses_it(article):
    first = article.text.index("1F1B")
    card = next(e for e in article.events if e.what == "card" and e.text.strip() == "1F1B")
    assert card.at == first


@pytest.mark.parametrize("run", [
    "every GPU holds a full copy of the",  # the training article, on data parallelism
    "stages from raw text to a reasoning model",  # a methods heading
    "Compute: C = 6 × N × D",  # a widget label
])
def test_no_run_of_words_of_the_seed_articles_is_printed_again(texts, run):
    for page, text in texts.items():
        assert run.casefold() not in text.casefold(), page


def test_c_equals_6nd_is_derived_once_and_referred_back_to(article):
    k = estimators.compute_constants()
    forward, training = (units.plain(k.forward), approx(k.forward)), (units.plain(k.training), approx(k.training))
    # The derivation: one block prints a weight's forward FLOPs and the training total they make, and only one.
    derived = [b for b in article.blocks if b.kind in ("p", "li") and forward in b.figures and training in b.figures]
    assert [b.section for b in derived] == ["what-the-loop-consumes"]
    # Every later paragraph that uses the formula (its total printed, C = … × N × D) links back to it.
    later = [b for b in article.blocks if b.kind == "p" and training in b.figures and "N × D" in b.text
             and b.start > derived[0].start and b.section != derived[0].section]
    assert later and all("#what-the-loop-consumes" in b.links for b in later), [b.text[:80] for b in later]


def test_the_loops_arithmetic_gives_the_flops_and_the_optimizers_bytes_a_paragraph_each(article):
    flops = [b for b in article.in_section("what-training-is", "p") if (units.count(LOOP.forward_flops), approx(LOOP.forward_flops)) in b.figures]
    state = [b for b in article.in_section("what-training-is", "p") if (units.bytes_(LOOP.optimizer_bytes), approx(LOOP.optimizer_bytes)) in b.figures]
    assert flops and state and not set(map(id, flops)) & set(map(id, state))


def test_the_traffic_table_is_read_through_its_first_row_in_the_paragraph_after_it(article):
    section = "six-ways-to-cut-one-training-job"
    blocks = [b for b in article.blocks if b.section == section]
    rows = [i for i, b in enumerate(blocks) if b.kind == "tr"]
    table = [i for i in rows if blocks[i].figures]  # the body rows: the header prints no figure
    last = table[-1]
    while last + 1 < len(blocks) and blocks[last + 1].kind == "tr":
        last += 1
    worked = next(b for b in blocks[last + 1:] if b.kind == "p")
    # The first row's figures past its layout's sequence length: its group, its bytes, per micro-batch, its time.
    first_row = blocks[table[0]].figures[1:]
    assert first_row and all(figure in worked.figures for figure in first_row), (first_row, worked.figures)
