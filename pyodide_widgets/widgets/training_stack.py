"""The training stack in three layers: adaptation and alignment on top, distributed training, the hardware and operations below.

Each layer is a row of blocks (pyodide_widgets/data/stack.toml); picking a block
shows what it does and tools that fill it, dated by the same date as the ten
steps' lists of who does each step (ten_steps.AS_OF), which this module reads
rather than repeats. Its template draws the layers as rows of block buttons
(keyboard and pointer) and writes every block's text, read without JavaScript.
"""

from .. import pick_one
from .ten_steps import AS_OF

TITLE = "The training stack, layer by layer"
TEMPLATE = "training_stack.html"
OUTPUTS = pick_one.OUTPUTS

_DATA = pick_one.load("stack")

# Top layer first, as the template draws them.
LAYERS = {key: {**layer, "blocks": [b for b, block in _DATA["blocks"].items() if block["layer"] == key]}
          for key, layer in _DATA["layers"].items()}

OPTIONS = {
    key: {"name": block["name"], "layer": block["layer"], "details": [
        ("What it does", block["does"]),
        (f"Examples, not a ranking; as of {AS_OF}", ", ".join(block["examples"])),
    ]}
    for key, block in _DATA["blocks"].items()
}


def _place(key: str) -> str:
    """Where the block sits: "Adapters belong to Adaptation and alignment, which sits on Distributed training."."""
    order = list(LAYERS)
    i = order.index(OPTIONS[key]["layer"])
    below = f"sits on {LAYERS[order[i + 1]]['name']}" if i + 1 < len(order) else "is the bottom of the stack"
    return f"{OPTIONS[key]['name']}: part of {LAYERS[order[i]]['name']}, which {below}."


FIELDS, presets, update = pick_one.declare("block", "Block", OPTIONS, _place, diagram={})
