"""Build-time charts: each module returns an Altair chart whose changing data
are named datasets (listed in the module's DATASETS).

`svg(name, datasets)` renders a chart to inline SVG (vl-convert, offline) for
the page; `vega_spec(name)` compiles it to a Vega spec that the browser's Vega
runtime redraws when a widget's `update` returns new rows for those datasets.

Both are kept in the build cache (`buildcache`) under the datasets and a hash
of what a chart is made of: this package and `estimators` (the only code a
chart may import) and the versions of Altair, numpy and vl-convert. An
unchanged chart then costs no Altair import, no schema validation (~0.3 s a
chart) and no vl-convert call (its start alone is ~0.8 s); a changed one is
built, validated and converted again.
"""

import importlib
import json
from pathlib import Path

import estimators
from buildcache import cached, tree_hash, versions

CHARTS = ("compute_plane", "memory_bill")
LIBRARIES = ("altair", "numpy", "vl-convert-python")
SOURCES = (Path(__file__).parent, Path(estimators.__file__).parent)


def _spec(name: str, datasets: dict) -> dict:
    if name not in CHARTS:
        raise KeyError(f"no chart {name!r}; valid charts: {', '.join(CHARTS)}")
    module = importlib.import_module(f"{__name__}.{name}")
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


def svg(name: str, datasets: dict) -> str:
    """The chart drawn with `datasets`, as an SVG string for inlining in a page."""
    return _converted("svg", name, datasets)


def vega_spec(name: str, datasets: dict) -> dict:
    """The chart compiled to a Vega spec, for the browser to redraw with new rows."""
    return json.loads(_converted("vega", name, datasets))
