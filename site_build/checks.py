"""Checks that stop a wrong build with a message an author can act on.

Each returns findings as one-line texts (or None when all is well); the mkdocs
hook reports them, and the tests call them directly.
"""

import re
from pathlib import Path

import estimators
import pyodide_widgets
from estimators import data_file
from estimators import presets as presets_module
from site_build.lint import MESSAGE, find_quantities

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"
PRESETS_FILE = Path(presets_module.__file__).with_name("presets.toml")


# --- presets.toml ------------------------------------------------------------------


def presets_problem(path: Path = PRESETS_FILE) -> str | None:
    """One line naming file, line, table, field and what is valid, or None when the presets load."""
    try:
        if path == PRESETS_FILE:  # the shipped file: loaded once, by the loader the pages' lookups read
            presets_module.load_presets()
            return None
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        data_file.parse(path.read_text("utf-8"), str(shown), presets_module.presets_from_data)
    except estimators.EstimatorError as error:
        return str(error)
    return None


# --- hand-typed quantities -----------------------------------------------------------


def front_matter_lines(source: str, markdown: str) -> int:
    """How many lines of the file come before the Markdown mkdocs hands to plugins (its front matter).

    The Markdown is found by its start, at most 200 characters of it: the build appends link
    definitions to every page (references.py), so a short page's start may run into text the file
    does not hold, and a shorter start is tried."""
    start = markdown.lstrip("\n")[:200]
    while start.strip():
        at = source.find(start)
        if at >= 0:
            return source[:at].count("\n")
        start = start[:len(start) // 2]
    return 0


def page_findings(abs_path: str, shown_path: str, markdown: str) -> list[str]:
    """file:line:col lines for each hand-typed quantity of a page, at the line of the source file."""
    offset = front_matter_lines(Path(abs_path).read_text("utf-8"), markdown)
    return [
        f"docs/{shown_path}:{f.line + offset}:{f.col}: {MESSAGE.format(text=f.text)}"
        for f in find_quantities(markdown)
    ]


def _declared_texts(name: str):
    """(what, text) for every string a widget's author typed: title, labels, units and notes."""
    widget = pyodide_widgets.module(name)
    yield "TITLE", widget.TITLE
    for field in widget.FIELDS:
        for attribute in ("label", "unit", "note"):
            yield f"field {field.name!r} {attribute}", getattr(field, attribute)
    for output in widget.OUTPUTS:
        for attribute in ("label", "note"):
            yield f"output {output.key!r} {attribute}", getattr(output, attribute)


def widget_declaration_findings() -> list[str]:
    """Hand-typed quantities in the widgets' declared texts and in the widget templates."""
    findings = []
    for name in pyodide_widgets.WIDGETS:
        path = f"pyodide_widgets/widgets/{name}.py"
        for what, text in _declared_texts(name):
            findings += [f"{path}: {what}: {MESSAGE.format(text=f.text)}" for f in find_quantities(text)]
    for template in sorted(TEMPLATES.glob("*.html")):
        for f in find_quantities(template.read_text("utf-8")):
            findings.append(f"{template.relative_to(ROOT)}:{f.line}:{f.col}: {MESSAGE.format(text=f.text)}")
    return findings


# --- the built page ------------------------------------------------------------------

# The most one page's HTML may weigh, raw, as built: a reader pays for it at every visit before the
# page can be read, on a phone's link too (gzip sends about a fifth). The build does not stop on it:
# tests/build/test_page_budget.py holds every built page to it, `make bench` reports each page
# against it, and What changed cuts its history into pages that keep within it (`corrections`).
PAGE_BUDGET_BYTES = 400_000

_ID = re.compile(r'\sid="([^"]+)"')


def duplicate_ids(shown_path: str, html: str) -> list[str]:
    """Element ids used twice on a page (a widget named like a heading, say): each breaks a link or a label."""
    ids = _ID.findall(html)
    return [f"docs/{shown_path}: the id {i!r} is used {ids.count(i)} times on the page" for i in sorted(set(ids)) if ids.count(i) > 1]
