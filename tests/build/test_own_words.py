"""The site's labels and table cells are its own words, not the source articles' (their facts carry
over, their sentences do not). The articles are read from the team's shared folder (SEEDS_DIR, by
default /work/shared/seeds); without them there is nothing to compare and the tests skip."""

import html
import os
import re
import tomllib
from pathlib import Path

import pytest

import pyodide_widgets

SEEDS = Path(os.environ.get("SEEDS_DIR", "/work/shared/seeds"))
# A run of this many words in common is an echo, not a shared term ("the same run on").
RUN_WORDS = 4
# The share of a cell's runs of words that the article holds, above which the cell echoes it.
ECHO_SHARE = 0.15


def words(text: str) -> list:
    return re.findall(r"[a-z0-9']+", text.lower())


@pytest.fixture(scope="module")
def seeds() -> list:
    files = sorted(SEEDS.glob("*.txt"))
    if not files:
        pytest.skip(f"the source articles are not in {SEEDS}")
    return [f.read_text("utf-8") for f in files]


def test_the_training_stacks_labels_are_not_the_source_articles(seeds):
    lines = {" ".join(words(line)) for seed in seeds for line in seed.splitlines()}
    stack = tomllib.loads((Path(pyodide_widgets.__file__).parent / "data" / "stack.toml").read_text("utf-8"))
    labels = [layer[key] for layer in stack["layers"].values() for key in ("name", "tagline")]
    assert [label for label in labels if " ".join(words(label)) in lines] == []


def test_the_ten_steps_scale_table_does_not_echo_the_source_article(built_site, seeds):
    page = (built_site / "ten-steps" / "index.html").read_text("utf-8")
    table = page[page.index('id="where-scale-changes-the-answer"'):]
    table = table[:table.index("</table>")]
    cells = [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", table, re.S)]
    # Each row: the scale, what gets hard there (the site's words), an example (published facts).
    cells = cells[1::3]
    assert cells
    theirs = {tuple(w[i:i + RUN_WORDS]) for seed in seeds for w in [words(seed)] for i in range(len(w) - RUN_WORDS + 1)}
    echoes = {}
    for cell in cells:
        w = words(cell)
        runs = [tuple(w[i:i + RUN_WORDS]) for i in range(len(w) - RUN_WORDS + 1)]
        shared = [" ".join(r) for r in runs if r in theirs]
        if runs and len(shared) / len(runs) > ECHO_SHARE:
            echoes[cell] = shared
    assert echoes == {}
