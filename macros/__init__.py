"""mkdocs-macros module: what a Markdown page can call.

Registers, all discovered rather than listed: every estimator (each public
function of a topic module of `estimators`, `estimators.ESTIMATORS`) as a
macro under its own name; one lookup per preset table (`run("llama3-405b")`,
`gpu(...)`, ...: each table presets.toml declares names its own); every
formatter of `estimators.units` (`units.FORMATTERS`) as a filter; and `widget()`.
It holds no formula: every number comes from `estimators`, every text form of
a number from `estimators.units`.

A wrong call stops the build with one line: the page and its Markdown line,
the macro or filter, and what is valid, with the closest valid name when a
name is unknown (see `site_build.errors`).

What estimators and preset lookups return carries its derivation
(`site_build.derivation`); a filter prints a number as a `<data>` linking to
its derivation card, which the site writes once on a page of its own
(`site_build.cards`; site_build/browser/cards.js shows it on hover and focus),
and records it in the build's numbers manifest (`site_build.numbers.Manifest`,
one per build, held by mkdocs-macros' `env`); a line marker before each
`{{ }}` and `{% %}` of a page tells the manifest which Markdown line is being
rendered. A computed number printed without a filter stops the build.
"""

import functools
import inspect
import logging
import re
from pathlib import Path

import estimators
import jinja2
import jinja2.ext
import jinja2.lexer
from mkdocs.utils import get_relative_url
import pyodide_widgets
from estimators import units
from estimators.errors import EstimatorError
from estimators.provenance import formula_of
from site_build import cache, cards, citation, corrections, derivation, errors, glossary, held, history, numbers, preset_tables, render, reproducible
from site_build.errors import MacroError

# An element id a page can give a widget: letters, digits, "-" and "_", starting with a letter.
_ELEMENT_ID = re.compile(r"[A-Za-z][\w-]*")


def _guarded(fn, name: str, kind: str = "macro", traces: str = "", build: "_Build | None" = None):
    """Wrap fn so that a bad call raises MacroError naming the macro (or filter) and what is valid.

    An estimator or a preset lookup (`traces` is "estimator" or "lookup") is
    given plain values and returns traced ones (site_build.derivation), an
    estimator's with its formula; a filter prints a traced number linked to
    its card and records it in `build`'s manifest.
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
            return _printed(build, name, fn, args, kwargs=kwargs, text=result)
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
    if table == name or table not in estimators.load_presets().lookups:
        return []
    key = inspect.signature(fn).bind(*args, **kwargs).arguments.get("key")
    lookup = getattr(estimators.load_presets(), table)
    return [derivation.traced(lookup(key), derivation.Origin(f'{table}("{key}")'))]


def _arguments(args: tuple, kwargs: dict) -> str:
    """A filter call's arguments as a page writes them: `"FLOP/s"`, `binary=true`."""
    return ", ".join([*map(derivation.expression, args), *(f"{k}={derivation.expression(v)}" for k, v in kwargs.items())])


def _printed(build: "_Build", name: str, formatter, args: tuple, kwargs: dict, text: str) -> str:
    """A number as the page shows it: its text, linked to its derivation card on the list page."""
    value = args[0]
    if not isinstance(value, derivation.Traced):
        raise MacroError(
            "filter", name,
            f"{value!r} has no derivation: print a number an estimator or a preset lookup returned, not a literal",
        )
    kind = units.kind_of(formatter, *derivation.plain(args[1:]), **derivation.plain(kwargs))
    inputs = tuple(derivation.leaf_text(leaf) for leaf in derivation.leaves(value))
    build.manifest.record(kind, value.origin.expression, float(value), text, inputs=inputs)
    return build.cards.number(text, value)


class _Build:
    """What one build keeps from page to page: the numbers printed, and the widget ids the page
    being rendered has taken."""

    def __init__(self):
        self.manifest = numbers.Manifest()
        self.cards = cards.SiteCards()
        self.widget_ids: list = []
        self.commit = history.head()  # what the pages' citations name
        self.nav_order: list = []  # the pages' Markdown paths as the nav lists them
        self.src_uri = ""  # the Markdown path of the page being rendered

    def widget(self, name: str, preset: str | None = None, id: str | None = None) -> str:
        """A live widget at a preset state. Its element id is `id`, or the widget's name,
        then name-2, name-3 for further copies on the same page (each copy keeps its own state and URL keys)."""
        if id is not None and not _ELEMENT_ID.fullmatch(id):
            raise EstimatorError("id", id, "letters, digits, '-' and '_', starting with a letter")
        taken = self.widget_ids
        if id is None:
            id = name
            copies = 1
            while id in taken:
                copies += 1
                id = f"{name}-{copies}"
        elif id in taken:
            raise EstimatorError("id", id, f"an id not already used on this page ({', '.join(taken)})")
        html_text = render.render(name, preset, element_id=id)
        taken.append(id)
        call = ", ".join(derivation.expression(a) for a in (name, preset) if a is not None)
        self.manifest.record_widget(f"widget({call})", html_text, pyodide_widgets.module(name), preset)
        return held.hold(html_text)


def registrations(build: _Build | None = None) -> dict:
    """Everything a page can call, unwrapped: {"macros": {name: fn}, "filters": {name: fn}},
    and which macros are "estimators" and which preset "lookups" (lists of names)."""
    build = build or _Build()
    presets = estimators.load_presets()
    macros = dict(estimators.ESTIMATORS)
    estimator_names = list(macros)
    # Values these return carry their derivation (site_build.derivation); a lookup has no formula.
    macros["load_presets"] = estimators.load_presets
    lookups = ["load_presets"]
    for name in presets.lookups:  # one per table presets.toml declares
        macros[name] = getattr(presets, name)
        lookups.append(name)
    macros["widget"] = build.widget
    macros["picture"] = picture
    # A page can read a widget module's own tables (the ten steps' data file, say) as the widget does.
    macros["widget_module"] = pyodide_widgets.module
    macros["glossary"] = glossary_page
    macros["estimator_formulas"] = estimator_formulas
    macros["what_changed"] = functools.partial(what_changed, build)
    macros["numbers_made"] = functools.partial(numbers_made, build)
    filters = dict(units.FORMATTERS)
    # The methods page's preset tables, their numbers printed by these filters as a page prints them.
    printing = {name: _guarded(fn, name, "filter", build=build) for name, fn in filters.items()}
    macros["presets_tables"] = functools.partial(preset_tables.markdown, printing)
    # A table the page writes itself folds its sources as the preset tables do.
    macros["folded_source"] = preset_tables.folded_source
    return {"macros": macros, "filters": filters, "estimators": estimator_names, "lookups": lookups}


def picture(name: str, preset: str | None = None) -> str:
    """A widget's picture alone, without its controls, as the widget draws it at `preset`: the home
    page shows what the site draws."""
    return held.hold(render.picture(name, preset))


def estimator_formulas() -> list:
    """(where it is declared, its formula) of every estimator, by module: the methods page's list."""
    declared = [formula_of(fn) for fn in estimators.ESTIMATORS.values()]
    return sorted((f.declared_in, f.text) for f in declared if f)


def what_changed(build: _Build, part: int = 1, first: str | None = None) -> str:
    """A page of What changed: each commit that moved a printed number, from git's history, newest
    first, cut into pages (`corrections.parts`); `part` 1, the newest, is the page that calls it
    without arguments, `first`, the others the build's (site_build/hook.py)."""
    return held.hold_blocks(corrections.part_markdown(part, first or build.src_uri))


def numbers_made(build: _Build, page: str | None = None) -> str:
    """A list page's body: the list of `page`'s cards (its Markdown path), or, without one, the index of
    every page's list, in the order of the nav."""
    return build.cards.index(build.nav_order) if page is None else build.cards.listing(page)


def glossary_page() -> str:
    """The Glossary page's entries, alphabetised, from site_build/glossary.toml."""
    return glossary.page_markdown(glossary.load())


# The line marker a page's template calls before each of its `{{ }}` and `{% %}`.
_LINE_MARKER = "_numbers_at_line"


class _LineMarkers(jinja2.ext.Extension):
    """Before each `{{ }}` and `{% %}` of a template, `{{ _numbers_at_line(N) }}` with its line N:
    it prints nothing and tells the manifest which line the numbers after it are printed from.
    (Jinja knows a template's lines only while it reads it; this is where it tells them.)"""

    def filter_stream(self, stream):
        for token in stream:
            if token.type in (jinja2.lexer.TOKEN_VARIABLE_BEGIN, jinja2.lexer.TOKEN_BLOCK_BEGIN):
                for kind, value in (
                    (jinja2.lexer.TOKEN_VARIABLE_BEGIN, "{{"), (jinja2.lexer.TOKEN_NAME, _LINE_MARKER),
                    (jinja2.lexer.TOKEN_LPAREN, "("), (jinja2.lexer.TOKEN_INTEGER, token.lineno),
                    (jinja2.lexer.TOKEN_RPAREN, ")"), (jinja2.lexer.TOKEN_VARIABLE_END, "}}"),
                ):
                    yield jinja2.lexer.Token(token.lineno, kind, value)
            yield token


def on_pre_page_macros(env):
    """Each page starts with no widget ids taken; an unknown name suggests the closest known one."""
    build = env.site_build
    build.widget_ids.clear()
    page = env.page
    build.nav_order = _nav_sources(env.conf["nav"] or [])
    build.src_uri = page.file.src_uri
    listed = cards.list_page(page.file.src_uri).removesuffix(".md")
    list_url = get_relative_url(listed + ("/" if env.conf["use_directory_urls"] else ".html"), page.url)
    try:
        build.cards.start_page(page.file.src_uri, page.title or env.conf["site_name"], list_url)
    except cards.ListOrderError as error:
        raise MacroError("page", page.file.src_uri, str(error)) from None
    build.manifest.start_page(env.page.file.src_path, errors.source_line(env.page, env.markdown, 0) or 0)
    errors.known_names = {*env.variables, *env.macros}
    errors.known_filters = set(env.filters)
    _prepare(env.env, build)


def on_post_page_macros(env):
    """The page ends with where its numbers' derivations are, then how to cite it."""
    page, build = env.page, env.site_build
    if pointer := build.cards.pointer():
        env.markdown += "\n\n" + pointer + "\n"
    title = env.conf["site_name"] if page.is_homepage or not page.title else page.title  # the home page is the site
    cite = citation.Citation(env.conf["site_name"], title, page.canonical_url,
                             reproducible.build_epoch(), commit=build.commit.sha if build.commit else None)
    env.markdown += "\n\n" + citation.section(cite) + "\n"


def _prepare(jinja_env, build: _Build) -> None:
    """The Jinja environment as the site's pages need it (it exists only once the modules are loaded)."""
    jinja_env.undefined = errors.SuggestingUndefined
    jinja_env.finalize = _unprinted
    jinja_env.add_extension(_LineMarkers)
    jinja_env.globals[_LINE_MARKER] = build.manifest.at
    if "compile" not in vars(jinja_env):
        jinja_env.compile = functools.partial(_compile_kept, jinja_env, type(jinja_env).compile)


# What a page's Python, as Jinja compiles it, depends on besides the page: Jinja itself, the
# environment's syntax and settings, the extensions that rewrite the page as it is read, and which
# filters and tests exist and what each is passed (context, environment, or neither).
_COMPILE_SETTINGS = (
    "block_start_string", "block_end_string", "variable_start_string", "variable_end_string", "comment_start_string",
    "comment_end_string", "line_statement_prefix", "line_comment_prefix", "trim_blocks", "lstrip_blocks",
    "newline_sequence", "keep_trailing_newline", "optimized", "autoescape", "finalize",
)


def _compile_kept(jinja_env, compile_, source, name=None, filename=None, raw=False, defer_init=False):
    """`Environment.compile`, its Python and that Python's code object kept in the build cache:
    compiling a long page's template is most of what an unchanged page costs a rebuild
    (`Environment.from_string`, which mkdocs-macros calls, has no cache of its own)."""
    if raw or not isinstance(source, str):
        return compile_(jinja_env, source, name, filename, raw=raw, defer_init=defer_init)
    inputs = [source, name, filename, defer_init, jinja2.__version__,
              {key: getattr(getattr(jinja_env, key), "__qualname__", repr(getattr(jinja_env, key))) for key in _COMPILE_SETTINGS},
              # Each extension by its module's whole text: inspect.getsource of a class parses the module.
              {key: Path(inspect.getfile(type(extension))).read_text("utf-8") for key, extension in sorted(jinja_env.extensions.items())},
              {kind: {key: str(jinja2.utils._PassArg.from_obj(f)) for key, f in sorted(table.items())}
               for kind, table in (("filters", jinja_env.filters), ("tests", jinja_env.tests))}]
    python = cache.cached("jinja-pages", inputs, lambda: compile_(jinja_env, source, name, filename, raw=True, defer_init=defer_init))
    return cache.compiled(python, filename or "<template>")


def on_post_build(env):
    """The manifest into the site folder; a quantity printed two ways is a warning, which the
    strict build (and `make serve`) turns into a failed build."""
    entries = env.site_build.manifest.entries
    for finding in numbers.one_text_findings(entries):
        logging.getLogger("mkdocs.plugins.macros.numbers").warning(finding)
    numbers.write(entries, Path(env.conf["site_dir"]))


def _nav_sources(nav: list) -> list:
    """The Markdown paths of mkdocs.yml's nav, in its order (a section's pages in its place)."""
    found = []
    for item in nav:
        for value in item.values() if isinstance(item, dict) else [item]:
            found += _nav_sources(value) if isinstance(value, list) else [value] if str(value).endswith(".md") else []
    return found


def _unprinted(value):
    """Jinja's `finalize`: a computed number reaches the page only through a units filter."""
    if isinstance(value, derivation.Traced):
        raise MacroError(
            "number", value.origin.expression,
            f"a number printed without a units filter; print it as `{{{{ … | integer }}}}` or with another filter ({', '.join(sorted(units.FORMATTERS))})",
        )
    return value


def define_env(env):
    errors.install()
    env.site_build = build = _Build()
    found = registrations(build)
    for name, fn in found["macros"].items():
        traces = "lookup" if name in found["lookups"] else "estimator" if name in found["estimators"] else ""
        env.macro(_guarded(fn, name, traces=traces), name)
    for name, fn in found["filters"].items():
        env.filter(_guarded(fn, name, "filter", build=build), name)
