"""A formula is declared once, beside its estimator: every card on the built site, and the methods
page's list of estimators, state it in the words of that one declaration."""

import dataclasses

import estimators
from estimators.provenance import formula_of

from harness import markup
from harness.site import listed, number_cards


def cards(site) -> list:
    """Every card on the site: each widget output's, and each prose number's as cards.js reads it."""
    found = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text("utf-8")
        where = page.relative_to(site).as_posix().removesuffix("index.html").rstrip("/") or "index"
        found += [e.attrs["data-card"] for e in markup.parse(text).iter(data_card=True)]
        found += [card for _, card in number_cards(text, listed(site, f"{where}.md"))]
    return found


def declared_texts() -> set:
    """Every formula an estimator declares, and every note a field of a result declares (a card's line
    for a field of an estimate it read)."""
    formulas = {formula_of(fn).text for fn in estimators.ESTIMATORS.values() if formula_of(fn)}
    notes = {q.note for value in vars(estimators).values() if dataclasses.is_dataclass(value) and isinstance(value, type)
             for f in dataclasses.fields(value) if (q := f.metadata.get("quantity")) is not None and q.note}
    return formulas | notes


def test_every_prose_card_states_each_estimators_formula_as_it_is_declared(built_site):
    """A card's lines after its first are the formulas it went through, each in the words of its one
    declaration, and its inputs ("… = value"); no line names an estimator."""
    declared = declared_texts()
    checked = 0
    for card in cards(built_site):
        for line in card.split("\n")[1:]:
            assert not any(line.startswith(f"{name}: ") for name in estimators.ESTIMATORS), f"a card names an estimator: {line!r}"
            if line in declared:
                checked += 1
            else:
                assert " = " in line or ": " in line, f"neither a declared formula nor an input: {line!r}"
    assert checked, "no card states a declared formula"


def test_the_methods_page_lists_every_estimators_declared_formula(built_site):
    codes = {code.text() for code in markup.parse((built_site / "methods" / "index.html").read_text("utf-8")).iter("code")}
    for fn in estimators.ESTIMATORS.values():
        declared = formula_of(fn)
        assert declared, f"{fn.__name__} declares no formula"
        assert declared.declared_in in codes
