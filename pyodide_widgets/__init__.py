"""Interactive widgets: exactly what the reader's browser runs under Pyodide.

The same modules run at build time in CPython (to render each widget's first
state into the page) and in the browser's Web Worker (to answer every input).
They import only `estimators` and the standard library.

Each module of `pyodide_widgets.widgets` is one widget, found by its file
name (no list to keep in step). It declares, per `contract`:
- `TITLE`; `FIELDS`, the form, in order; `OUTPUTS`, the result slots;
- optionally `CHART`, the `figures` module that draws its data,
  `FOLDED_CHARTS`, {figures module: summary} of the charts it draws besides
  from the same data, each folded under its outputs, and `TEMPLATE`, a layout
  of its own under site_build/templates;
- `presets()`: {key: `contract.preset(...)`}, the states a reader can start
  from (the first is the default), each value supplied by presets.toml or an
  estimator (`contract.Supplied`), which the provenance cards cite;
- `update(state) -> {"outputs": {key: text}, "data": {dataset: rows}}`;
  a bad field raises EstimatorError whose `argument` is the field's name.
"""

import importlib
import pkgutil

from . import widgets as _package

WIDGETS = tuple(sorted(info.name for info in pkgutil.iter_modules(_package.__path__) if not info.name.startswith("_")))


def module(name: str):
    """The widget module called `name`, or KeyError naming the valid ones."""
    if name not in WIDGETS:
        raise KeyError(f"no widget {name!r}; valid widgets: {', '.join(WIDGETS)}")
    return importlib.import_module(f"{_package.__name__}.{name}")
