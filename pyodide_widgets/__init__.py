"""Interactive widgets: one module per widget, each `update(state) -> result`.

The same modules run at build time in CPython (to render the widget's first
state into the page) and in the reader's browser under Pyodide (to answer
every input). They import only `estimators` and the standard library.

A widget module defines:
- `TITLE`, and `FIELDS`: the form fields, in order (see `fields.Field`);
- `presets()`: {key: {"label", "state"}}, the states a reader can start from
  (the first is the default);
- `update(state) -> {"outputs": {key: text}, "data": {dataset: rows}}`;
  a bad field raises EstimatorError whose `argument` is the field's name.
"""

import importlib

WIDGETS = ("training_time", "memory_bill")


def module(name: str):
    """The widget module called `name`, or KeyError naming the valid ones."""
    if name not in WIDGETS:
        raise KeyError(f"no widget {name!r}; valid widgets: {', '.join(WIDGETS)}")
    return importlib.import_module(f"{__name__}.{name}")
