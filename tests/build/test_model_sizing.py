"""The Model sizing page on the step model's worst misses: it names the runs they are, as the
estimators compute them, rather than a cause of its own."""

import html
import re

from estimators import ESTIMATORS
from tests.build.test_reader_words import reader_text


def test_the_worst_misses_are_named_by_the_runs_they_are(built_site):
    ratios = {key: ESTIMATORS["predict_run"](key).ratio for key in ESTIMATORS["measured_runs"]()}
    runs = ESTIMATORS["measured_runs"]()
    worst_two = sorted(ratios, key=lambda key: abs(ratios[key] - 1))[-2:]
    raw = (built_site / "model-sizing" / "index.html").read_text("utf-8")
    paragraphs = [" ".join(reader_text(p).split()) for p in re.findall(r"<p\b[^>]*>.*?</p>", raw, re.S)]
    paragraph = next(p for p in paragraphs if "The worst miss" in p)  # the one that says which runs miss most
    for key in worst_two:  # compared without spaces: the page's markup inside a name (a number's) reads as a break
        assert "".join(html.unescape(runs[key].name).split()) in "".join(paragraph.split()), runs[key].name
