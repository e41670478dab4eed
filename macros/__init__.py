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

What estimators and preset lookups return carries its derivation
(`site_build.derivation`); a filter prints a number as a focusable `<data>`
with its derivation card (`data-card`, which site_build/browser/cards.js
shows) and records it in the numbers manifest
(`site_build.numbers`), and a computed number printed without one stops the build.
"""

import functools
import html
import inspect
import re

import estimators
import jinja2
import pyodide_widgets
from estimators import units
from estimators.errors import EstimatorError
from estimators.presets import Presets
from site_build import derivation, errors, glossary, numbers, render
from site_build.errors import MacroError

# An element id a page can give a widget: letters, digits, "-" and "_", starting with a letter.
_ELEMENT_ID = re.compile(r"[A-Za-z][\w-]*")


def _guarded(fn, name: str, kind: str = "macro", traces: str = ""):
    """Wrap fn so that a bad call raises MacroError naming the macro (or filter) and what is valid.

    An estimator or a preset lookup (`traces` is "estimator" or "lookup") is
    given plain values and returns traced ones (site_build.derivation), an
    estimator's with its formula; a filter prints a traced number with its
    hover card and records it in the numbers manifest.
    """
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
            result = fn(*derivation.plain(list(args)), **derivation.plain(kwargs))
        except (EstimatorError, KeyError, render.WidgetError) as error:
            raise MacroError(kind, name, str(error).strip('"')) from None
        except (TypeError, ValueError) as error:
            raise MacroError(kind, name, f"{error}; valid call: {errors.call_form(kind, name, signature)}") from None
        if kind == "filter":
            return _printed(name, args, kwargs, result)
        if traces:
            shown = _arguments(args, kwargs)
            inputs = derivation.inputs_of((*args, *kwargs.values(), *_named_presets(name, fn, args, kwargs)))
            origin = derivation.Origin(f"{name}({shown})", formula=derivation.formula(fn) if traces == "estimator" else "", inputs=inputs)
            return derivation.traced(result, origin)
        return result

    return call


def _named_presets(name: str, fn, args: tuple, kwargs: dict) -> list:
    """The preset an estimator named `<table>_preset_<what>` looks up by its `key` argument
    (`run_preset_estimate("llama3-405b")` reads `run("llama3-405b")`), traced as that lookup is."""
    table = name.split("_preset_")[0]
    if table == name or not hasattr(Presets, table):
        return []
    key = inspect.signature(fn).bind(*args, **kwargs).arguments.get("key")
    lookup = getattr(estimators.load_presets(), table)
    return [derivation.traced(lookup(key), derivation.Origin(f'{table}("{key}")'))]


def _arguments(args: tuple, kwargs: dict) -> str:
    """A filter call's arguments as a page writes them: `"FLOP/s"`, `binary=true`."""
    return ", ".join([*map(derivation.expression, args), *(f"{k}={derivation.expression(v)}" for k, v in kwargs.items())])


# Python-Markdown reads a page's inline Markdown before it sets raw HTML aside, so
# a card's characters that Markdown would act on (a code span, emphasis, a link,
# a table's cell or row break) are written as character references.
_INERT = str.maketrans({c: f"&#{ord(c)};" for c in "\n|`*_[]\\"})


def _printed(name: str, args: tuple, kwargs: dict, text: str) -> str:
    """A number as the page shows it: its text, focusable, with the hover card of its derivation."""
    value = args[0]
    if not isinstance(value, derivation.Traced):
        raise MacroError(
            "filter", name,
            f"{value!r} has no derivation: print a number an estimator or a preset lookup returned, not a literal",
        )
    numbers.record(
        name, _arguments(args[1:], kwargs), numbers.kind(name, derivation.plain(args[1:]), derivation.plain(kwargs)),
        value.origin.expression, float(value), text, tuple(derivation.leaf_text(leaf) for leaf in derivation.leaves(value)),
    )
    card = html.escape(derivation.card(text, value), quote=True).translate(_INERT)
    return f'<data class="number" value="{float(value)!r}" tabindex="0" data-card="{card}">{text}</data>'


def registrations() -> dict:
    """Everything a page can call, unwrapped: {"macros": {name: fn}, "filters": {name: fn}},
    and which macros are "estimators" and which preset "lookups" (lists of names)."""
    presets = estimators.load_presets()
    macros = {name: getattr(estimators, name) for name in estimators.__all__ if inspect.isfunction(getattr(estimators, name))}
    # Values these return carry their derivation (site_build.derivation); a lookup has no formula.
    lookups = ["load_presets"]
    estimator_names = [name for name in macros if name not in lookups]
    for name, _ in inspect.getmembers(Presets, inspect.isfunction):
        if not name.startswith("_"):
            macros[name] = getattr(presets, name)
            lookups.append(name)
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
    return {"macros": macros, "filters": filters, "estimators": estimator_names, "lookups": lookups}


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
    numbers.record_widget(", ".join(derivation.expression(a) for a in (name, preset) if a is not None), html)
    return html


def on_pre_page_macros(env):
    """Each page starts with no widget ids taken and no number printed; an unknown name suggests the closest known one."""
    _widgets_on_page.clear()
    numbers.start_page(env.page.file.src_path, env.markdown, errors.source_line(env.page, env.markdown, 0) or 0)
    errors.known_names = {*env.variables, *env.macros}
    errors.known_filters = set(env.filters)
    env.env.undefined = errors.SuggestingUndefined
    env.env.finalize = _unprinted  # (the environment exists only once the modules are loaded)


def _unprinted(value):
    """Jinja's `finalize`: a computed number reaches the page only through a units filter."""
    if isinstance(value, derivation.Traced):
        raise MacroError(
            "number", value.origin.expression,
            f"a number printed without a units filter; print it as `{{{{ … | integer }}}}` or with another filter ({', '.join(sorted(registrations()['filters']))})",
        )
    return value


def define_env(env):
    errors.install()
    found = registrations()
    for name, fn in found["macros"].items():
        traces = "lookup" if name in found["lookups"] else "estimator" if name in found["estimators"] else ""
        env.macro(_guarded(fn, name, traces=traces), name)
    for name, fn in found["filters"].items():
        env.filter(_guarded(fn, name, "filter"), name)
