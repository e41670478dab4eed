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
"""

import importlib
import pkgutil

import vl_convert

CHARTS = tuple(sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")))


def _module(name: str):
    if name not in CHARTS:
        raise KeyError(f"no chart {name!r}; valid charts: {', '.join(CHARTS)}")
    return importlib.import_module(f"{__name__}.{name}")


def is_diagram(name: str) -> bool:
    return hasattr(_module(name), "draw")


def _spec(name: str, datasets: dict) -> dict:
    module = _module(name)
    missing = set(module.DATASETS) - datasets.keys()
    if missing:
        raise KeyError(f"chart {name!r} needs the datasets {', '.join(sorted(missing))}")
    spec = module.chart().to_dict()
    spec.setdefault("datasets", {}).update(datasets)
    return spec


def svg(name: str, datasets: dict) -> str:
    """The chart or diagram drawn with `datasets`, as an SVG string for inlining in a page."""
    if is_diagram(name):
        return _module(name).draw(datasets)
    return vl_convert.vegalite_to_svg(_spec(name, datasets))


def vega_spec(name: str, datasets: dict) -> dict | None:
    """The chart compiled to a Vega spec, for the browser to redraw with new rows; None for a diagram."""
    if is_diagram(name):
        return None
    return vl_convert.vegalite_to_vega(_spec(name, datasets))
