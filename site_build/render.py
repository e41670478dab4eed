"""Build-time rendering of a widget into the page (CPython only: Jinja2 and the
figures are not part of the browser wheel).

The widget's state goes through the same `update` the browser runs, so the page
reads fully, numbers and chart, before any script. Rendering also checks the
widget against its declaration: `update` returns exactly the declared outputs,
and the page has exactly one slot for each (a typo such as
`data-output="totl"` stops the build).

A rendered widget is kept in the build cache, keyed by everything it is made
of, so an unchanged widget costs one hash of its sources instead of a render.
"""

import html
import json
import math
import re
from pathlib import Path

import jinja2
import markupsafe

import estimators
import figures
import pyodide_widgets
from estimators.errors import EstimatorError
from pyodide_widgets import provenance
from estimators import units
from pyodide_widgets.contract import (UndeclaredField, as_typed, form_text, in_a_sentence, main_fields, output_keys,
                                      parse_number)
from site_build import lean, prefetch
from site_build.cache import cached, key_path, kept, tree_hash, versions

# The repository, for naming a widget module in a build error.
ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"
GENERIC_TEMPLATE = "widget.html"
# The build cache's folder of charts' Vega specs, each named by its content.
CHART_SPECS = "chart-specs"
_SLOT = re.compile(r'data-output="([^"]*)"')

_JINJA = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_JINJA.globals["form_text"] = form_text
_JINJA.globals["as_typed"] = as_typed
_JINJA.globals["unit_after"] = units.unit_after
# An option label longer than this is cut in one cell of the form's grid (11rem at 0.8rem text).
_JINJA.globals["WIDE_OPTION_CHARS"] = 26


def _unit_shown(field, text: str) -> str:
    """The field's unit as it reads after its value in the form ("1 GPU"; a value it cannot read keeps the unit)."""
    try:
        return units.unit_after(parse_number(field.name, text), field.unit)
    except EstimatorError:
        return field.unit


_JINJA.globals["unit_shown"] = _unit_shown
# A widget's own template can draw further figures (a diagram per option of a pick-one field, say).
_JINJA.globals["figure"] = lambda name, datasets: markupsafe.Markup(chart_svg(name, datasets))
_JINJA.globals["beside_width"] = lambda svg: _beside(str(svg))
# A further chart that runtime.js redraws with every answer, as the widget's own (its spec a file too).
_JINJA.globals["live_figure"] = lambda *args: markupsafe.Markup(live_figure(*args))


# A field's label inside "More inputs (sequence length, MFU)", as a limit names it too.
_JINJA.filters["in_a_sentence"] = in_a_sentence


class WidgetError(Exception):
    """A widget that breaks its own declaration: a build error, not bad input."""


def _css_line(line: str) -> str:
    """A card's line as a CSS string that starts a new line ("\\A "), as site.css's `content` reads it."""
    return "'\\A " + line.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _card_lines(lines: dict) -> markupsafe.Markup:
    """The widget root's style: each field's card line written once, as the custom property
    `--card-<field>` that every card using that field refers to (a widget's cards repeat the same
    few inputs: the model, the GPU, the sequence length). Custom properties, not elements: with
    JavaScript off, CSS can show a property a slot inherits, never another element's text."""
    if not lines:
        return markupsafe.Markup("")
    style = ";".join(f"--card-{name}:{_css_line(line)}" for name, line in lines.items())
    # The CSS strings' single quotes stay one byte each.
    return markupsafe.Markup(' style="' + _quoted(style, '"') + '"')


def _quoted(text: str, quote: str) -> str:
    """`text` for an attribute value between `quote`s, only that quote escaped: the other stays one byte."""
    return html.escape(text, quote=False).replace(quote, f"&#{ord(quote)};")


def _card(found: dict, sources: list, details: frozenset = frozenset()):
    """The attributes that give an output slot its provenance card (`provenance.Card`): what the card
    holds of its own (its formula; nothing for a card that only quotes its sources) as `data-card`, its
    inputs' lines as `--card-in`, which refers to the widget's `--card-<field>` properties
    (`_card_lines`), and the sources it cites, by their numbers in the list under the widget, as
    `data-sources` (site_build/browser/cards.js shows the three as one card, as it does a prose
    number's) and, unless `focusable` is off (a pick's output, whose button takes the focus), a place in
    the tab order, so a keyboard reaches the card as a pointer does. A detail has none: its card is its
    figure's, which the figure's slot just above it carries (written twice, they were some kilobytes of
    each long article)."""
    def attributes(key: str, focusable: bool = True) -> markupsafe.Markup:
        if key not in found or key in details:
            return markupsafe.Markup("")
        card = found[key]
        # Line breaks as character references: the widget's HTML stays one line per element for Markdown.
        text = str(markupsafe.escape(card.formula)).replace("\n", "&#10;")
        inputs = " ".join(f"var(--card-{name})" for name in card.uses)
        cited = " ".join(str(sources.index(source) + 1) for source in card.sources)
        return markupsafe.Markup(f' data-card="{text}"' + (f' style="--card-in:{inputs}"' if inputs else "")
                                 + (f' data-sources="{cited}"' if cited else "") + (' tabindex="0"' if focusable else ""))
    return attributes


def _script_json(value) -> str:
    # "</" would end the <script> element early; JSON allows "<\/".
    return json.dumps(value, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def _mismatch(what: str, expected: set, found: set) -> str:
    parts = []
    if missing := sorted(expected - found):
        parts.append(f"missing {', '.join(missing)}")
    if extra := sorted(found - expected):
        parts.append(f"undeclared {', '.join(extra)}")
    return f"{what}: " + "; ".join(parts) + f" (declared: {', '.join(sorted(expected))})"


_SVG_ID = re.compile(r'\bid="([^"]+)"')
_NUMBERED = re.compile(r"(.*?)\d+")
_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)"')
# A picture drawn no wider than this (for a phone's column) stands beside its controls where the
# column has room for both (widgets.css); a wider one stands above them.
BESIDE_WIDTH_PX = 360


_SVG_HEIGHT = re.compile(r'<svg\b[^>]*?\sheight="([\d.]+)"')
# A picture this many times as tall as it is wide leaves room beside it for the figures under the controls.
PORTRAIT = 1.5


def _beside(svg: str) -> int:
    """The picture's drawn width in px when its controls can stand beside it, else 0."""
    found = _SVG_WIDTH.search(svg)
    width = float(found.group(1)) if found else math.inf
    return round(width) if width <= BESIDE_WIDTH_PX else 0


def _portrait(svg: str) -> bool:
    """Whether the picture is drawn tall and narrow (a phone's column), with room beside it below its controls."""
    width, height = _SVG_WIDTH.search(svg), _SVG_HEIGHT.search(svg)
    return bool(width and height and _beside(svg) and float(height.group(1)) >= PORTRAIT * float(width.group(1)))


def _scoped_ids(svg: str, prefix: str) -> str:
    """The SVG with its ids (vl-convert's clip paths: clip1, clip2, ...) prefixed by the widget's element id,
    so two charts on one page never share an id, nor point at each other's clip path; and numbered from one
    in the order they come, as vl-convert numbers them on from the last chart its process drew: a chart
    reads the same whichever of a cold build's two processes drew it, and after whatever charts."""
    counts: dict = {}
    for old in dict.fromkeys(_SVG_ID.findall(svg)):
        name = old
        if numbered := _NUMBERED.fullmatch(old):
            stem = numbered.group(1)
            counts[stem] = counts.get(stem, 0) + 1
            name = f"{stem}{counts[stem]}"
        new = f"{prefix}-{name}"
        svg = svg.replace(f'id="{old}"', f'id="{new}"').replace(f"url(#{old})", f"url(#{new})").replace(f'href="#{old}"', f'href="#{new}"')
    return svg


def check_outputs(name: str, outputs: dict) -> None:
    """update()'s outputs are exactly the declared ones."""
    declared = output_keys(pyodide_widgets.module(name).OUTPUTS)
    if set(outputs) != declared:
        raise WidgetError(_mismatch(f"widget {name!r}: update() returns outputs that differ from OUTPUTS", declared, set(outputs)))


def check_slots(name: str, html: str) -> None:
    """The page holds one [data-output] slot per declared output, and no other."""
    declared = output_keys(pyodide_widgets.module(name).OUTPUTS)
    slots = _SLOT.findall(html)
    if set(slots) != declared:
        raise WidgetError(_mismatch(f"widget {name!r}: the template's data-output slots differ from OUTPUTS", declared, set(slots)))
    if twice := sorted({key for key in slots if slots.count(key) > 1}):
        raise WidgetError(f"widget {name!r}: more than one slot for {', '.join(twice)}")


# What a rendered widget is made of: the widget modules, this package and its
# templates, the estimators and the figures, and the libraries that draw them.
SOURCES = {Path(m.__file__).parent for m in (estimators, figures, pyodide_widgets)} | {Path(__file__).parent}
LIBRARIES = ("Jinja2", *figures.LIBRARIES)


def _chart_key(name: str, datasets: dict) -> list:
    return [name, datasets, tree_hash(figures.SOURCES), versions(*figures.LIBRARIES)]


def chart_svg(name: str, datasets: dict) -> str:
    """`figures.svg`, kept in the build cache (an unchanged chart is not converted again), without
    its surplus (`lean`)."""
    return lean.svg(cached("figures-svg", _chart_key(name, datasets), lambda: figures.svg(name, datasets)))


def chart_spec(name: str, datasets: dict) -> dict | None:
    """`figures.vega_spec`, kept in the build cache likewise, its data rows without surplus digits."""
    return lean.spec(json.loads(cached("figures-vega", _chart_key(name, datasets), lambda: json.dumps(figures.vega_spec(name, datasets)))))


def live_figure(name: str, datasets: dict, prefix: str, label: str) -> str:
    """A chart besides the widget's own, drawn now and named by its spec's file for runtime.js to redraw
    with every answer; its ids prefixed apart from the widget's chart's, `label` its name for a screen reader."""
    spec = kept(CHART_SPECS, _script_json(chart_spec(name, datasets)), ".json")
    svg = _scoped_ids(chart_svg(name, datasets), f"{prefix}-{name}")
    return (f'<div class="widget__chart" data-chart-spec="{spec}" tabindex="0" role="group" '
            f'aria-label="Chart: {html.escape(label)}">{svg}</div>')


# A call of `widget()` in a page's Markdown whose name and preset are written out, as most are.
_LITERAL_CALL = re.compile(r"""\bwidget\(\s*["'](\w+)["']\s*(?:,\s*preset\s*=\s*["']([\w.-]+)["']\s*)?\)""")


def jobs(pages: list[str]) -> dict:
    """The `prefetch` jobs that render the widgets with a chart that the `pages` (their Markdown, in
    the order mkdocs renders them) call and the cache does not hold: each one's first copy on its
    page, whose element id is its name. A chart's cost is Altair and vl-convert, which that process
    starts once for all it renders; a widget without one costs little more here than a wait for it would.
    A call this reading misses (an id, a computed argument) is rendered here, as without a second process."""
    calls = dict.fromkeys((name, preset or None, name) for page in pages for name, preset in _LITERAL_CALL.findall(page)
                          if name in pyodide_widgets.WIDGETS and _draws_chart(name))
    return {("widget", *call): (render, call) for call in calls if not key_path("widgets", _key(*call)).is_file()}


def _draws_chart(widget: str) -> bool:
    chart = getattr(pyodide_widgets.module(widget), "CHART", None)
    return chart is not None and not figures.is_diagram(chart)


def _key(name: str, preset: str | None, element_id: str | None) -> list:
    return [name, preset, element_id, tree_hash(SOURCES), versions(*LIBRARIES)]


def picture(name: str, preset: str | None = None) -> str:
    """A widget's chart alone, drawn as the widget draws it at `preset` (its first by default), with its
    title as the caption: for a page that shows what a widget draws without its controls (the home page)."""
    widget = pyodide_widgets.module(name)
    states = widget.presets()
    preset = preset or next(iter(states))
    if preset not in states:
        raise EstimatorError("preset", preset, "one of " + ", ".join(repr(k) for k in states))
    chart = getattr(widget, "CHART", None)
    if chart is None:
        raise WidgetError(f"widget {name!r} draws no chart to show alone")
    svg = _scoped_ids(chart_svg(chart, widget.update(states[preset]["state"])["data"]), f"picture-{name}")
    return (f'<figure class="picture"><div class="widget__chart">{svg}</div>'
            f"<figcaption>{html.escape(widget.TITLE)}</figcaption></figure>")


def render(name: str, preset: str | None = None, element_id: str | None = None) -> str:
    """The widget's HTML at its `preset` state (its first preset by default), as element `element_id`."""
    return prefetch.result(("widget", name, preset, element_id),
                           lambda: cached("widgets", _key(name, preset, element_id), lambda: _render(name, preset, element_id)))


def _render(name: str, preset: str | None, element_id: str | None) -> str:
    widget = pyodide_widgets.module(name)
    try:
        states = widget.presets()
        preset = preset or next(iter(states))
        if preset not in states:
            raise EstimatorError("preset", preset, "one of " + ", ".join(repr(k) for k in states))
        state = states[preset]["state"]
        result = widget.update(state)
    except UndeclaredField as error:
        module = Path(widget.__file__).resolve().relative_to(ROOT)
        raise WidgetError(f"widget {name!r} ({module}): {error}") from None
    check_outputs(name, result["outputs"])
    chart = getattr(widget, "CHART", None)
    spec = chart_spec(chart, result["data"]) if chart else None
    fields = {f.name: f for f in widget.FIELDS}
    main, more = main_fields(widget)
    lines, found = provenance.parts(widget, state)
    # "Sources of these figures": the cards' sources, each once (a slot's data-sources number them).
    sources = list(provenance.listed(lines, found))
    picture = _scoped_ids(chart_svg(chart, result["data"]), element_id or name) if chart else ""
    html = _JINJA.get_template(getattr(widget, "TEMPLATE", GENERIC_TEMPLATE)).render(
        name=name,
        # A layout of its own can draw on the module's build-time tables (every option's content, say).
        widget=widget,
        id=element_id or name,
        title=widget.TITLE,
        fields=widget.FIELDS,
        main_fields=main,
        more_fields=more,
        declared=widget.OUTPUTS,
        state=state,
        presets=[
            # Between single quotes, so that JSON's double quotes stay one byte each.
            (key, p["label"], markupsafe.Markup(_quoted(_script_json({k: form_text(fields[k], v) for k, v in p["state"].items()}), "'")))
            for key, p in states.items()
        ],
        preset=preset,
        outputs=result["outputs"],
        data=result["data"],
        card=_card(found, sources, frozenset(o.detail for o in widget.OUTPUTS if o.detail)),
        card_lines=_card_lines(lines),
        sources=sources,
        chart_svg=picture,
        # {figure module: its fold's summary}: the charts a widget draws besides its picture, folded under it.
        folded_charts=tuple(getattr(widget, "FOLDED_CHARTS", {}).items()),
        beside=_beside(picture),
        # The generic layout's figures only: a layout of its own places its outputs itself (beside a
        # portrait picture too, if it says so: `portrait`).
        portrait=_portrait(picture),
        outputs_beside=_portrait(picture) and not hasattr(widget, "TEMPLATE"),
        # The spec is a file of its own (site_build.assets.chart_specs), fetched when the chart goes live:
        # a reader who never touches the widget never loads it.
        chart_spec=kept(CHART_SPECS, _script_json(spec), ".json") if spec else "",
        drag=fields.get(getattr(widget, "DRAG", None)) if spec else None,
    )
    check_slots(name, html)
    # Python-Markdown ends a raw HTML block at a blank line. A line's indentation is for the template's
    # reader only: between tags, and in text outside `pre`, a run of whitespace renders as one space.
    return "\n".join(line.strip() for line in html.splitlines() if line.strip())
