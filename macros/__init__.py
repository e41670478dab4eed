"""mkdocs-macros module: what a Markdown page can call.

Registers, all discovered rather than listed: every public function of
`estimators` as a macro under its own name; one lookup per preset table
(`run("llama3-405b")`, `gpu(...)`, ...: the lookup methods of `Presets`);
every public formatter of `estimators.units` as a filter; and `widget()`.
It holds no formula: every number comes from `estimators`, every text form of
a number from `estimators.units`.

A wrong call stops the build with one line: the page and its Markdown line,
the macro or filter, and what is valid, with the closest valid name when a
name is unknown (see `site_build.errors`).
"""

import functools
import inspect
import re

import estimators
import jinja2
import pyodide_widgets
from estimators import units
from estimators.errors import EstimatorError
from estimators.presets import Presets
from site_build import errors, glossary, render
from site_build.errors import MacroError

# An element id a page can give a widget: letters, digits, "-" and "_", starting with a letter.
_ELEMENT_ID = re.compile(r"[A-Za-z][\w-]*")


def _guarded(fn, name: str, kind: str = "macro"):
    """Wrap fn so that a bad call raises MacroError naming the macro (or filter) and what is valid."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        for value in (*args, *kwargs.values()):
            if isinstance(value, jinja2.Undefined):
                raise MacroError(kind, name, errors.undefined_detail(value))
        unknown = [key for key in kwargs if key not in signature.parameters]
        try:
            if unknown:
                raise TypeError(f"unknown argument {', '.join(map(repr, unknown))}")
            signature.bind(*args, **kwargs)
        except TypeError as error:
            raise MacroError(kind, name, f"{error}; valid call: {errors.call_form(kind, name, signature)}") from None
        try:
            return fn(*args, **kwargs)
        except (EstimatorError, KeyError, render.WidgetError) as error:
            raise MacroError(kind, name, str(error).strip('"')) from None
        except (TypeError, ValueError) as error:
            raise MacroError(kind, name, f"{error}; valid call: {errors.call_form(kind, name, signature)}") from None

    return call


def registrations() -> dict:
    """{"macros": {name: fn}, "filters": {name: fn}}: everything a page can call, unwrapped."""
    presets = estimators.load_presets()
    macros = {name: getattr(estimators, name) for name in estimators.__all__ if inspect.isfunction(getattr(estimators, name))}
    for name, _ in inspect.getmembers(Presets, inspect.isfunction):
        if not name.startswith("_"):
            macros[name] = getattr(presets, name)
    macros["widget"] = widget
    # A page can read a widget module's own tables (the ten steps' data file, say) as the widget does.
    macros["widget_module"] = pyodide_widgets.module
    macros["glossary"] = glossary_page
    # `bytes_` (named so as not to shadow the built-in) is `bytes` in a page.
    filters = {
        name.rstrip("_"): fn
        for name, fn in inspect.getmembers(units, inspect.isfunction)
        if fn.__module__ == units.__name__ and not name.startswith("_")
    }
    return {"macros": macros, "filters": filters}


def glossary_page() -> str:
    """The Glossary page's entries, alphabetised, from site_build/glossary.toml."""
    return glossary.page_markdown(glossary.load())


_widgets_on_page: list = []


def widget(name: str, preset: str | None = None, id: str | None = None) -> str:
    """A live widget at a preset state. Its element id is `id`, or the widget's name,
    then name-2, name-3 for further copies on the same page (each copy keeps its own state and URL keys)."""
    if id is not None and not _ELEMENT_ID.fullmatch(id):
        raise EstimatorError("id", id, "letters, digits, '-' and '_', starting with a letter")
    taken = _widgets_on_page
    if id is None:
        id = name
        copies = 1
        while id in taken:
            copies += 1
            id = f"{name}-{copies}"
    elif id in taken:
        raise EstimatorError("id", id, f"an id not already used on this page ({', '.join(taken)})")
    html = render.render(name, preset, element_id=id)
    taken.append(id)
    return html


def on_pre_page_macros(env):
    """Each page starts with no widget ids taken; an unknown name suggests the closest known one."""
    _widgets_on_page.clear()
    errors.known_names = {*env.variables, *env.macros}
    env.env.undefined = errors.SuggestingUndefined


def define_env(env):
    errors.install()
    found = registrations()
    for name, fn in found["macros"].items():
        env.macro(_guarded(fn, name), name)
    for name, fn in found["filters"].items():
        env.filter(_guarded(fn, name, "filter"), name)
