"""Build-time rendering of a widget into the page (CPython only: Jinja2 and the
figures are not part of the browser wheel).

The widget's default state goes through the same `update` the browser runs,
so the page reads fully, numbers and chart, before any script.
"""

import json
from pathlib import Path

import jinja2

import estimators
import figures
import pyodide_widgets
from buildcache import cached, tree_hash, versions
from estimators import units
from estimators.errors import EstimatorError

from . import module

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_TEMPLATES.filters["plain"] = units.plain


def _script_json(value) -> str:
    # "</" would end the <script> element early; JSON allows "<\/".
    return json.dumps(value, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


# What a rendered widget is made of: the widget modules, this renderer and its
# templates, the estimators and the charts, and the libraries that draw them.
SOURCES = {Path(m.__file__).parent for m in (estimators, figures, pyodide_widgets)} | {Path(__file__).parent}
LIBRARIES = ("Jinja2", *figures.LIBRARIES)


def render(name: str, preset: str | None = None) -> str:
    """The widget's HTML at its `preset` state (the widget's first preset by default).

    Kept in the build cache, keyed by everything it is made of, so an
    unchanged widget costs one hash of its sources instead of a render.
    """
    return cached("widgets", [name, preset, tree_hash(SOURCES), versions(*LIBRARIES)], lambda: _render(name, preset))


def _render(name: str, preset: str | None) -> str:
    widget = module(name)
    states = widget.presets()
    preset = preset or next(iter(states))
    if preset not in states:
        raise EstimatorError("preset", preset, "one of " + ", ".join(repr(k) for k in states))
    state = states[preset]["state"]
    result = widget.update(state)
    chart = getattr(widget, "CHART", None)
    html = _TEMPLATES.get_template(f"{name}.html").render(
        name=name,
        title=widget.TITLE,
        fields=widget.FIELDS,
        state=state,
        presets=[(key, p["label"], _script_json(p["state"])) for key, p in states.items()],
        preset=preset,
        outputs=result["outputs"],
        chart_svg=figures.svg(chart, result["data"]) if chart else "",
        chart_spec=_script_json(figures.vega_spec(chart, result["data"])) if chart else "",
    )
    # Python-Markdown ends a raw HTML block at a blank line.
    return "\n".join(line for line in html.splitlines() if line.strip())
