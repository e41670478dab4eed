"""A page's template is compiled once and kept in the build cache (macros._compile_kept): an unchanged
page reuses its Python, an edited page or a changed environment compiles afresh, and what renders is
what Jinja would render uncached."""

import functools

import jinja2
import pytest

import macros
from site_build import cache


@pytest.fixture
def environment(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE", tmp_path)
    env = jinja2.Environment()
    compiled = []

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(source)
        return jinja2.Environment.compile(self, source, name, filename, raw, defer_init)

    env.compile = functools.partial(macros._compile_kept, env, counting)
    return env, compiled


def test_an_unchanged_page_is_compiled_once_and_renders_as_uncached(environment):
    env, compiled = environment
    page = "{% for i in range(3) %}{{ i * 2 }} {% endfor %}{{ name | upper }}"
    first = env.from_string(page).render(name="x")
    again = env.from_string(page).render(name="x")
    assert first == again == jinja2.Environment().from_string(page).render(name="x")
    assert compiled == [page]


def test_an_edited_page_or_a_filter_passed_its_context_compiles_afresh(environment):
    env, compiled = environment
    env.from_string("{{ 1 | shout }}" if "shout" in env.filters else "{{ 1 }}")
    env.from_string("{{ 2 }}")
    assert len(compiled) == 2
    env.filters["shout"] = lambda value: f"{value}!"
    assert env.from_string("{{ 1 | shout }}").render() == "1!"
    # The same page, but the filter now wants its context: Jinja calls it differently, so the kept code is not reused.
    env.filters["shout"] = jinja2.pass_context(lambda context, value: f"{value}?")
    assert env.from_string("{{ 1 | shout }}").render() == "1?"
    assert len(compiled) == 4


def test_a_page_s_code_is_kept_and_runs_as_freshly_compiled_code(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE", tmp_path)
    compiled = []

    def counting(source, filename, mode):
        compiled.append(source)
        return compile(source, filename, mode)

    monkeypatch.setattr(cache, "compile", counting, raising=False)
    python = "total = sum(range(5))\nlabel = __name__"
    runs = []
    for _ in range(2):
        names = {"__name__": "page"}
        exec(cache.compiled(python, "<page>"), names)
        runs.append((names["total"], names["label"]))
    fresh = {"__name__": "page"}
    exec(compile(python, "<page>", "exec"), fresh)
    assert runs == [(fresh["total"], fresh["label"])] * 2
    assert compiled == [python]  # the second run read the kept code
    exec(cache.compiled(python + "\ntotal += 1", "<page>"), names := {"__name__": "page"})
    assert names["total"] == fresh["total"] + 1 and len(compiled) == 2
