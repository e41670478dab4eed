"""The training loop as a diagram: the four stations of a step round a square, each handing the
next what it made (on the arrow between them), the optimizer's new weights going back up to the
forward pass for the next batch.

Drawn once at build time from the stations of estimators.loop (the widget passes its station
field's options as the dataset "stations"), at a phone's width (widgets.css scales it up to a wider
column). Each station is a group marked data-when="station=<key>", so the page highlights the one
a reader picks, and data-pick, a button in the picture: a tap, or Enter on it, picks it (runtime.js).
Colours come from the theme's variables (widgets.css), so the diagram follows both palettes.
"""

from html import escape

from estimators.loop import HANDS_ON

from . import _svg

DATASETS = ("stations",)
# Drawing size in CSS pixels: the square fits a 360 px phone's column (about 286 px) with its text
# at 11 px or more.
WIDTH, HEIGHT = 284, 216
BOX_WIDTH, BOX_HEIGHT = 108, 48
TOP, BOTTOM = 8, HEIGHT - 8 - 48  # the two rows of stations
ARROW = 5  # half the width of an arrowhead
# Where each station stands, in the order a step runs them: round the square clockwise.
CORNERS = ((0, TOP), (WIDTH - BOX_WIDTH, TOP), (WIDTH - BOX_WIDTH, BOTTOM), (0, BOTTOM))


def _head(x: float, y: float, dx: int, dy: int) -> str:
    """An arrowhead whose tip is at (x, y), pointing along (dx, dy), one of the four axes."""
    back_x, back_y = x - dx * 2 * ARROW, y - dy * 2 * ARROW
    side_x, side_y = dy * ARROW, dx * ARROW
    points = f"{x},{y} {back_x + side_x},{back_y + side_y} {back_x - side_x},{back_y - side_y}"
    return f'<polygon class="diagram__arrowhead" points="{points}" fill="currentColor"/>'


def _arrow(start: tuple, end: tuple) -> str:
    """A line from `start` to an arrowhead at `end`, along one axis."""
    dx, dy = (end[0] > start[0]) - (end[0] < start[0]), (end[1] > start[1]) - (end[1] < start[1])
    stop = (end[0] - dx * 2 * ARROW, end[1] - dy * 2 * ARROW)
    return (f'<line x1="{start[0]:g}" y1="{start[1]:g}" x2="{stop[0]:g}" y2="{stop[1]:g}" stroke="currentColor"/>'
            + _head(end[0], end[1], dx, dy))


def _note(x: float, y: float, lines: list, anchor: str) -> str:
    return "".join(f'<text class="diagram__note" x="{x:g}" y="{y + 13 * i:g}" text-anchor="{anchor}" fill="currentColor">'
                   f"{escape(line)}</text>" for i, line in enumerate(lines))


def draw(datasets: dict) -> str:
    """SVG of the loop; datasets["stations"] holds (key, label) pairs in the order a step runs them."""
    stations = list(datasets["stations"])
    if len(stations) != len(CORNERS):
        raise ValueError(f"the loop is drawn round a square: {len(CORNERS)} stations, not {len(stations)}")
    names = ", then ".join(label for _, label in stations)
    last_key = stations[-1][0]
    alt = (f"The training loop: {names}; the {HANDS_ON[last_key]} go back to the "
           f"{stations[0][1].lower()} for the next batch.")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="{_svg.svg_role(holds_buttons=True)}" aria-label="{escape(alt)}">'
    ]
    for (key, label), (x, y) in zip(stations, CORNERS):
        parts.append(_svg.pickable("station", key, [
            f'<rect class="diagram__box" x="{x}" y="{y}" width="{BOX_WIDTH}" height="{BOX_HEIGHT}" rx="8" '
            f'fill="none" stroke="currentColor"/>',
            f'<text x="{x + BOX_WIDTH / 2:g}" y="{y + BOX_HEIGHT / 2 + 5:g}" text-anchor="middle" fill="currentColor">'
            f"{escape(label)}</text>"], label=label, css="diagram__station"))
    middle_top, middle_bottom = TOP + BOX_HEIGHT / 2, BOTTOM + BOX_HEIGHT / 2
    left, right = BOX_WIDTH, WIDTH - BOX_WIDTH
    right_centre, left_centre = WIDTH - BOX_WIDTH / 2, BOX_WIDTH / 2
    forward, loss, backward, optimizer = (key for key, _ in stations)
    parts += [
        _arrow((left, middle_top), (right, middle_top)), _note(WIDTH / 2, middle_top - 6, [HANDS_ON[forward]], "middle"),
        _arrow((right_centre, TOP + BOX_HEIGHT), (right_centre, BOTTOM)),
        _note(right_centre - 8, (TOP + BOX_HEIGHT + BOTTOM) / 2 + 4, [HANDS_ON[loss]], "end"),
        _arrow((right, middle_bottom), (left, middle_bottom)), _note(WIDTH / 2, middle_bottom - 6, [HANDS_ON[backward]], "middle"),
        _arrow((left_centre, BOTTOM), (left_centre, TOP + BOX_HEIGHT)),
        _note(left_centre + 8, (TOP + BOX_HEIGHT + BOTTOM) / 2 - 2, [HANDS_ON[optimizer] + ",", "then the next batch"], "start"),
    ]
    parts.append("</svg>")
    return "".join(parts)
