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

A chart's SVG and spec are kept in the build cache (`buildcache`) under the datasets and a hash
of what a chart is made of: this package and `estimators` (the only code a
chart may import) and the versions of Altair, numpy and vl-convert. An
unchanged chart then costs no Altair import, no schema validation (~0.3 s a
chart) and no vl-convert call (its start alone is ~0.8 s); a changed one is
built, validated and converted again.
"""

import ast
import importlib
import importlib.util
import json
import pkgutil
import re
from pathlib import Path

import estimators
from buildcache import cached, tree_hash, versions

CHARTS = tuple(sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")))
LIBRARIES = ("altair", "numpy", "vl-convert-python")
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


def _spec(name: str, datasets: dict) -> dict:
    module = _module(name)
    missing = set(module.DATASETS) - datasets.keys()
    if missing:
        raise KeyError(f"chart {name!r} needs the datasets {', '.join(sorted(missing))}")
    spec = module.chart().to_dict()
    spec.setdefault("datasets", {}).update(datasets)
    return spec


def _converted(kind: str, name: str, datasets: dict) -> str:
    """vl-convert's `kind` output ("svg" or "vega") for the chart, from the cache when nothing it is made of changed."""

    def convert() -> str:
        import vl_convert  # only on a miss: its import and start are most of a chart's cost

        spec = _spec(name, datasets)
        return vl_convert.vegalite_to_svg(spec) if kind == "svg" else json.dumps(vl_convert.vegalite_to_vega(spec))

    return cached(f"figures-{kind}", [name, datasets, tree_hash(SOURCES), versions(*LIBRARIES)], convert)


_UNSIZED_SVG = re.compile(r'<svg(?![^>]*\swidth=)([^>]*?)\sviewBox="0 0 ([\d.]+) ([\d.]+)"')


def _sized(svg: str) -> str:
    """Each <svg> of a diagram given the width and height of its viewBox, as vl-convert's charts have:
    the page then never draws it smaller than that (its text stays legible on a phone, where the
    frame scrolls sideways instead; see widgets.css)."""
    return _UNSIZED_SVG.sub(lambda m: f'<svg width="{m[2]}" height="{m[3]}"{m[1]} viewBox="0 0 {m[2]} {m[3]}"', svg)


def svg(name: str, datasets: dict) -> str:
    """The chart or diagram drawn with `datasets`, as an SVG string for inlining in a page."""
    if is_diagram(name):
        return _sized(_module(name).draw(datasets))
    return _converted("svg", name, datasets)


def vega_spec(name: str, datasets: dict) -> dict | None:
    """The chart compiled to a Vega spec, for the browser to redraw with new rows; None for a diagram."""
    if is_diagram(name):
        return None
    return json.loads(_converted("vega", name, datasets))
