"""Build-time figures, one module each, found by module name (a widget names its own in `CHART`).

A chart module returns an Altair chart (`chart()`) whose changing data are
named datasets (listed in its DATASETS): `svg(name, datasets)` renders it to
inline SVG (vl-convert, offline) for the page, and `vega_spec(name, datasets)`
compiles it to a Vega spec that the browser's Vega runtime redraws when a
widget's `update` returns new rows for those datasets.

A diagram module, where a chart grammar does not fit (a loop of stations, four
GPUs and what each holds), instead draws SVG itself: `draw(datasets) -> str`.
It is drawn once, at build time; `vega_spec` is None for it, and a widget
enhances it by marking the part a reader picks (`data-when`, see runtime.js).

Converting a chart costs an Altair import, its schema validation (~0.3 s a
chart) and vl-convert's start (~0.8 s): the build keeps what `svg` and
`vega_spec` return in its cache (`site_build.render`), under the datasets,
`SOURCES` (this package and `estimators`, the only code a chart may import)
and the versions of `LIBRARIES`; a cold build draws them in a second process
(`site_build.prefetch`).
"""

import ast
import functools
import importlib
import importlib.util
import json
import pkgutil
import re
from pathlib import Path

import estimators

CHARTS = tuple(sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")))
# What a chart is made of, for a cache of its output: the libraries that draw it and the code it may import.
LIBRARIES = ("altair", "numpy", "vl-convert-python")
# The datasets a chart draws a pinned state from are its own named with this prefix (figures/_pinned.py):
# built with no rows, filled by the runtime while a reader has a state pinned.
PINNED = "pinned_"
# What a pinned layer's marks say while nothing is pinned: an empty container of shapes is read as one
# shape, which a screen reader must be able to name.
PINNED_DESCRIPTION = "The pinned state, drawn here while one is pinned"
# What a pinned layer's marks say while nothing is pinned: an empty container of shapes is read as one
# shape, which a screen reader must be able to name.
PINNED_DESCRIPTION = "The pinned state, drawn here while one is pinned"
SOURCES = (Path(__file__).parent, Path(estimators.__file__).parent)


def _module(name: str):
    if name not in CHARTS:
        raise KeyError(f"no chart {name!r}; valid charts: {', '.join(CHARTS)}")
    return importlib.import_module(f"{__name__}.{name}")


def is_diagram(name: str) -> bool:
    """Whether the module draws its own SVG (`draw`), read from its source: importing a chart imports Altair."""
    if name not in CHARTS:
        raise KeyError(f"no chart {name!r}; valid charts: {', '.join(CHARTS)}")
    source = Path(importlib.util.find_spec(f"{__name__}.{name}").origin).read_text("utf-8")
    return any(isinstance(node, ast.FunctionDef) and node.name == "draw" for node in ast.parse(source).body)


@functools.cache
def _chart_json(name: str) -> str:
    """The chart's described Vega-Lite spec without its datasets, and the names of those datasets, as
    JSON: the same for every set of rows, and Altair's validation of it is most of a conversion, so
    it is made once per build."""
    module = _module(name)
    spec = _described(module.chart().to_dict())
    pinned = sorted(set(re.findall(rf'"name": "({PINNED}[^"]+)"', json.dumps(spec))))
    return json.dumps({"datasets": list(module.DATASETS), "pinned": pinned, "spec": spec})


def _spec(name: str, datasets: dict) -> dict:
    chart = json.loads(_chart_json(name))
    missing = set(chart["datasets"]) - datasets.keys()
    if missing:
        raise KeyError(f"chart {name!r} needs the datasets {', '.join(sorted(missing))}")
    spec = chart["spec"]
    spec.setdefault("datasets", {}).update({name: [] for name in chart["pinned"]}, **datasets)
    return spec


def _field(definition) -> str | None:
    """The field of a text channel (tooltip or text), in any of the forms Vega-Lite takes."""
    if isinstance(definition, list):
        definition = definition[0] if definition else None
    if isinstance(definition, str):
        return definition.split(":")[0]
    return definition.get("field") if isinstance(definition, dict) else None


def _described(spec):
    """Every mark and axis given a text alternative that contains no raw number.

    Left alone, Vega labels each mark for screen readers with its data fields as
    floats ("tokens: 8.23618893554e+13") and each axis with its domain's ends. A
    mark with a label field (its tooltip or text, which units formatted) is read
    by that label; a mark without one (a curve, a rule) is left out of the
    accessibility tree, its figures being in the labelled marks and the widget's
    outputs; an axis is read by its title.
    """
    if isinstance(spec, list):
        return [_described(item) for item in spec]
    if not isinstance(spec, dict):
        return spec
    spec = {key: _described(value) for key, value in spec.items()}
    encoding = spec.get("encoding")
    if "mark" in spec and isinstance(encoding, dict) and "description" not in encoding:
        label = _field(encoding.get("tooltip")) or _field(encoding.get("text"))
        if label:
            spec["encoding"] = {**encoding, "description": {"field": label, "type": "nominal"}}
        else:
            mark = spec["mark"] if isinstance(spec["mark"], dict) else {"type": spec["mark"]}
            spec["mark"] = {**mark, "aria": False}
    if isinstance(encoding, dict):
        for channel in ("x", "y"):
            definition = spec["encoding"].get(channel)
            if isinstance(definition, dict) and ("axis" not in definition or isinstance(definition["axis"], dict)):
                axis = definition.get("axis", {})
                title = axis.get("title", definition.get("title"))
                if title and "description" not in axis:
                    spec["encoding"][channel] = {**definition, "axis": {**axis, "description": f"{channel.upper()}-axis: {title}"}}
    return spec


def _axes_described(vega):
    """Each Vega axis read by its description: the SVG renderer takes an axis's label from the
    axis group's encoding, not from its `description`, and otherwise lists the domain's raw ends;
    and each pinned layer's marks described as a container."""
    if isinstance(vega, list):
        return [_axes_described(item) for item in vega]
    if not isinstance(vega, dict):
        return vega
    vega = {key: _axes_described(value) for key, value in vega.items()}
    for axis in vega.get("axes", []):
        if "description" in axis:
            update = axis.setdefault("encode", {}).setdefault("axis", {}).setdefault("update", {})
            update["description"] = {"value": axis["description"]}
    # The pinned layers' marks (figures/_pinned.py names them with the datasets' prefix) are named as a
    # container: with no rows Vega reads the container itself as the shape, otherwise each mark by its label.
    if vega.get("type") and vega.get("name", "").startswith(PINNED):
        vega["description"] = PINNED_DESCRIPTION
    return vega


# Each chart's Vega spec by its name and rows, for this build: a page's chart is drawn as SVG and
# compiled for the browser from the one compilation.
_VEGA: dict = {}


def _converted(kind: str, name: str, datasets: dict) -> str:
    """vl-convert's `kind` output ("svg" or "vega") for the chart."""
    import vl_convert  # only when a chart is drawn: its import and start are most of a chart's cost

    key = (name, json.dumps(datasets, default=str))  # in their order, which the spec keeps
    if key not in _VEGA:
        _VEGA[key] = _axes_described(vl_convert.vegalite_to_vega(_spec(name, datasets)))
    vega = _VEGA[key]
    return vl_convert.vega_to_svg(vega) if kind == "svg" else json.dumps(vega)


_UNSIZED_SVG = re.compile(r'<svg(?![^>]*\swidth=)([^>]*?)\sviewBox="0 0 ([\d.]+) ([\d.]+)"')


def _sized(svg: str) -> str:
    """Each <svg> of a diagram given the width and height of its viewBox, as vl-convert's charts have:
    the page then never draws it smaller than that (its text stays legible on a phone, where the
    frame scrolls sideways instead; see widgets.css)."""
    return _UNSIZED_SVG.sub(lambda m: f'<svg width="{m[2]}" height="{m[3]}"{m[1]} viewBox="0 0 {m[2]} {m[3]}"', svg)


# A pinned layer's marks as the static picture holds them: an empty group, never filled there (a state
# is pinned only once the page is live, and the live chart is drawn from the Vega spec, which keeps them).
_EMPTY_PINNED_LAYER = re.compile(rf'<g class="mark-[\w-]+ role-mark {PINNED}[\w-]*"[^>]*/>')


def svg(name: str, datasets: dict) -> str:
    """The chart or diagram drawn with `datasets`, as an SVG string for inlining in a page; a chart's
    empty pinned layers left out (they draw nothing, and were some kilobytes of a page of widgets)."""
    if is_diagram(name):
        return _sized(_module(name).draw(datasets))
    return _EMPTY_PINNED_LAYER.sub("", _converted("svg", name, datasets))


def vega_spec(name: str, datasets: dict) -> dict | None:
    """The chart compiled to a Vega spec, for the browser to redraw with new rows; None for a diagram."""
    if is_diagram(name):
        return None
    return json.loads(_converted("vega", name, datasets))
