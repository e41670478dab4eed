"""Build-time charts: each module returns an Altair chart whose changing data
are named datasets (listed in the module's DATASETS).

`svg(name, datasets)` renders a chart to inline SVG (vl-convert, offline) for
the page; `vega_spec(name)` compiles it to a Vega spec that the browser's Vega
runtime redraws when a widget's `update` returns new rows for those datasets.
"""

import json

import vl_convert

from . import compute_plane, memory_bill

CHARTS = {"compute_plane": compute_plane, "memory_bill": memory_bill}


def _spec(name: str, datasets: dict) -> dict:
    if name not in CHARTS:
        raise KeyError(f"no chart {name!r}; valid charts: {', '.join(CHARTS)}")
    module = CHARTS[name]
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
