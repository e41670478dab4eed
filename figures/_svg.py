"""Small SVG pieces for the diagrams (modules with `draw`): a titled, described root, boxes and text.

Colours come from classes that widgets.css maps to the theme's variables, so
a diagram follows the light and dark palettes like the charts do. A part a
reader can pick is a group marked `data-when="field=value"` (runtime.js
highlights the picked one).
"""

from html import escape

def root(width: int, height: int, title: str, description: str, body: list, *, holds_buttons: bool = False) -> str:
    """The <svg> around `body`, its <title> the accessible name and its <desc> the text alternative.

    No ids: a page may hold a widget twice, and the first <title> and <desc>
    children name and describe an SVG without them. No font either: inline in a page, its text
    inherits the page's (an inline style would be the only one of the page's own markup).
    A picture whose parts are buttons (`pickable`) is a group: an image's parts are not read, so
    its buttons would be out of reach of a screen reader (WAI-ARIA; axe's nested-interactive).
    """
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="{svg_role(holds_buttons)}">'
        f"<title>{escape(title)}</title><desc>{escape(description)}</desc>" + "".join(body) + "</svg>"
    )


def svg_role(holds_buttons: bool) -> str:
    """The ARIA role of a picture, "img" unless it holds buttons the reader can press."""
    return "group" if holds_buttons else "img"


def box(x: float, y: float, width: float, height: float, css: str = "diagram__box") -> str:
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" rx="4" class="{css}"/>'


def text(x: float, y: float, content: str, size: float = 12, css: str = "diagram__text", anchor: str = "start",
         bold: bool = False) -> str:
    weight = ' font-weight="700"' if bold else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" class="{css}"{weight}>'
            f"{escape(content)}</text>")


def pickable(field: str, value: str, parts: list, label: str = "", css: str = "") -> str:
    """A group the reader can pick: highlighted live when `field` is `value`, and a button of the
    picture, by pointer or keyboard, that picks it (runtime.js; it does nothing without JavaScript,
    where every option already reads). `label` names it for a screen reader."""
    named = f' aria-label="{escape(label)}"' if label else ""
    classes = f' class="{escape(css)}"' if css else ""
    pick = f"{escape(field)}={escape(value)}"
    return (f'<g{classes} data-when="{pick}" data-pick="{pick}" role="button" tabindex="0"{named}>'
            + "".join(parts) + "</g>")


def wrap(words: str, width_chars: int) -> list:
    """Lines of at most about `width_chars` characters, broken at spaces."""
    lines, line = [], ""
    for word in words.split():
        if line and len(line) + 1 + len(word) > width_chars:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + ([line] if line else [])
