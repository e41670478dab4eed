"""The audit_lanes widget's diagram: the pipeline's stages top to bottom, grouped by their lanes, and
one column per practice with a bar down the stretch of stages it guards (datasets "stages" and
"practices" from pyodide_widgets/widgets/audit_lanes.py).

Drawn at a phone's width, so it fits every column (widgets.css scales it up on a wider one): the
stages' names on the left, each practice's name written up its own column beside its bar. A column
is a button of the picture: a tap, or Enter on it, picks its practice (runtime.js).
"""

from html import escape
from itertools import groupby

from . import _svg

DATASETS = ("stages", "practices")
WIDTH = 284  # a 360 px phone's column
NAME_WIDTH = 102  # the stages' names, left of the columns
ROW, LANE_HEADER, TOP = 30, 16, 4  # px: a stage's row, a lane's name over its stages
BAR_WIDTH = 9
NAME_SIZE = 11  # px: the practices' names up their columns, the stages' names


def draw(datasets: dict) -> str:
    stages, practices = datasets["stages"], datasets["practices"]
    column = (WIDTH - NAME_WIDTH) / len(practices)
    body, y_of, y = [], {}, TOP
    for lane, members in groupby(stages, key=lambda s: s["lane"]):
        body.append(_svg.text(0, y + LANE_HEADER - 4, lane, size=10, css="diagram__muted", bold=True))
        body.append(_svg.box(0, y + LANE_HEADER - 1, WIDTH, 1, css="diagram__mark"))
        y += LANE_HEADER
        for s in members:
            y_of[s["key"]] = y
            body.append(_svg.text(0, y + ROW / 2 + 4, s["name"], size=NAME_SIZE))
            y += ROW
    height = y + 4
    for i, p in enumerate(practices):
        x = NAME_WIDTH + i * column
        top, bottom = y_of[p["stages"][0]], y_of[p["stages"][-1]] + ROW
        # The whole column is the practice's target, its name written up it from the bottom.
        name_x, name_y = x + BAR_WIDTH + 3 + NAME_SIZE - 2, height - 6
        body.append(_svg.pickable("practice", p["key"], [
            f'<rect x="{x:.1f}" y="{TOP}" width="{column:.1f}" height="{height - TOP:.1f}" fill="transparent"/>',
            _svg.box(x + 2, top + 3, BAR_WIDTH, bottom - top - 6, css="diagram__mark"),
            f'<text x="{name_x:.1f}" y="{name_y:.1f}" font-size="{NAME_SIZE}" class="diagram__text" '
            f'transform="rotate(-90 {name_x:.1f} {name_y:.1f})">{escape(p["name"])}</text>',
        ], label=p["name"]))
    names = {s["key"]: s["name"] for s in stages}
    description = "Stages in order: " + ", ".join(f"{s['name']} ({s['lane']})" for s in stages) + ". " + " ".join(
        f"{p['name']} guards {names[p['stages'][0]]} to {names[p['stages'][-1]]}." for p in practices
    )
    return _svg.root(WIDTH, height, "Audit practices along the training pipeline", description, body=body,
                     holds_buttons=True)
