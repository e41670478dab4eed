"""A printed article: every widget as the state the reader left it in, as text, no form control
shown, each output's card a numbered note under its widget; each prose number marked with the
number of its entry on "How the numbers were made", whose list for that page prints numbered in that order."""

import re

import pytest

import pyodide_widgets
from harness.widgets import form_state, look_at, root, set_field, wait_for_cpython_outputs, wait_live
from pyodide_widgets import contract

PAGE = "/training/"
# Widgets of different kinds, each changed before printing: numbers and choices, a toggle, a
# multi-choice, a pick-one diagram.
CHANGES = (("training_time", "gpus", "4096"), ("storage_scale", "gradients", "false"),
           ("finetune_fit", "modules", "q,v"), ("stages", "stage", "sft"))


def field(name: str, key: str):
    return next(f for f in pyodide_widgets.module(name).FIELDS if f.name == key)


def printed(page, widget: str) -> dict:
    """What the printed widget shows of its form: {field name: the text written for it}; a
    multi-choice, the labels left visible; and which of its controls are still drawn."""
    return page.eval_on_selector(root(widget), """el => {
      const shown = {}, drawn = [];
      for (const c of el.querySelectorAll(".widget__inputs :is(input, select), button")) if (c.checkVisibility()) drawn.push(c.dataset.field || c.name || c.textContent);
      for (const c of el.querySelectorAll(".widget__inputs :is(select, input:not([type=checkbox]), input[data-kind=toggle])")) {
        const text = c.dataset.kind === "toggle" ? c.closest("label").querySelector(".widget__printed")
                                                 : c.nextElementSibling;
        shown[c.name] = text && text.classList.contains("widget__printed") && text.checkVisibility() ? text.textContent : null;
      }
      for (const set of el.querySelectorAll("fieldset.widget__field--multi")) {
        shown[set.querySelector("input").dataset.field] = [...set.querySelectorAll("label")].filter(l => l.checkVisibility()).map(l => l.textContent.trim());
      }
      return {shown, drawn};
    }""")


def notes(page, widget: str) -> dict:
    """The printed notes under the widget and, for each output with a card, its mark and card."""
    return page.eval_on_selector(root(widget), """el => ({
      notes: [...el.querySelectorAll(".widget__notes li")].filter(li => li.checkVisibility()).map(li => li.textContent),
      outputs: [...el.querySelectorAll("[data-output][data-card]")].filter(o => window.widgetCardText(o)).map(o =>
        [o.dataset.note, getComputedStyle(o, "::after").content, window.widgetCardText(o)]),
    })""")


def expected_text(name: str, key: str, state: dict, typed: bool = False):
    """What the printed form should say of a field, from the form's state as the runtime reads it."""
    f = field(name, key)
    value = state[key]
    if f.kind == "choice":
        return dict(f.options)[value]
    if f.kind == "toggle":
        return "yes" if value == "true" else "no"
    if f.kind == "multi":
        return [label for option, label in f.options if option in value.split(",")]
    # A number the reader did not type reads as a person types it (contract.as_typed), from its exact value.
    return value if typed else contract.as_typed(f, value)


def test_a_printed_widget_is_its_current_state_as_text_with_its_cards_as_notes(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    for name, key, text in CHANGES:
        look_at(page, name)
        wait_live(page, name)
        set_field(page, name, field(name, key), text)
        wait_for_cpython_outputs(page, name)
    states = {name: form_state(page, name) for name, _, _ in CHANGES}
    page.emulate_media(media="print")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget]')].every(w => 'printed' in w.dataset)")
    for name, key, text in CHANGES:
        shown = printed(page, name)
        assert shown["drawn"] == [], f"{name}: form controls and buttons are not printed"
        for f in pyodide_widgets.module(name).FIELDS:
            assert shown["shown"][f.name] == expected_text(name, f.name, states[name], typed=f.name == key), (name, f.name)
        assert states[name][key] == text  # the state printed is the one the reader left
        cards = notes(page, name)
        distinct = list(dict.fromkeys(card for _, _, card in cards["outputs"]))  # a detail shares its output's card
        assert cards["notes"] == distinct
        for mark, after, card in cards["outputs"]:
            number = str(distinct.index(card) + 1)
            assert (mark, after) == (number, f'"{number}"'), (name, card)
    page.emulate_media(media="screen")
    page.wait_for_function("() => ![...document.querySelectorAll('[data-widget]')].some(w => 'printed' in w.dataset)")
    assert page.locator(".widget__notes, .widget__printed").count() == 0
    assert page.pdf()[:4] == b"%PDF"


@pytest.mark.without_python
def test_a_printed_number_is_marked_with_its_entrys_number_and_the_entries_print_in_that_order(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    page.emulate_media(media="print")
    marks = page.eval_on_selector_all("data[value] > a", """els => els.map(a =>
      [a.pathname, a.hash, getComputedStyle(a, "::after").content])""")
    [list_path] = {path for path, _, _ in marks}
    assert marks and all(after == f'"{fragment.removeprefix("#")}"' for _, fragment, after in marks)
    page.goto(f"{site_url}{list_path}")
    page.emulate_media(media="print")
    # The page's entries are one list on a page of its own, numbered by a counter: each entry's place is its number.
    entries = page.eval_on_selector_all("article dl.derivations dt",
                                        """els => els.map(dt => [dt.id, getComputedStyle(dt, "::before").content])""")
    assert [dt_id for dt_id, _ in entries] == [str(i) for i in range(1, len(entries) + 1)]
    assert all(re.fullmatch(r'counter\(note\) ". "', before) for _, before in entries)
    assert {fragment for _, fragment, _ in marks} <= {f"#{dt_id}" for dt_id, _ in entries}


def test_with_javascript_off_a_printed_widget_keeps_its_controls(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site_url}{PAGE}")
    page.emulate_media(media="print")
    assert page.locator(f'{root("training_time")} [name="gpus"]').is_visible()
    context.close()
