"""Build errors an author can act on: one line with the page, its Markdown line,
what was wrong and what is valid, with the closest valid name when a name is unknown.

mkdocs-macros formats a rendering error through `mkdocs_macros.errors.format_error`,
a singledispatch function; `install()` registers this module's formatter for the
errors a page can make (a bad macro or filter call, an undefined name or attribute,
a syntax error), so a real bug elsewhere keeps its traceback.
"""

import difflib
import inspect
from pathlib import Path

import jinja2
from mkdocs_macros.errors import format_error

ROOT = Path(__file__).resolve().parent.parent
# What a page can name, and which filters it can call: set per page by the macros module,
# which imports this one (so this one never imports it).
known_names: set = set()
known_filters: set = set()


class MacroError(Exception):
    """A macro or filter called with arguments it cannot take."""

    def __init__(self, kind: str, name: str, detail: str):
        self.kind, self.name, self.detail = kind, name, detail
        # A "number" is a value, not a call: `run("llama3-405b").gpus: ...`.
        super().__init__(f"{name}: {detail}" if kind == "number" else f"{kind} {name}(): {detail}")


def suggestion(name: str, candidates) -> str:
    close = difflib.get_close_matches(name, [str(c) for c in candidates], n=1, cutoff=0.45)
    return f"; did you mean {close[0]!r}?" if close else ""


def call_form(kind: str, name: str, signature: inspect.Signature) -> str:
    """How a page writes the call: `widget(name, preset=None, id=None)`, or `value | count(decimals=1)`."""
    if kind == "filter":
        parameters = list(signature.parameters.values())
        rest = ", ".join(str(p) for p in parameters[1:])
        return f"{parameters[0].name} | {name}" + (f"({rest})" if rest else "")
    return f"{name}{signature}"


def undefined_detail(value: jinja2.Undefined) -> str:
    """What an Undefined stands for, and the closest valid name."""
    from site_build.derivation import plain

    name, owner = value._undefined_name, plain(value._undefined_obj)
    if owner is jinja2.utils.missing:
        return f"{name!r} is undefined{suggestion(str(name), known_names)}"
    attributes = [a for a in dir(owner) if not a.startswith("_")]
    if isinstance(owner, dict):
        attributes = list(owner)
    shown = ", ".join(attributes[:20]) + (", …" if len(attributes) > 20 else "")
    return f"{type(owner).__name__} has no attribute {name!r}{suggestion(str(name), attributes)} (it has: {shown})"


class SuggestingUndefined(jinja2.StrictUndefined):
    """StrictUndefined whose error names the closest valid name or attribute."""

    def _fail_with_undefined_error(self, *args, **kwargs):
        raise jinja2.UndefinedError(undefined_detail(self))

    # StrictUndefined fails on these too; each goes through the message above.
    __str__ = __iter__ = __len__ = __bool__ = __eq__ = __ne__ = __hash__ = __contains__ = _fail_with_undefined_error


def _page_path(page) -> str:
    path = Path(page.file.abs_src_path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else page.file.src_path


def _template_line(error: BaseException) -> int | None:
    """The line of the page's template where the error surfaced (Jinja rewrites tracebacks so it shows)."""
    line = getattr(error, "lineno", None)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def source_line(page, markdown: str, template_line: int | None) -> int | None:
    """The Markdown file's own line: the template's line plus the front matter mkdocs stripped."""
    if template_line is None:
        return None
    from site_build.checks import front_matter_lines

    return template_line + front_matter_lines(page.file.content_string, markdown)


def _one_line(error: BaseException, markdown: str, page) -> str:
    line = source_line(page, markdown, _template_line(error))
    where = f"{_page_path(page)}:{line}" if line else _page_path(page)
    if isinstance(error, jinja2.TemplateSyntaxError):
        detail = error.message or str(error)
        if detail.startswith("No filter named"):
            detail += suggestion(detail.split("'")[1], known_filters)
        return f"{where}: {detail}"
    return f"{where}: {error}"


def install():
    """Register the one-line formatter with mkdocs-macros (idempotent)."""
    for kind in (MacroError, jinja2.UndefinedError, jinja2.TemplateSyntaxError):
        format_error.register(kind, _one_line)
