"""Keyword arguments past four values: no class is built from more than four positional values in the
estimators or the macros module, and no macro call of a page passes more than four.

A dataclass of a dozen fields built positionally reads as a row of bare values whose order only the
class's definition gives: `MeasuredRun(key, name, config, gpu, up, out, ...)` swaps two strings
without a word. Python is read by its syntax tree, each page by Jinja's parser (mkdocs-macros
renders pages with Jinja), so a call wrapped over lines or inside a `{% set %}` is found too.
"""

import ast

import jinja2
from jinja2 import nodes

from site_build import project

ROOT = project.ROOT
MOST_POSITIONAL = 4
PYTHON = ("estimators", "macros")


def _positional(args: list) -> int:
    return sum(not isinstance(a, ast.Starred) for a in args)


def _is_class(func: ast.expr) -> bool:
    """A call of a name the project spells as a class's: CapWords (`Gpu`, `units.Fixed`)."""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name[:1].isupper()


def constructor_calls(source: str, filename: str) -> list:
    """(line, the call) of each class built from more than MOST_POSITIONAL positional values in `source`."""
    return [(n.lineno, ast.unparse(n)[:100]) for n in ast.walk(ast.parse(source, filename))
            if isinstance(n, ast.Call) and _is_class(n.func) and _positional(n.args) > MOST_POSITIONAL]


def jinja_calls(source: str) -> list:
    """Every call of a page's Jinja (mkdocs-macros' syntax: Jinja's own, with `do` and loop controls)."""
    env = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])
    return list(env.parse(source).find_all(nodes.Call))


def page_calls(source: str) -> list:
    """(line, the number of positional values) of each call in a page's Jinja with more than MOST_POSITIONAL."""
    return [(c.lineno, len(c.args)) for c in jinja_calls(source) if len(c.args) > MOST_POSITIONAL]


def test_no_class_is_built_from_more_than_four_positional_values():
    found = {}
    for package in PYTHON:
        for path in sorted((ROOT / package).rglob("*.py")):
            calls = constructor_calls(path.read_text("utf-8"), str(path))
            if calls:
                found[str(path.relative_to(ROOT))] = calls
    assert not found, found


def test_no_macro_call_of_a_page_passes_more_than_four_positional_values():
    pages = sorted((ROOT / "docs").rglob("*.md"))
    calls = sum(len(jinja_calls(p.read_text("utf-8"))) for p in pages)
    assert calls, "the pages' macro calls were read"  # a parser that found none would pass any page
    found = {str(p.relative_to(ROOT)): page_calls(p.read_text("utf-8")) for p in pages}
    assert not {page: calls for page, calls in found.items() if calls}


def test_the_scans_find_what_they_are_for():
    assert constructor_calls("Run(a, b, c, d, e)\nrun(a, b, c, d, e)\nRun(a, b, c, d, *rest)\n", "x.py") == [
        (1, "Run(a, b, c, d, e)")]
    assert page_calls('{% set b = memory_bill(c, 8, 0, "adam", 4096) %}{{ f(1, 2, 3, 4) }}') == [(1, 5)]
