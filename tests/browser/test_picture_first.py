"""A widget opens on its picture: the picture first, its main controls beside or under it, the rest
folded under "More inputs" (opened when the address sets one of them), the whole widget, once live,
within about 1.2 screens of a laptop, and on a phone its picture and main controls within the first
screen, nothing of it scrolling sideways; axe finds nothing on its page; and numbers in its fields read
as a person types them. (A pinned state drawn in every chart beside the live one is checked in
test_widget_contract's visit of each widget.)"""

import pytest

import pyodide_widgets
from harness.site import widget_pages
from harness.widgets import controls, form_state, look_at, root, run_axe, wait_live
from pyodide_widgets import contract

LAPTOP = {"width": 1280, "height": 900}
# "About 1.2 screens": the tallest a widget may stand at 1280 × 900.
TALLEST_PX = 1.2 * LAPTOP["height"]
# A phone's screen: the widget's picture and main controls end within its first screen, under the sticky header.
PHONE = {"width": 390, "height": 844}
# Every page that holds a widget, found from the nav and the pages' Markdown.
PAGES = widget_pages()

CONTROLS_MADE = """id => { const r = document.getElementById(id);
                           return r.dataset.enhanced && !r.querySelector('noscript[data-controls]'); }"""
# Of one widget: its height, where its picture and its form start, and which of its fields show.
LAYOUT = """id => { const r = document.getElementById(id);
  const top = (sel) => r.querySelector(sel)?.getBoundingClientRect().top;
  const shown = [...r.querySelector('.widget__inputs').elements].filter((c) => c.name && c.checkVisibility())
    .map((c) => c.name);
  return {height: r.getBoundingClientRect().height, form: top('.widget__inputs'),
          picture: top('.widget__chart, .widget__matrix, .widget__stack'), shown: [...new Set(shown)]}; }"""
# Of one widget on a phone, scrolled to stand under the sticky header: where its picture and its main fields
# (each field's block: label, control, picks) end below its top, how tall the screen under the header is, and
# each of its elements that scrolls sideways or stands past its sides.
PHONE_LAYOUT = """([id, fields]) => { const r = document.getElementById(id);
  const box = r.getBoundingClientRect();
  const picture = r.querySelector('.widget__chart, .widget__matrix, .widget__stack');
  const main = fields.flatMap((sel) => [...document.querySelectorAll(sel)]).map((c) => c.closest('.widget__field') || c);
  const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
  const named = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  // A chart's marks and a select's options are drawn by the chart and the select, which are checked themselves.
  const sideways = [...r.querySelectorAll('*')].filter((el) => !el.parentElement.closest('svg, select') && el.checkVisibility()).filter((el) => {
    const b = el.getBoundingClientRect();
    return (['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1)
      || b.right > box.right + 1 || b.left < box.left - 1; }).map(named);
  return {height: box.height, first_screen: innerHeight - header, sideways: [...new Set(sideways)],
          ends: Math.max(...[picture, ...main].filter(Boolean).map((el) => el.getBoundingClientRect().bottom)) - box.top}; }"""


def see(page, widget_id: str) -> dict:
    look_at(page, "#" + widget_id)
    page.wait_for_function(CONTROLS_MADE, arg=widget_id)
    return page.evaluate(LAYOUT, widget_id)


@pytest.mark.parametrize("path", PAGES)
def test_each_widget_opens_on_its_picture_with_its_main_fields_and_stands_within_a_screen_and_a_fifth_live_and_axe_finds_nothing(
        browser, site_url, path):
    """At a laptop's size, and in the same visit at a phone's (the live charts are the same views, scaled to
    the column): on the phone each widget's picture and main fields within the first screen, nothing of it
    scrolling sideways."""
    page = browser.new_page(viewport=LAPTOP)
    page.goto(site_url + path)
    ids = page.eval_on_selector_all("[data-widget]", "els => els.map((el) => [el.id, el.dataset.widget])")
    assert ids
    too_tall, misplaced, below, sideways = {}, {}, {}, {}
    for widget_id, name in ids:
        wait_live(page, "#" + widget_id)
        seen = see(page, widget_id)
        main, _ = contract.main_fields(pyodide_widgets.module(name))
        if seen["height"] > TALLEST_PX:
            too_tall[widget_id] = round(seen["height"])
        if seen["picture"] is not None and seen["picture"] > seen["form"]:
            misplaced[widget_id] = "the form stands above the picture"
        if seen["shown"] != [f.name for f in main]:
            misplaced[widget_id] = f"fields shown: {seen['shown']}"
        page.set_viewport_size(PHONE)
        see(page, widget_id)
        phone = page.evaluate(PHONE_LAYOUT, [widget_id, [controls("#" + widget_id, f.name) for f in main]])
        if phone["ends"] > phone["first_screen"]:
            below[widget_id] = f"ends {phone['ends']:.0f} px down, of {phone['first_screen']:.0f}"
        if phone["sideways"] or page.evaluate("document.documentElement.scrollWidth") > PHONE["width"]:
            sideways[widget_id] = phone["sideways"]
        page.set_viewport_size(LAPTOP)
    assert not too_tall, f"taller than {TALLEST_PX:.0f} px live: {too_tall}"
    assert not misplaced, misplaced
    assert not below, f"at {PHONE['width']} × {PHONE['height']}, picture and main fields below the first screen: {below}"
    assert not sideways, f"scrolling sideways at {PHONE['width']} px: {sideways}"
    # The page as a reader leaves it, every widget live and looked at: axe finds nothing in it.
    violations = run_axe(page)
    assert violations == [], "\n".join(map(str, violations))


def test_the_pages_measured_hold_every_widget():
    assert set().union(*PAGES.values()) == set(pyodide_widgets.WIDGETS)


# Texts a field may be given (by an example, a link or a drag), each shown as Python's as_typed shows it.
TEXTS = ("405.8533888", "2.8409737216", "80.0910010111223", "0.124439808", "1867.9342473118", "16384", "1e7",
         "0.0001234", "999.96", "0x10", "abc", "1,5", "16,384", "1e400", "-2.5", "7")


def test_a_field_the_address_sets_opens_its_fold_and_every_field_shows_a_figure_as_typed_computing_with_its_exact_value(
        browser, site_url):
    """One visit: a folded field the address sets opens its fold and shows as a person types it, while another
    widget's fold stays closed; each example's figure shows as typed and computes with its exact value until
    the reader types; and the runtime shows any text given a field as Python's as_typed does."""
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{site_url}/training/?memory_bill.seq_len=16384.0")
    fold = f'{root("memory_bill")} details.widget__more'
    seen = see(page, "memory_bill")
    assert "seq_len" in seen["shown"] and page.eval_on_selector(fold, "el => el.open")
    assert page.input_value(f'{root("memory_bill")} [name="seq_len"]') == "16,384"
    # Another widget, whose address sets nothing, keeps its fold closed.
    see(page, "training_time")
    assert not page.eval_on_selector(f'{root("training_time")} details.widget__more', "el => el.open")

    widget = pyodide_widgets.module("training_time")
    fields = {f.name: f for f in widget.FIELDS}
    params = f'{root("training_time")} [name="params"]'
    for key, preset in widget.presets().items():
        page.click(f'{root("training_time")} [data-preset]:nth-child({list(widget.presets()).index(key) + 2})')
        exact = contract.form_text(fields["params"], preset["state"]["params"])
        assert page.input_value(params) == contract.as_typed(fields["params"], exact), key
        assert form_state(page, "training_time")["params"] == exact, key
    page.fill(params, "70")
    assert form_state(page, "training_time")["params"] == "70"

    for kind in ("number", "whole"):
        field = contract.Field("f", "F", kind)
        shown = page.evaluate("([texts, whole]) => texts.map((t) => window.widgetRuntime.asTyped(t, whole))",
                              [list(TEXTS), kind == "whole"])
        assert shown == [contract.as_typed(field, text) for text in TEXTS], kind
