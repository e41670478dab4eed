"""The audit_lanes widget's diagram: the pipeline's stages left to right under their lanes, and one bar per
practice across the stages it guards (datasets "stages" and "practices" from
pyodide_widgets/widgets/audit_lanes.py)."""

from itertools import groupby

from . import _svg

DATASETS = ("stages", "practices")
WIDTH = 640
LABEL_WIDTH = 180  # the practices' names, left of the bars
LANE_Y, STAGE_Y, STAGE_HEIGHT, ROW_HEIGHT = 14, 26, 40, 26
CHARS_PER_STAGE_LINE = 11


def draw(datasets: dict) -> str:
    stages, practices = datasets["stages"], datasets["practices"]
    column = (WIDTH - LABEL_WIDTH) / len(stages)
    x_of = {s["key"]: LABEL_WIDTH + i * column for i, s in enumerate(stages)}
    body = []
    for lane, members in groupby(stages, key=lambda s: s["lane"]):
        members = list(members)
        left, right = x_of[members[0]["key"]], x_of[members[-1]["key"]] + column
        body.append(_svg.text((left + right) / 2, LANE_Y, lane, size=10, css="diagram__muted", anchor="middle", bold=True))
        body.append(_svg.box(left + 4, LANE_Y + 4, right - left - 8, 1.5, css="diagram__mark"))
    for s in stages:
        body.append(_svg.box(x_of[s["key"]] + 2, STAGE_Y, column - 4, STAGE_HEIGHT))
        for i, line in enumerate(_svg.wrap(s["name"], CHARS_PER_STAGE_LINE)):
            body.append(_svg.text(x_of[s["key"]] + column / 2, STAGE_Y + 16 + 13 * i, line, size=10.5, anchor="middle"))
    top = STAGE_Y + STAGE_HEIGHT + 10
    for row, p in enumerate(practices):
        y = top + row * ROW_HEIGHT
        left, right = x_of[p["stages"][0]], x_of[p["stages"][-1]] + column
        body.append(_svg.pickable("practice", p["key"], [
            _svg.text(LABEL_WIDTH - 8, y + 15, p["name"], size=11, anchor="end"),
            _svg.box(left + 4, y + 4, right - left - 8, ROW_HEIGHT - 8, css="diagram__mark"),
        ]))
    names = {s["key"]: s["name"] for s in stages}
    description = "Stages in order: " + ", ".join(f"{s['name']} ({s['lane']})" for s in stages) + ". " + " ".join(
        f"{p['name']} guards {names[p['stages'][0]]} to {names[p['stages'][-1]]}." for p in practices
    )
    height = top + len(practices) * ROW_HEIGHT + 4
    return _svg.root(WIDTH, height, "Audit practices along the training pipeline", description, body)
