"""A formula is declared once, beside its estimator: every card on the built site, and the methods
page's list of estimators, state it in the words of that one declaration."""

import html
import re

import estimators
from estimators.provenance import formula_of

from harness.site import number_cards
from site_build import cards as cards_list

CARD = re.compile(r'data-card="([^"]*)"')


def cards(site) -> list:
    """Every card on the site: each widget output's, and each prose number's as cards.js reads it."""
    found = []
    listed = (site / cards_list.LIST_PAGE.removesuffix(".md") / "index.html").read_text("utf-8")
    for page in sorted(site.rglob("*.html")):
        text = page.read_text("utf-8")
        found += [html.unescape(card) for card in CARD.findall(text)] + [card for _, card in number_cards(text, listed)]
    return found


def test_every_prose_card_states_each_estimators_formula_as_it_is_declared(built_site):
    checked = 0
    for card in cards(built_site):
        for line in card.split("\n")[1:]:
            name, _, said = line.partition(": ")
            if name in estimators.ESTIMATORS:
                assert said == formula_of(estimators.ESTIMATORS[name]).text, card
                checked += 1
    assert checked, "no card names an estimator"


def test_the_methods_page_lists_every_estimators_declared_formula(built_site):
    page = html.unescape((built_site / "methods" / "index.html").read_text("utf-8"))
    for fn in estimators.ESTIMATORS.values():
        declared = formula_of(fn)
        assert declared, f"{fn.__name__} declares no formula"
        assert f"<code>{declared.declared_in}</code>" in page
