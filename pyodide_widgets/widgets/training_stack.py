"""The training stack, layer by layer, from the hardware up.

The layers and their examples are data, pyodide_widgets/data/stack.toml, with
the date the examples were chosen.
"""

from .. import pick_one

TITLE = "The training stack, layer by layer"
CHART = "stack_layers"
TEMPLATE = pick_one.TEMPLATE
OUTPUTS = pick_one.OUTPUTS

_DATA = pick_one.load("stack")

OPTIONS = {
    key: {"name": layer["name"], "details": [
        ("What it does", layer["does"]),
        (f"Examples, as of {_DATA['as_of']}", ", ".join(layer["examples"])),
    ]}
    for key, layer in _DATA["layers"].items()
}
DIAGRAM = {
    "layers": [{"key": key, "name": layer["name"], "examples": ", ".join(layer["examples"])}
               for key, layer in _DATA["layers"].items()],
    "as_of": [{"text": _DATA["as_of"]}],
}

_ORDER = list(_DATA["layers"])


def _place(key: str) -> str:
    """Where the layer sits: "Framework sits on Drivers and collectives, under Parallelism library."."""
    i = _ORDER.index(key)
    below = f"on {OPTIONS[_ORDER[i - 1]]['name']}" if i else "at the bottom"
    above = f"under {OPTIONS[_ORDER[i + 1]]['name']}" if i + 1 < len(_ORDER) else "at the top"
    return f"{OPTIONS[key]['name']} sits {below}, {above}."


FIELDS, presets, update = pick_one.declare("layer", "Layer", OPTIONS, _place, DIAGRAM)
