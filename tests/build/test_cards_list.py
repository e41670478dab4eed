"""The lists of the derivation cards (site_build/cards.py): each page's entries on a list page of its
own, an entry per distinct card, each formula and source written once on that list; an index of the
lists in the nav's order; a page rendered after the lists cannot leave its numbers out unnoticed."""

import re

import pytest

from estimators import units
from site_build import derivation, held
from site_build.cards import ENTRIES_PER_LIST, LIST_PAGE, ListOrderError, SiteCards, list_page


def traced(value: float, expression: str):
    return derivation.traced(value, derivation.Origin(expression))


def printed(site: SiteCards, src: str, values: list) -> list:
    site.start_page(src, src.removesuffix(".md").title(), f"../{list_page(src).removesuffix('.md')}/")
    return [site.number(units.count(float(v)), v) for v in values]


def test_each_page_lists_its_distinct_cards_on_a_list_of_its_own_and_the_index_links_them_in_the_navs_order():
    site = SiteCards()
    same = traced(8.0, 'gpu("h100").count')
    first = printed(site, "training.md", [same, traced(3.0, "x()"), same])
    printed(site, "methods.md", [traced(4.0, "y()")])
    printed(site, "glossary.md", [])
    assert [re.search(r'href="([^"]+)"', link).group(1) for link in first] == [
        "../numbers/training/#1", "../numbers/training/#2", "../numbers/training/#1"]
    training = held.put_back(site.listing("training.md"))
    assert re.findall(r'<dt id="([^"]+)">', training) == ["1", "2"]
    assert re.findall(r'<dt id="([^"]+)">', held.put_back(site.listing("methods.md"))) == ["1"]
    # A page that printed no number has no list, and the index links only those that have one.
    assert site.listing("glossary.md") == ""
    links = re.findall(r"\]\(([^)]+)\)", site.index(["methods.md", "glossary.md", "training.md"]))
    assert links == [list_page("methods.md"), list_page("training.md")]


def test_a_pages_entries_come_in_lists_of_a_fixed_length_the_first_marked_for_the_count_on_paper():
    site = SiteCards()
    printed(site, "training.md", [traced(float(i), f"x({i})") for i in range(ENTRIES_PER_LIST + 3)])
    lists = re.findall(r'<dl class="([^"]+)">(.*?)</dl>', held.put_back(site.listing("training.md")), re.S)
    assert [cls for cls, _ in lists] == ["derivations derivations--first", "derivations"]
    assert [body.count("<dt") for _, body in lists] == [ENTRIES_PER_LIST, 3]


def test_a_page_that_prints_no_number_has_no_pointer_to_a_list():
    site = SiteCards()
    printed(site, "glossary.md", [])
    assert site.pointer() == ""
    printed(site, "training.md", [traced(1.0, "x()")])
    assert f"]({list_page('training.md')})" in site.pointer() and f"]({LIST_PAGE})" in site.pointer()


def test_a_page_rendered_after_the_lists_stops_the_build():
    site = SiteCards()
    printed(site, "training.md", [traced(1.0, "x()")])
    site.start_page(list_page("training.md"), "List", "")
    site.listing("training.md")
    with pytest.raises(ListOrderError, match="methods.md"):
        site.start_page("methods.md", "Methods", "../numbers/methods/")


def test_a_formula_cited_by_many_entries_is_written_once_on_the_list_and_each_entry_links_to_it():
    site = SiteCards()
    formula = "F = m·a, the force on a mass"
    values = [derivation.traced(float(i), derivation.Origin(f"f({i})", formula=formula)) for i in range(1, 4)]
    printed(site, "training.md", values)
    listing = held.put_back(site.listing("training.md"))
    # Each entry links to the formula, whose text is written once, in the list of formulas.
    target = re.search(rf'<li id="([^"]+)">{formula}</li>', listing).group(1)
    links = re.findall(rf'<dd><a href="#{target}">(.*?)</a></dd>', listing)
    assert len(links) == len(values) and not [link for link in links if formula in link]
