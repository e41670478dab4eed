"""The training_stack widget's diagram: the training stack as blocks, hardware at the bottom, each with its
examples (datasets "layers", bottom first, and "as_of" from
pyodide_widgets/widgets/training_stack.py)."""

from . import _svg

DATASETS = ("layers", "as_of")
WIDTH, BLOCK_HEIGHT, GAP, CAPTION = 640, 44, 6, 22
CHARS_PER_EXAMPLE_LINE = 95


def draw(datasets: dict) -> str:
    layers = datasets["layers"]
    as_of = datasets["as_of"][0]["text"]
    body = []
    for i, layer in enumerate(reversed(layers)):  # the top of the drawing is the last layer
        y = i * (BLOCK_HEIGHT + GAP)
        examples = _svg.wrap(layer["examples"], CHARS_PER_EXAMPLE_LINE)[0]
        body.append(_svg.pickable("layer", layer["key"], [
            _svg.box(2, y + 2, WIDTH - 4, BLOCK_HEIGHT),
            _svg.box(2, y + 2, 8, BLOCK_HEIGHT, css="diagram__mark"),
            _svg.text(20, y + 20, layer["name"], size=12.5, bold=True),
            _svg.text(20, y + 37, examples + ("…" if examples != layer["examples"] else ""), size=10.5,
                      css="diagram__muted"),
        ]))
    height = len(layers) * (BLOCK_HEIGHT + GAP) + CAPTION
    body.append(_svg.text(WIDTH - 4, height - 6, f"Examples as of {as_of}", size=10, css="diagram__muted", anchor="end"))
    description = "From the bottom up: " + "; ".join(f"{l['name']} (for example {l['examples']})" for l in layers) + "."
    return _svg.root(WIDTH, height, "The training stack, hardware at the bottom", description, body)
