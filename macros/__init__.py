"""mkdocs-macros module: what a Markdown page can call.

Registers the estimators (as macros), the presets, the units formatters (as
filters), and `widget()`. It holds no formula: every number comes
from `estimators`, every text form of a number from `estimators.units`.

A wrong call stops the build. mkdocs-macros (with `on_error_fail: true`)
prints the page and our message, which names the macro and what is valid.
"""

import functools
import inspect

import estimators
from estimators import units
from estimators.errors import EstimatorError

from pyodide_widgets import render as widget_render


class MacroError(Exception):
    """A macro called with arguments it cannot take."""


def _guarded(env, fn, name: str):
    """Wrap fn so that a bad call raises MacroError naming page, macro and fix."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        signature = inspect.signature(fn)
        unknown = [key for key in kwargs if key not in signature.parameters]
        try:
            if unknown:
                raise TypeError(f"unknown argument {', '.join(map(repr, unknown))}")
            signature.bind(*args, **kwargs)
        except TypeError as error:
            raise MacroError(_message(env, name, f"{error}; valid call: {name}{signature}")) from None
        try:
            return fn(*args, **kwargs)
        except (EstimatorError, KeyError) as error:
            raise MacroError(_message(env, name, str(error))) from None

    return call


def _message(env, macro: str, detail: str) -> str:
    page = env.page.file.src_path if env.page is not None else "?"
    return f"in {page}, macro {macro}(): {detail}"


def define_env(env):
    presets = estimators.load_presets()

    for name in estimators.__all__:
        fn = getattr(estimators, name)
        if inspect.isfunction(fn):
            env.macro(_guarded(env, fn, name), name)

    for kind in ("run", "gpu", "model", "dataset", "failure", "scale", "setup"):
        env.macro(_guarded(env, getattr(presets, kind), kind), kind)

    env.macro(_guarded(env, widget_render.render, "widget"), "widget")

    # Every public formatter of units.py is a filter; `bytes_` (named so as not to
    # shadow the built-in) is `bytes` in a page.
    for name, fn in inspect.getmembers(units, inspect.isfunction):
        if fn.__module__ == units.__name__ and not name.startswith("_"):
            env.filter(_guarded(env, fn, name.rstrip("_")), name.rstrip("_"))
