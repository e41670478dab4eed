"""Provenance cards, checked for every widget found in pyodide_widgets.widgets.

Every output that states a quantity shows how it was made: the formula of what computes it (its
one declaration, `estimators.provenance.formula_of`), each input it uses with the value the form
holds and the presets.toml entry or estimate that supplied it (or "your input"), and the sources
of those entries. What an output declares it uses is checked against what moves it; every number
a preset holds comes from presets.toml or an estimator. The build writes the cards into the page
and the worker sends them with the outputs. (Cards shown live: tests/browser/test_provenance_cards.py.)
"""

import html
import inspect
import json
import math
import re

import markupsafe
import pytest

import estimators
from estimators import units
import pyodide_widgets
from estimators import EstimatorError
from estimators.presets import address_of
from estimators.provenance import formula_of, quantity_of
from pyodide_widgets import contract, dispatch, provenance
from site_build import render
from site_build.lint import find_quantities

WIDGETS = pyodide_widgets.WIDGETS
PRESETS = estimators.load_presets()


def carded(widget) -> dict:
    """{output key: its declaration} for every slot that has a card: a figure's detail shares its card."""
    slots = {}
    for output in widget.OUTPUTS:
        if output.of is not None or output.source:
            slots[output.key] = output
            if output.detail:
                slots[output.detail] = output
    return slots


def shown(field, raw) -> str:
    """A preset's value as the form shows it, worked out here from the form's own text and labels: a number
    as a person types it, its unit singular after one."""
    text = contract.form_text(field, raw)
    if field.kind in ("number", "whole"):
        return f"{contract.as_typed(field, text)} {units.unit_after(float(text), field.unit)}".strip()
    if field.kind == "choice":
        return field.label_of(text)
    if field.kind == "multi":
        return ", ".join(field.label_of(v) for v in text.split(contract.MULTI_SEPARATOR))
    return {"true": "on", "false": "off"}[text]


def line(field, value_text: str, origin: str) -> str:
    return f"{field.label}: {value_text} — {origin}"


def entry_at(address: str):
    """The presets.toml entry at `runs.llama3-405b`, found afresh among every table's entries."""
    [entry] = [e for table in PRESETS.tables for e in getattr(PRESETS, table).values() if address_of(e) == address]
    return entry


@pytest.mark.parametrize("name", WIDGETS)
def test_every_output_that_states_a_quantity_has_a_card(name):
    widget = pyodide_widgets.module(name)
    fields = {f.name for f in widget.FIELDS}
    for output in widget.OUTPUTS:
        assert set(output.uses) <= fields, f"{output.key} uses a field the form lacks: {set(output.uses) - fields}"
        assert not output.uses or output.of is not None, f"{output.key} names inputs but not what computes it"
        assert output.of is None or formula_of(output.of), f"{output.key}: {output.of!r} declares no formula"
    cards = carded(widget)
    for key, preset in widget.presets().items():
        for slot, text in widget.update(preset["state"])["outputs"].items():
            if slot != contract.SUMMARY and find_quantities(text):
                assert slot in cards, f"preset {key}: {slot!r} states {text!r} with nothing declared to compute it"


def read_back(supplied, field):
    """What presets.toml holds at a `from_preset` value's origin (`runs.llama3-405b.params`), in the
    field's units; None for a pick of an entry or an estimate, which `recompute` checks."""
    [(address, _)] = supplied.sources if len(supplied.sources) == 1 else [(None, None)]
    if address is None or not supplied.origin.startswith(f"{address}.") or "(" in supplied.origin:
        return None
    raw = entry_at(address)
    for part in supplied.origin[len(address) + 1:].split("."):
        raw = getattr(raw, part)
    return raw / field.scale if field.kind == "number" else raw


@pytest.mark.parametrize("name", WIDGETS)
def test_every_number_a_preset_holds_comes_from_presets_toml_or_an_estimator(name):
    widget = pyodide_widgets.module(name)
    for key, preset in widget.presets().items():
        for field in widget.FIELDS:
            supplied = preset["supplied"].get(field.name)
            if field.kind in ("number", "whole"):
                assert supplied is not None, f"preset {key}: {field.name} = {preset['state'][field.name]!r} is typed, not supplied"
            if supplied is None:
                continue
            assert supplied.sources, f"preset {key}: {field.name} comes from {supplied.origin}, which names no entry"
            assert supplied.recompute() == supplied.value, f"preset {key}: {field.name} is not what {supplied.origin} gives"
            for address, source in supplied.sources:
                assert entry_at(address).source == source, f"preset {key}: {field.name} cites {address} with another's source"
            held = read_back(supplied, field)
            if held is not None:
                same = held == pytest.approx(supplied.value, rel=1e-12) if field.kind == "number" else held == supplied.value
                assert same, f"preset {key}: {field.name} = {supplied.value!r}, but {supplied.origin} holds {held!r}"


@pytest.mark.parametrize("name", WIDGETS)
def test_a_presets_cards_state_each_formula_as_declared_and_each_value_with_what_supplied_it(name):
    widget = pyodide_widgets.module(name)
    fields = {f.name: f for f in widget.FIELDS}
    presets = list(widget.presets().values())
    for preset in presets:
        cards = provenance.cards(widget, preset["state"])
        assert set(cards) == set(carded(widget))
        for key, output in carded(widget).items():
            card = cards[key].split("\n")
            assert card[0] == (provenance.formula_text(output) or output.source)
            cited = {}
            for used in output.uses:
                value = shown(fields[used], preset["state"][used])
                suppliers = [p["supplied"][used] for p in presets
                             if used in p["supplied"] and shown(fields[used], p["state"][used]) == value]
                said = f"{fields[used].label}: {value}"
                if suppliers:
                    # Named in a reader's words ("from Llama 3 405B pretraining"), or by the value itself (an entry's pick).
                    [line_] = [l for l in card if l == said or l.startswith(f"{said} — ")]
                    by = line_.split(" — ", 1)[1] if line_ != said else ""
                    supplied = next(s for s in suppliers if s.by == by)
                    cited.update(supplied.sources)
                else:
                    assert said in card
            # A card of its output's source alone starts with that source.
            body = card[1:] if provenance.formula_text(output) else card
            sources = [l for l in body if not any(l.startswith(f"{f.label}: ") for f in widget.FIELDS)]
            # Each source once: the entries' sources, then the output's own unless an entry cites it already.
            assert sources == list(dict.fromkeys([*cited.values(), *([output.source] if output.source else [])])), (key, card)


def variants(field, raw):
    """Other valid-looking values of a field, as a reader might type or pick them."""
    text = contract.form_text(field, raw)
    if field.kind == "choice":
        yield from [value for value, _ in field.options if value != text][:6]
    elif field.kind == "multi":
        picked = text.split(contract.MULTI_SEPARATOR)
        if len(picked) > 1:
            yield contract.MULTI_SEPARATOR.join(picked[1:])
        yield from [contract.MULTI_SEPARATOR.join([*picked, v]) for v, _ in field.options if v not in picked][:1]
    elif field.kind == "toggle":
        yield "false" if text == "true" else "true"
    else:
        for factor in (2, 0.5, 1.5, 1e3, 1e-3):  # far, too, so that a verdict's threshold is crossed
            value = float(text) * factor
            yield contract.form_text(field, round(value) if field.kind == "whole" else value)


@pytest.mark.parametrize("name", WIDGETS)
def test_each_output_moves_with_exactly_the_fields_it_declares_it_uses(name):
    widget = pyodide_widgets.module(name)
    slots = {o.key: (o.key, o.detail) for o in widget.OUTPUTS}
    moved = {key: set() for key in slots}
    changed = set()  # fields some valid change was tried on (a choice of one option has none)
    for preset in widget.presets().values():
        state = {f.name: contract.form_text(f, preset["state"][f.name]) for f in widget.FIELDS}
        before = widget.update(state)["outputs"]
        for field in widget.FIELDS:
            for text in variants(field, state[field.name]):
                try:
                    after = widget.update({**state, field.name: text})["outputs"]
                except EstimatorError:
                    continue
                changed.add(field.name)
                for key, parts in slots.items():
                    if any(part and before[part] != after[part] for part in parts):
                        moved[key].add(field.name)
    for output in widget.OUTPUTS:
        if output.of is None:
            continue
        assert set(output.uses) & changed == moved[output.key], (
            f"{output.key}: declares {sorted(output.uses)}, moved by {sorted(moved[output.key])}")


def other_values(field, presets: list):
    """Text values of the field that no preset has, as a reader might type or pick them."""
    taken = {contract.form_text(field, p["state"][field.name]) for p in presets}
    if field.kind == "choice":
        yield from (value for value, _ in field.options if value not in taken)
    elif field.kind == "number" or field.kind == "whole":
        base = float(contract.form_text(field, presets[0]["state"][field.name]))
        for factor in (2, 3, 0.5, 10):
            value = round(base * factor) if field.kind == "whole" else base * factor
            text = contract.form_text(field, value)
            if math.isfinite(value) and text not in taken:
                yield text


@pytest.mark.parametrize("name", WIDGETS)
def test_a_changed_input_makes_the_card_say_your_input_with_the_new_value(name):
    widget = pyodide_widgets.module(name)
    presets = list(widget.presets().values())
    default = {f.name: contract.form_text(f, presets[0]["state"][f.name]) for f in widget.FIELDS}
    checked = 0
    for field in widget.FIELDS:
        users = {key: o for key, o in carded(widget).items() if field.name in o.uses}
        if not users:
            continue
        for text in other_values(field, presets):
            state = {**default, field.name: text}
            try:
                widget.update(state)
            except EstimatorError:
                continue
            reply = json.loads(dispatch.handle(json.dumps({"widget": name, "state": state})))
            value = provenance.shown(field, contract.read([field], {field.name: text})[field.name])
            # The worker sends each field's line once; every card using the field reads it (parts, text).
            assert reply["card_lines"][field.name] == line(field, value, provenance.YOURS)
            lines, found = provenance.parts(widget, state)
            assert reply["card_sources"] == {key: list(card.sources) for key, card in found.items()}
            for key in users:
                assert line(field, value, provenance.YOURS) in provenance.text(found[key], reply["card_lines"]).split("\n"), key
            checked += 1
            break
    if not checked:
        # Nothing but a preset's value to pick (a choice of runs, each a preset): every card names a preset,
        # which the test above checks for each of them.
        used = {name for o in widget.OUTPUTS for name in o.uses}
        assert all(not list(other_values(f, presets)) for f in widget.FIELDS if f.name in used)


@pytest.mark.parametrize("name", WIDGETS)
def test_the_page_carries_each_card_on_its_slot_and_figures_take_focus(name):
    """Each card on its slot; a source its widget's cards cite is written once, under the widget."""
    widget = pyodide_widgets.module(name)
    page = render.render(name)
    state = next(iter(widget.presets().values()))["state"]
    cards = provenance.cards(widget, state)
    details = {o.detail for o in widget.OUTPUTS if o.detail}
    # A pick's output sits inside its button, which takes the focus for it.
    on_picks = {f.pick_output[0] for f in widget.FIELDS if f.pick_output}
    widget_lines = root_lines(page)
    listed = listed_sources(page)
    for key, card in cards.items():
        tag = re.search(rf'<[^>]*data-output="{re.escape(key)}"[^>]*>', page).group(0)
        if key in details:  # its card is its figure's, carried by the figure's slot just above it
            assert "data-card" not in tag and cards[next(o.key for o in widget.OUTPUTS if o.detail == key)] == card, tag
            continue
        # The card as cards.js reads it: its own line, the lines of the widget's fields that --card-in
        # names (each written once, on the widget's root), then each source it cites, written once under the widget.
        own = html.unescape(re.search(r'data-card="([^"]*)"', tag).group(1))
        inputs = re.findall(r"var\((--card-[\w-]+)\)", (re.search(r'style="--card-in:([^"]*)"', tag) or re.match("()", "")).group(1))
        # Each source by its number in the list under the widget.
        cited = [int(n) for n in (re.search(r'data-sources="([^"]*)"', tag) or re.match("()", "")).group(1).split()]
        assert all(1 <= n <= len(listed) for n in cited), (key, cited)
        sources = [listed[n - 1] for n in cited]
        assert "\n".join(filter(None, [own, *(widget_lines[name] for name in inputs), *sources])) == card
        assert ('tabindex="0"' in tag) == (key not in on_picks), tag


def listed_sources(page: str) -> list:
    """The texts of "Sources of these figures" under the widget, in order."""
    block = re.search(r'<div class="widget__sources".*?</ol>', page, re.S)
    return [html.unescape(text) for text in re.findall(r"<li>([^<]*)</li>", block.group(0))] if block else []


def root_lines(page: str) -> dict:
    """{--card-<field>: its line} as the widget's root carries them (its style), CSS strings decoded."""
    root = re.search(r'<div class="widget"[^>]*>', page).group(0)
    style = html.unescape((re.search(r' style="([^"]*)"', root) or re.match("()", "")).group(1))
    return {name: re.sub(r"\\(.)", r"\1", text) for name, text in re.findall(r"(--card-[\w-]+):'\\A ((?:[^'\\]|\\.)*)'", style)}


@pytest.mark.parametrize("name", WIDGETS)
def test_each_input_line_is_written_once_per_widget_and_every_card_using_it_reads_it(name):
    """The lines its cards share stand once on the widget's root, one per field its cards use, each as
    computed from the widget's state; a slot refers to them and carries no input line itself."""
    widget = pyodide_widgets.module(name)
    page = render.render(name)
    state = next(iter(widget.presets().values()))["state"]
    lines, found = provenance.parts(widget, state)
    assert root_lines(page) == {f"--card-{field}": text for field, text in lines.items()}
    assert set(lines) == {field for card in found.values() for field in card.uses}
    for text in lines.values():
        assert page.count(html.escape(text, quote=False).replace("'", "\\'")) == 1, text
    details = {o.detail for o in widget.OUTPUTS if o.detail}
    for key in set(found) - details:
        tag = re.search(rf'<[^>]*data-output="{re.escape(key)}"[^>]*>', page).group(0)
        own = html.unescape(re.search(r'data-card="([^"]*)"', tag).group(1))
        assert not any(text in own for text in lines.values()), (key, own)


def test_a_source_cited_by_many_cards_of_a_widget_is_written_once():
    page = render.render("training_time")
    cited = re.findall(r'data-sources="([^"]*)"', page)
    assert len(cited) > len(set(cited)) or any(len(c.split()) > 1 for c in cited)
    for source in listed_sources(page):
        assert page.count(str(markupsafe.escape(source))) == 1, source


def code_names() -> list:
    """What a reader must never meet in a card: every presets.toml address (`runs.llama3-405b`), and every
    estimator and result class of the estimators by name, called or dotted."""
    addresses = [address_of(e) for table in PRESETS.tables for e in getattr(PRESETS, table).values()]
    functions = [f"{name}(" for name in estimators.ESTIMATORS]
    classes = [f"{name}." for name, value in vars(estimators).items() if isinstance(value, type)]
    bare = [f"{name}" for name in estimators.ESTIMATORS if name != "head_dim"]  # head_dim: a config.json key sources quote
    return addresses + functions + classes + bare + ["model_size."]


@pytest.mark.parametrize("name", WIDGETS)
def test_no_card_nor_the_sources_under_a_widget_name_a_key_or_code(name):
    widget = pyodide_widgets.module(name)
    names = code_names()
    for key, preset in widget.presets().items():
        lines, found = provenance.parts(widget, preset["state"])
        said = [provenance.text(card, lines) for card in found.values()] + list(provenance.listed(lines, found))
        for text in said:
            assert not [n for n in names if n in text], (key, text)
        # Each source once in a card.
        for card in found.values():
            assert len(set(card.sources)) == len(card.sources), (key, card)


def test_the_sources_under_a_widget_follow_its_state_and_name_the_readers_own_inputs():
    widget = pyodide_widgets.module("training_time")
    presets = list(widget.presets().values())
    listed = [provenance.listed(*provenance.parts(widget, p["state"])) for p in presets]
    # Each example lists the sources of its own entries, and one that is not another's.
    assert len(set(listed)) == len(listed)
    for preset, sources in zip(presets, listed):
        cited = {source for supplied in preset["supplied"].values() for _, source in supplied.sources}
        assert set(sources) == cited, preset["label"]
    params = contract.form_text(widget.FIELDS[0], presets[0]["state"]["params"])
    typed = {**presets[0]["state"], "params": str(float(params) * 3)}
    assert provenance.listed(*provenance.parts(widget, typed))[-1] == f"Your input: {widget.FIELDS[0].label}"


@pytest.mark.parametrize("name", WIDGETS)
def test_a_count_of_one_reads_in_the_singular_on_its_card(name):
    # A card (and so the printed note under a widget) once read "1 GPUs", "1 sequences per GPU".
    for field in pyodide_widgets.module(name).FIELDS:
        if field.kind not in ("number", "whole") or not field.unit:
            continue
        one = provenance.shown(field, field.scale)  # one, in the field's display units
        many = provenance.shown(field, 2 * field.scale)
        assert one == f"1 {units.unit_after(1, field.unit)}" and many == f"2 {field.unit}"
        first = field.unit.split()[0]
        if first.isalpha() and first.endswith("s") and not first.endswith("ss"):
            assert one.split()[1] == first[:-1], one


def _computed_by(output):
    """The function whose docstring an output's card reads its formula from (a composed field's estimator), or None."""
    target = output.of
    if isinstance(target, tuple):
        declared = quantity_of(*target)
        target = declared.of if declared is not None else None
    return target


@pytest.mark.parametrize("name", WIDGETS)
def test_no_card_formula_reads_a_code_name_as_a_word(name):
    # A docstring marks an argument's name as code (`key`); the card drops the marks, so the reader met
    # "the range of stage key". The names this module's other check lists are the estimators' own and the
    # presets' keys, never an estimator's arguments: a card's formula is written without them.
    widget = pyodide_widgets.module(name)
    for output in widget.OUTPUTS:
        target = _computed_by(output)
        formula = formula_of(target) if target is not None else None
        if formula is not None:
            raw = inspect.getdoc(target).split("\n\n")[0]
            assert "`" not in raw, (output.key, formula.text)


def test_each_stages_card_is_its_own_quantitys():
    # The objective is the report's words, quoted: its card cites the report, no formula (it carried the
    # budget's GPU-hours formula as its detail's card). The budget's card is the GPU-hours formula; the
    # range's, the data's and the artifact bytes' each their own.
    widget = pyodide_widgets.module("stages")
    gpu_hours = formula_of(estimators.gpu_hours).text
    for key, preset in widget.presets().items():
        lines, found = provenance.parts(widget, preset["state"])
        stage = PRESETS.stage(key)
        assert found[key].formula == "" and stage.source in found[key].sources, key
        assert found[f"{key}_budget"].formula == gpu_hours, key
        own = [found[f"{key}_{part}"].formula for part in ("range", "bytes")]
        assert gpu_hours not in own and len(set(own)) == len(own) and all(own), own
        assert found[f"{key}_data"].formula == "", key
