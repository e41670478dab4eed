"""Build-time charts: each module of this package returns an Altair chart
(`chart()`) whose changing data are named datasets (listed in its DATASETS).
Charts are found by module name; a widget names its chart in `CHART`.

`svg(name, datasets)` renders a chart to inline SVG (vl-convert, offline) for
the page; `vega_spec(name)` compiles it to a Vega spec that the browser's Vega
runtime redraws when a widget's `update` returns new rows for those datasets.
"""

import importlib
import pkgutil

import vl_convert

CHARTS = tuple(sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")))


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


def svg(name: str, datasets: dict) -> str:
    """The chart drawn with `datasets`, as an SVG string for inlining in a page."""
    return vl_convert.vegalite_to_svg(_spec(name, datasets))


def vega_spec(name: str, datasets: dict) -> dict:
    """The chart compiled to a Vega spec, for the browser to redraw with new rows."""
    return vl_convert.vegalite_to_vega(_spec(name, datasets))
