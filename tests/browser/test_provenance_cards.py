"""Widget outputs' provenance cards in a real browser, for every widget on every page of the built site.

Per page, one load: for each widget an output takes keyboard focus and its card opens (cards.js,
drawn as the theme draws its tooltips), without moving the text; an input changes while the card is
open and the open card follows it; reopened, the card is the new one; axe finds nothing in either
palette; and the sources listed under a widget follow an example picked.
"""

import json
import math
import re

import pytest

import pyodide_widgets
from estimators import EstimatorError
from pyodide_widgets import contract, provenance
from harness import markup
from harness.site import widget_pages
from harness.widgets import form_state, run_axe, scrolled_into_view, wait_for_cpython_outputs, wait_live

# Every page that holds a widget, found from the nav and the pages' Markdown.
PAGES = tuple(widget_pages())


def widgets_on(built_site, path: str) -> list:
    """[(element id, widget name)] of the page, in order."""
    page = markup.parse((built_site / path.strip("/") / "index.html").read_text("utf-8"))
    return [(root.attrs["id"], root.attrs["data-widget"]) for root in page.iter("div", class_="widget", data_widget=True)]


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


@pytest.mark.parametrize("path", PAGES)
def test_each_widget_card_opens_on_focus_and_follows_its_inputs(page, site_url, built_site, path):
    page.goto(f"{site_url}{path}")
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
        scrolled_into_view(slot)
        before = slot.bounding_box()
        slot.focus()
        assert tooltip_text(page, slot) == words(card), name
        assert slot.bounding_box() == before, f"{name}: the card moved the text"
        if field is not None:
            # Changed without moving focus, so the card stays open while the answer comes.
            page.eval_on_selector(f'{root} [name="{field.name}"]',
                                  "(el, text) => { el.value = text; el.dispatchEvent(new Event('input', {bubbles: true})); }",
                                  text)
            wait_for_cpython_outputs(page, root)
            new = provenance.cards(widget, form_state(page, root))[key]
            assert new != card and provenance.shown(field, contract.read([field], {field.name: text})[field.name]) in new
            page.wait_for_function("([sel, card]) => window.widgetCardText(document.querySelector(sel)) === card",
                                   arg=[f'{root} [data-output="{key}"]', new])
            assert tooltip_text(page, slot) == words(new), f"{name}: the open card kept the old inputs"
            assert sources_listed(page, root) == list(provenance.listed(*provenance.parts(widget, form_state(page, root)))), name
            slot.blur()
            page.locator(".md-tooltip2--active").wait_for(state="detached")
            slot.focus()
            assert tooltip_text(page, slot) == words(new), f"{name}: reopened, the card is the old one"
        slot.blur()
        page.locator(".md-tooltip2--active").wait_for(state="detached")
        checked.append(name)
    assert checked, "no widget card checked on the page"
    # The widgets after their changes, in each palette (what a card does is the same in both; test_runtime
    # checks each page whole).
    for scheme in ("default", "slate"):
        page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)", scheme)
        violations = run_axe(page, within="[data-widget]")
        assert violations == [], "\n".join(map(str, [scheme, *violations]))
    on_page = {name for _, name in widgets_on(built_site, path)}
    for name in (name for name in FOLLOWING if name in on_page):
        assert_the_sources_follow_an_example_picked(page, name)


def sources_listed(page, root: str) -> list:
    """What "Sources of these figures" under the widget lists."""
    return page.eval_on_selector_all(f"{root} .widget__sources li", "els => els.map((el) => el.textContent)")


# The widgets whose examples cite different sources: checked in their page's visit above.
FOLLOWING = ("training_loop", "loop_bill", "parallel_cuts", "training_time")


def assert_the_sources_follow_an_example_picked(page, name: str):
    """The sources under the widget follow an example picked."""
    widget = pyodide_widgets.module(name)
    root = f'[data-widget="{name}"]'
    first = sources_listed(page, root)
    # The first example after the page's own whose sources differ from those listed: the list must move.
    presets = list(widget.presets().values())
    index, preset = next((i, p) for i, p in enumerate(presets) if i and list(provenance.listed(*provenance.parts(widget, p["state"]))) != first)
    page.click(f"{root} [data-preset] >> nth={index}")
    wait_for_cpython_outputs(page, name)
    expected = list(provenance.listed(*provenance.parts(widget, preset["state"])))
    page.wait_for_function("([sel, expected]) => JSON.stringify([...document.querySelectorAll(sel)].map((el) => el.textContent)) === JSON.stringify(expected)",
                           arg=[f"{root} .widget__sources li", expected])


def built_state(page, element_id: str, widget) -> dict:
    """The state the build rendered the widget at: its pressed preset's values, or its only preset's."""
    pressed = page.locator(f'#{element_id} [data-preset][aria-pressed="true"]')
    if pressed.count():
        return json.loads(pressed.first.get_attribute("data-preset"))
    return next(iter(widget.presets().values()))["state"]


def css_content(content: str) -> str:
    """A computed `content` (one CSS string, Chromium's) as the text it shows."""
    return re.sub(r"\\([0-9a-fA-F]{1,6}) ?|\\(.)", lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), content[1:-1])


@pytest.mark.parametrize("path", PAGES)
def test_with_javascript_off_an_outputs_card_holds_its_formula_and_every_input_line(browser, site_url, built_site, path):
    """Without JavaScript site.css draws the card from the slot's own line and the widget's input lines,
    each written once on the widget: what it shows is the card `provenance` computes for the built state,
    its formula and each input's line in order (its sources listed under the widget)."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site_url}{path}")
    checked = 0
    for element_id, name in widgets_on(built_site, path):
        widget = pyodide_widgets.module(name)
        lines, found = provenance.parts(widget, built_state(page, element_id, widget))
        seen = set()
        for key, card in found.items():
            slot = page.locator(f'#{element_id} [data-output="{key}"]')
            if card in seen or not slot.is_visible():
                continue
            seen.add(card)
            slot.hover()
            shown = css_content(slot.evaluate("el => getComputedStyle(el, '::after').content")).split("\n")
            expected = [line for line in (card.formula, *(lines[f] for f in card.uses)) if line]
            assert shown[:len(expected)] == expected, (name, key)
            # After them only the line that says where its sources are, when it cites any.
            assert len(shown) - len(expected) == (1 if card.sources else 0), (name, key, shown)
            checked += 1
    context.close()
    assert checked, "no widget card checked on the page"


def test_live_an_input_change_rewrites_the_widgets_lines_once_and_every_card_reads_them(page, site_url):
    """One write of the shared lines per answer, not one per output; each open card then holds the new line."""
    page.goto(f"{site_url}/training/")
    root = "#training_time"
    wait_live(page, root)
    widget = pyodide_widgets.module("training_time")
    # Writes of the lines (the root's style) and of anything a slot carries of its card.
    page.eval_on_selector(root, """el => { window.cardWrites = {lines: 0, slots: 0};
        new MutationObserver(records => { for (const r of records) {
          if (r.target === el && r.attributeName === "style") window.cardWrites.lines++;
          else if (r.target.hasAttribute("data-output")) window.cardWrites.slots++;
        } }).observe(el, {attributes: true, attributeFilter: ["style", "data-card", "data-sources"], subtree: true}); }""")
    field = next(f for f in widget.FIELDS if f.name == "gpus")
    text = str(int(form_state(page, root)["gpus"]) * 2)
    page.eval_on_selector(f'{root} [name="gpus"]',
                          "(el, text) => { el.value = text; el.dispatchEvent(new Event('input', {bubbles: true})); }", text)
    wait_for_cpython_outputs(page, root)
    state = form_state(page, root)
    lines, found = provenance.parts(widget, state)
    assert page.evaluate("window.cardWrites") == {"lines": 1, "slots": 0}
    users = [key for key, card in found.items() if field.name in card.uses]
    assert users
    # A detail shares its figure's card, which the figure's slot carries.
    figure_of = {output.detail: output.key for output in widget.OUTPUTS if output.detail}
    for key in users:
        slot = figure_of.get(key, key)
        shown = page.eval_on_selector(f'{root} [data-output="{slot}"]', "el => window.widgetCardText(el)")
        assert shown == provenance.cards(widget, state)[key] and lines[field.name] in shown.split("\n"), key
