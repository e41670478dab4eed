"""Every number a page prints knows how it was made. Values from estimators and
preset lookups carry their derivation through a page's own arithmetic; the filter that
prints one records it in the manifest and gives it a hover card naming its inputs' sources."""


import jinja2
import pytest

import estimators
import macros
from estimators import units
from harness.site import number_cards
from site_build import derivation, held, numbers
from site_build.cards import SiteCards
from site_build.errors import MacroError

PRESETS = estimators.load_presets()


class _Env:
    """What mkdocs-macros hands `define_env`: somewhere to register macros and filters."""

    def __init__(self):
        self.env = jinja2.Environment(undefined=jinja2.StrictUndefined)

    def macro(self, fn, name):
        self.env.globals[name] = fn

    def filter(self, fn, name):
        self.env.filters[name] = fn


def site_macros():
    """(render a template with the site's macros and filters as registered now, the entries it printed)."""
    env = _Env()
    macros.define_env(env)
    macros._prepare(env.env, env.site_build)

    def render(text: str) -> str:
        """The page's HTML, then the list its numbers link to (site_build.cards), as one text."""
        env.site_build.cards = site_cards = SiteCards()
        site_cards.start_page("page.md", "Page", "")
        page = env.env.from_string(text).render()
        return page + held.put_back(site_cards.listing("page.md"))

    return render, env.site_build.manifest.entries


@pytest.fixture
def page():
    return site_macros()


def cards(html_text: str) -> list:
    """(shown text, card) of each number in rendered HTML."""
    return number_cards(html_text)


def test_a_preset_field_prints_with_a_card_naming_the_preset_and_its_source(page):
    render, printed = page
    out = render('{{ run("llama3-405b").tokens | count }}')
    run = PRESETS.run("llama3-405b")
    [(text, card)] = cards(out)
    assert text == units.count(run.tokens)
    # In a reader's words: the entry by its name, the field by its note; no lookup or key.
    assert card.splitlines()[0] == f"{text}: D, training tokens ({run.name})"
    assert f"{run.name}, D, training tokens = {text} (source: {run.source})" in card
    assert "llama3-405b" not in card
    [entry] = printed
    assert (entry.derivation, entry.value, entry.text, entry.kind) == ('run("llama3-405b").tokens', run.tokens, text, "number")


def test_an_estimators_card_names_its_formula_and_the_presets_it_starts_from(page):
    render, printed = page
    out = render('{{ model_state_bytes(model("llama3-8b").params) | bytes }}')
    model = PRESETS.model("llama3-8b")
    [(text, card)] = cards(out)
    assert text == units.bytes_(estimators.model_state_bytes(model.params))
    assert derivation.formula(estimators.model_state_bytes) in card
    assert f"{model.name}, every weight stored, counted from the configuration = {units.count(model.params)} (source: {model.source})" in card
    assert "model_state_bytes" not in card


def test_a_pages_own_arithmetic_stays_traceable(page):
    render, printed = page
    out = render('{% set a = model_state_bytes(model("llama3-8b").params) %}{% set b = weights_bytes(model("llama3-8b").params) %}{{ (a / b - 1) | percent }}')
    params = PRESETS.model("llama3-8b").params
    expected = estimators.model_state_bytes(params) / estimators.weights_bytes(params) - 1
    [entry] = printed
    assert entry.value == pytest.approx(expected)
    assert entry.derivation == '((model_state_bytes(model("llama3-8b").params) / weights_bytes(model("llama3-8b").params)) - 1)'
    assert len(cards(out)) == 1


def test_a_preset_estimate_names_the_preset_it_reads(page):
    render, _ = page
    [(_, card)] = cards(render('{{ run_preset_estimate("llama3-405b").flops | sci }}'))
    run = PRESETS.run("llama3-405b")
    # The preset entry with the numbers it holds, and what the field read from the estimate holds.
    assert f"{run.name}: N, parameters = {units.count(run.params)}; D, training tokens = {units.count(run.tokens)}" in card
    assert f"(source: {run.source})" in card
    assert card.splitlines()[0].startswith(f"{units.sci(estimators.run_preset_estimate('llama3-405b').flops)}: C = 6ND")
    assert "run_preset_estimate" not in card and ".flops" not in card


def test_a_literal_has_no_derivation_and_is_refused(page):
    render, _ = page
    with pytest.raises(MacroError, match="no derivation"):
        render("{{ 5e9 | bytes }}")


def test_records_unpack_iterate_and_compare_as_their_values(page):
    render, printed = page
    out = render('{% set n, d = chinchilla_optimal(training_flops(model("llama3-8b").params, 1e12)) %}{{ n | count }} {{ d | count }}'
                 '{% for key, fit in loss_fits().items() %}{{ fit.alpha | plain }}{% endfor %}')
    assert len(cards(out)) == 2 + len(estimators.loss_fits())
    assert printed[0].derivation.endswith("[0]") and printed[1].derivation.endswith("[1]")


def test_traced_numbers_compute_as_plain_ones():
    a = derivation.traced(6, derivation.Origin("a"))
    b = derivation.traced(4, derivation.Origin("b"))
    assert isinstance(a + b, derivation.TracedInt) and a + b == 10
    assert isinstance(a / b, derivation.TracedFloat) and a / b == 1.5
    assert (1 - a).origin.expression == "(1 - a)" and (1 - a) == -5
    assert round(a / b).origin.inputs[0].origin.expression == "(a / b)"
    assert type(derivation.plain([a, (b,)])[1][0]) is int


def test_an_estimator_is_given_plain_values(monkeypatch):
    seen = []
    monkeypatch.setitem(estimators.ESTIMATORS, "weights_bytes", lambda params: seen.append(type(params)) or 2 * params)
    render, _ = site_macros()
    render('{{ weights_bytes(model("llama3-8b").params) | bytes }}')
    assert seen == [int]


# --- one quantity, one text; the lock ----------------------------------------------------


def entry(page="a.md", line=1, derivation="x", kind="bytes", value=1e9, text="1 GB"):
    return numbers.Entry(page, line, derivation, kind, value, text)


def test_one_derivation_shown_two_ways_is_found():
    found = numbers.one_text_findings([entry(text="1 GB"), entry(line=9, text="1.0 GB")])
    assert len(found) == 2  # by derivation and by value, each naming both places
    assert all("a.md:1" in f and "a.md:9" in f for f in found)


def test_one_value_of_one_kind_shown_two_ways_is_found_but_not_two_units():
    assert numbers.one_text_findings([entry(derivation="x", text="1 GB"), entry(derivation="y", text="1.0 GB")])
    assert not numbers.one_text_findings([entry(derivation="x", text="1 GB"), entry(derivation="y", kind="binary bytes", text="0.93 GiB")])


def test_the_lock_diff_names_page_line_derivation_and_old_and_new_text():
    locked = numbers.read_lock(numbers.lock_text([entry(line=3, text="1 GB"), entry(line=7, text="1 GB"), entry(derivation="gone", text="2 GB")]))
    now = [entry(line=5, text="1.1 GB"), entry(line=9, text="1.1 GB"), entry(derivation="new", text="3 GB")]
    assert numbers.diff(locked, now) == ["a.md:1  gone: gone 2 GB", "a.md:1  new: new 3 GB", "a.md:5,9  x: 1 GB ×2 -> 1.1 GB ×2"]


def test_a_number_that_only_moved_line_is_no_change():
    locked = numbers.read_lock(numbers.lock_text([entry(line=3)]))
    assert numbers.diff(locked, [entry(line=30)]) == []


def test_widget_outputs_are_read_from_the_widgets_html():
    assert numbers.widget_outputs('<p data-output="a" title="x">1 <b>GB</b></p><span data-output="b">2</span>') == {"a": "1 GB", "b": "2"}


def test_each_number_is_recorded_at_the_line_of_the_print_that_made_it(page):
    render, printed = page
    render('{{ run("llama3-405b").tokens | count }}\n\n{% for key in ["llama3-8b", "llama3-70b"] %}\n'
           '{{ model(key).params | count }}{% endfor %}\n{% set e = run_preset_estimate("llama3-405b") %}{{ e.gpus | integer }}')
    assert [e.line for e in printed] == [1, 4, 4, 5]
