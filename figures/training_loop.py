"""The training loop as a diagram: the four stations of a step in a row, what
each hands to the next on the arrows between them, and the new weights going
back to the first station for the next batch.

Drawn once at build time from the stations of estimators.loop (the widget
passes its station field's options as the dataset "stations"); each station is
a group marked data-when="station=<key>", so the page highlights the one a
reader picks. Colours come from the theme's variables (widgets.css), so the
diagram follows the light and dark palettes.
"""

from html import escape

from estimators.loop import HANDS_ON

DATASETS = ("stations",)
# Drawing size in CSS pixels; the page scales the SVG to its column.
WIDTH, HEIGHT = 640, 170
BOX_WIDTH, BOX_HEIGHT, BOX_TOP = 112, 56, 24
RETURN_Y = 130  # the path of the new weights back to the first station
ARROW = 6  # half the width of an arrowhead


def _head(x: float, y: float, dx: int, dy: int) -> str:
    """An arrowhead whose tip is at (x, y), pointing along (dx, dy), one of the four axes."""
    back_x, back_y = x - dx * 2 * ARROW, y - dy * 2 * ARROW
    side_x, side_y = dy * ARROW, dx * ARROW
    points = f"{x},{y} {back_x + side_x},{back_y + side_y} {back_x - side_x},{back_y - side_y}"
    return f'<polygon class="diagram__arrowhead" points="{points}" fill="currentColor"/>'


def draw(datasets: dict) -> str:
    """SVG of the loop; datasets["stations"] holds (key, label) pairs in the order a step runs them."""
    stations = list(datasets["stations"])
    gap = (WIDTH - len(stations) * BOX_WIDTH) / (len(stations) - 1)
    middle = BOX_TOP + BOX_HEIGHT / 2
    names = ", then ".join(label for _, label in stations)
    last_key = stations[-1][0]
    alt = (f"The training loop: {names}; the {HANDS_ON[last_key]} go back to the "
           f"{stations[0][1].lower()} for the next batch.")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="diagram" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(alt)}">'
    ]
    for i, (key, label) in enumerate(stations):
        x = i * (BOX_WIDTH + gap)
        parts.append(
            f'<g class="diagram__station" data-when="station={escape(key)}">'
            f'<rect class="diagram__box" x="{x:.1f}" y="{BOX_TOP}" width="{BOX_WIDTH}" height="{BOX_HEIGHT}" rx="8" '
            f'fill="none" stroke="currentColor"/>'
            f'<text x="{x + BOX_WIDTH / 2:.1f}" y="{middle + 5:.1f}" text-anchor="middle" fill="currentColor">'
            f"{escape(label)}</text></g>"
        )
        if i < len(stations) - 1:
            start, end = x + BOX_WIDTH, x + BOX_WIDTH + gap
            parts.append(
                f'<line x1="{start:.1f}" y1="{middle}" x2="{end - 2 * ARROW:.1f}" y2="{middle}" stroke="currentColor"/>'
                + _head(round(end, 1), middle, 1, 0)
                + f'<text class="diagram__note" x="{(start + end) / 2:.1f}" y="{middle - 8}" text-anchor="middle" '
                f'fill="currentColor">{escape(HANDS_ON[key])}</text>'
            )
    first_x, last_x = BOX_WIDTH / 2, WIDTH - BOX_WIDTH / 2
    bottom = BOX_TOP + BOX_HEIGHT
    parts.append(
        f'<polyline points="{last_x},{bottom} {last_x},{RETURN_Y} {first_x},{RETURN_Y} {first_x},{bottom + 2 * ARROW}" '
        f'fill="none" stroke="currentColor"/>'
        + _head(first_x, bottom, 0, -1)
        + f'<text class="diagram__note" x="{WIDTH / 2}" y="{RETURN_Y + 18}" text-anchor="middle" fill="currentColor">'
        f"{escape(HANDS_ON[last_key])}, then the next batch</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
