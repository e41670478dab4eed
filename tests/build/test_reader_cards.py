"""Cards speak to readers: no function, class or preset-key name anywhere a reader meets a card, in the
built site as a reader gets it (a prose number's card on "How the numbers were made", a widget output's
card and its inputs' lines, the sources listed under a widget), which is also what a printed page's
notes are made of (print.js)."""

import re

import pytest

import estimators
from estimators.presets import address_of
from harness import markup

PRESETS = estimators.load_presets()
# Keys of the configurations the sources quote (a Hugging Face config.json), which an estimator shares.
CONFIG_KEYS = {"head_dim"}
# The articles that carry most cards, and the lists of every page's numbers ("numbers/": each list page).
PAGES = ("training/index.html", "ten-steps/index.html", "model-sizing/index.html", "index.html", "numbers/")


def read(site, page: str) -> list[markup.Element]:
    """A built page, parsed; for a folder, every page under it."""
    return [markup.parse(p.read_text("utf-8")) for p in (sorted((site / page).rglob("*.html")) if page.endswith("/") else [site / page])]


def code_names() -> list:
    """Every presets.toml address (`runs.llama3-405b`), lookup call (`run("`), estimator call
    (`run_preset_estimate(`) and estimators class (`DecoderConfig`) by name."""
    addresses = [address_of(e) for table in PRESETS.tables for e in getattr(PRESETS, table).values()]
    calls = [f"{name}(" for name in [*estimators.ESTIMATORS, *PRESETS.lookups, "load_presets"]]
    # A class named by one English word (Experts, Layout) is that word in a sentence: the joined ones only.
    classes = [name for name, value in vars(estimators).items()
               if isinstance(value, type) and re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+", name)]
    # An estimator named bare ("zero_breakdown's total"), save one a quoted config.json also names (head_dim).
    bare = [name for name in estimators.ESTIMATORS if name not in CONFIG_KEYS]
    return addresses + calls + classes + bare + ["model_size."]


def cards_on(pages: list) -> list:
    """What a reader meets of the cards on built pages: the list page's entries, formulas and sources;
    each widget output's own line (data-card), its inputs' lines (--card-<field> on the widget) and the
    sources under the widget."""
    return formulas_on(pages, ("ul", "ol")) + [sources.spaced() for page in pages for sources in page.iter("div", class_="widget__sources")]


@pytest.mark.parametrize("page", PAGES)
def test_no_card_a_reader_meets_names_a_function_class_or_preset_key(built_site, page):
    cards = cards_on(read(built_site, page))
    assert cards or page == "index.html"
    names = code_names()
    found = {name: text[:160] for text in cards for name in names if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)}
    assert not found, found


def formulas_on(pages: list, lists: tuple = ("ul",)) -> list:
    """What a reader meets of the cards on built pages, less the sources they cite (which quote a
    configuration's own keys): the list page's entries and formulas (`lists`: the lists of a list
    page), each widget output's own line and its inputs' lines."""
    texts = []
    for page in pages:
        if page.find("dl", class_="derivations"):
            texts += [e.spaced() for e in page.iter() if e.tag in lists or (e.tag == "dl" and e.has("class", "derivations"))]
        texts += [e.attrs["data-card"] for e in page.iter(data_card=True)]
        texts += [line for e in page.iter(style=True) for line in re.findall(r"--card-[\w-]+:('(?:[^'\\]|\\.)*')", e.attrs["style"])]
    return texts


# A symbol written as code: a name joined to its subscript by an underscore (seq_len, N_opt, e_max),
# where a reader expects words or the paper's symbol (Nₒₚₜ).
CODE_SYMBOL = re.compile(r"(?<![\w/.-])[A-Za-z]+_[A-Za-z]\w*")


@pytest.mark.parametrize("page", PAGES)
def test_no_card_formula_writes_a_symbol_as_code(built_site, page):
    found = {m.group(0): text[max(0, m.start() - 60):m.end() + 60] for text in formulas_on(read(built_site, page))
             for m in CODE_SYMBOL.finditer(text)}
    assert not found, found
