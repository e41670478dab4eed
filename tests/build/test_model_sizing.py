"""The Model sizing page on the step model's worst misses: it names the runs they are, as the
estimators compute them, rather than a cause of its own."""

import html

from estimators import ESTIMATORS
from harness import markup
from tests.build.test_reader_words import reader_text

SLACK = 0.10  # issue 40: a published layout within a tenth of the planner's best step needs no reason given


def test_the_worst_misses_are_named_by_the_runs_they_are(built_site):
    ratios = {key: ESTIMATORS["predict_run"](key).ratio for key in ESTIMATORS["measured_runs"]()}
    runs = ESTIMATORS["measured_runs"]()
    worst_two = sorted(ratios, key=lambda key: abs(ratios[key] - 1))[-2:]
    page = markup.parse((built_site / "model-sizing" / "index.html").read_text("utf-8"))
    paragraphs = [" ".join(reader_text(p).split()) for p in page.iter("p")]
    paragraph = next(p for p in paragraphs if "The worst miss" in p)  # the one that says which runs miss most
    for key in worst_two:  # compared without spaces: the page's markup inside a name (a number's) reads as a break
        assert "".join(html.unescape(runs[key].name).split()) in "".join(paragraph.split()), runs[key].name


def test_a_published_layout_over_a_tenth_slower_than_the_planners_best_is_shown_where_it_loses(built_site):
    # Issue 40: each published run's own layout within 10% of the planner's best, or the page says why, with numbers:
    # its row names the part of the step it spends most more time on, with that part's seconds on both layouts.
    from estimators import units
    runs = ESTIMATORS["measured_runs"]()
    page = markup.parse((built_site / "model-sizing" / "index.html").read_text("utf-8"))
    rows = [" ".join(reader_text(row).split()) for row in page.iter("tr")]
    slower = 0
    for key, run in runs.items():
        st = ESTIMATORS["measured_run_standing"](key)
        if st.ratio <= 1 + SLACK:
            continue
        slower += 1
        name = " ".join(html.unescape(run.name).split())
        [row] = [r for r in rows if r.startswith(name + " ") and units.times(st.ratio) in r]
        said = f"{st.why.label}: {units.duration(st.why.own_seconds)} against {units.duration(st.why.best_seconds)}"
        assert said in row, (run.name, row)
    assert slower, "no published layout is a tenth slower than the planner's best: this test would check nothing"


def test_llama3s_8k_layout_is_said_to_lose_on_the_parts_the_planner_times(built_site):
    # Issue 40: Llama 3's 8K layout is over a tenth slower than the planner's best, so the page says why, with numbers:
    # the tensor-parallel traffic and the bubble on both layouts, and the published run that cuts 8K sequences across
    # servers with the model's ratio on it (tests/estimators/test_planner.py holds what those numbers show).
    from estimators import units
    own = ESTIMATORS["layout_preset_standing"]("llama3-405b-8k").plan
    best = ESTIMATORS["layout_preset_plan"]("llama3-405b-8k").best[0]
    cut = ESTIMATORS["predict_run"]("bridge-llama31-405b")
    page = markup.parse((built_site / "model-sizing" / "index.html").read_text("utf-8"))
    paragraphs = [" ".join(reader_text(p).split()) for p in page.iter("p")]
    paragraph = next(p for p in paragraphs if p.startswith("Context parallelism at short sequences"))
    for seconds in (own.tp_seconds, best.tp_seconds, own.bubble_seconds, best.bubble_seconds, best.cp_seconds):
        assert units.duration(seconds) in paragraph, seconds
    assert " ".join(html.unescape(cut.run.name).split()) in paragraph and units.times(cut.ratio) in paragraph
