"""Widget outputs' provenance cards in a real browser, for every widget on every page of the built site.

Per page and palette, one load: for each widget an output takes keyboard focus and its card opens
(cards.js, drawn as the theme draws its tooltips), without moving the text; an input changes while
the card is open and the open card follows it; reopened, the card is the new one; and axe finds nothing.
"""

import math
import re

import pytest

import pyodide_widgets
from estimators import EstimatorError
from pyodide_widgets import contract, provenance
from harness.widgets import form_state, run_axe, wait_for_cpython_outputs, wait_live

PAGES = ("/training/", "/ten-steps/", "/model-sizing/")
_WIDGET = re.compile(r'<div class="widget" id="([^"]+)" data-widget="([^"]+)"')


def widgets_on(built_site, path: str) -> list:
    """[(element id, widget name)] of the page, in order."""
    return _WIDGET.findall((built_site / path.strip("/") / "index.html").read_text("utf-8"))


def test_every_widget_is_on_a_page_checked_here(built_site):
    on_pages = {name for path in PAGES for _, name in widgets_on(built_site, path)}
    assert on_pages == set(pyodide_widgets.WIDGETS)


def changes(field, text: str, taken: set):
    """Other values of a choice or number field, those no preset has first (the card then says "your input")."""
    if field.kind == "choice":
        values = [value for value, _ in field.options if value != text]
    elif field.kind in ("number", "whole"):
        values = [contract.form_text(field, round(float(text) * f) if field.kind == "whole" else float(text) * f)
                  for f in (2, 3, 0.5) if math.isfinite(float(text) * f)]
    else:
        return []
    return sorted(values, key=lambda value: value in taken)


def plan(name: str, state: dict, visible: list):
    """(output key, field, new text): a shown output with a card, and a change of one of its inputs
    that the widget accepts; (key, None, None) when no shown card depends on the form."""
    widget = pyodide_widgets.module(name)
    outputs = {o.key: o for o in widget.OUTPUTS}
    fields = {f.name: f for f in widget.FIELDS}
    for key in visible:
        for used in outputs[key].uses:
            taken = {contract.form_text(fields[used], p["state"][used]) for p in widget.presets().values()}
            for text in changes(fields[used], state[used], taken):
                try:
                    widget.update({**state, used: text})
                except EstimatorError:
                    continue
                return key, fields[used], text
    return visible[0], None, None


def tooltip_text(page, slot) -> str:
    page.locator(".md-tooltip2--active").wait_for()
    described = slot.get_attribute("aria-describedby")
    return " ".join(page.locator(f"#{described}").inner_text().split())


def words(card: str) -> str:
    return " ".join(card.split())


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("path", PAGES)
def test_each_widget_card_opens_on_focus_and_follows_its_inputs(page, site_url, built_site, path, scheme):
    page.goto(f"{site_url}{path}")
    page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
    checked = []
    for element_id, name in widgets_on(built_site, path):
        root = f"#{element_id}"
        wait_live(page, root)
        widget = pyodide_widgets.module(name)
        # A focusable output (a figure or a sentence with a card) on screen: a picked option's, say.
        visible = page.eval_on_selector_all(
            f'{root} [data-output][tabindex="0"]', "els => els.filter(el => el.offsetParent).map(el => el.dataset.output)")
        if not visible:
            assert not provenance.cards(widget, form_state(page, root)), f"{name}: cards, but none on screen"
            continue
        state = form_state(page, root)
        key, field, text = plan(name, state, visible)
        slot = page.locator(f'{root} [data-output="{key}"]')
        card = provenance.cards(widget, state)[key]
        slot.scroll_into_view_if_needed()
        before = slot.bounding_box()
        slot.focus()
        assert tooltip_text(page, slot) == words(card), name
        assert slot.bounding_box() == before, f"{name}: the card moved the text"
        if field is not None:
            # Changed without moving focus, so the card stays open while the answer comes.
            page.eval_on_selector(f'{root} [name="{field.name}"]',
                                  "(el, text) => { el.value = text; el.form.dispatchEvent(new Event('input', {bubbles: true})); }",
                                  text)
            wait_for_cpython_outputs(page, root)
            new = provenance.cards(widget, form_state(page, root))[key]
            assert new != card and provenance.shown(field, contract.read([field], {field.name: text})[field.name]) in new
            page.wait_for_function("([sel, card]) => document.querySelector(sel).dataset.card === card",
                                   arg=[f'{root} [data-output="{key}"]', new])
            assert tooltip_text(page, slot) == words(new), f"{name}: the open card kept the old inputs"
            slot.blur()
            page.locator(".md-tooltip2--active").wait_for(state="detached")
            slot.focus()
            assert tooltip_text(page, slot) == words(new), f"{name}: reopened, the card is the old one"
        slot.blur()
        page.locator(".md-tooltip2--active").wait_for(state="detached")
        checked.append(name)
    assert checked, "no widget card checked on the page"
    violations = run_axe(page)
    assert violations == [], "\n".join(map(str, violations))
