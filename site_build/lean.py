"""Figures without surplus: a static SVG and a chart's spec as small as they draw the same.

A page inlines every figure's SVG and every chart's Vega spec, so what they
carry beyond what a reader sees is paid on every load. Vega writes each
coordinate to sixteen digits and each mark's default attributes in full; a
diagram of hundreds of cells repeats one style on each. Here:

- a coordinate keeps two decimals (a hundredth of a pixel), and "12.0" reads "12";
- a mark Vega draws empty (a zero-sized background, an undrawn foreground)
  and an attribute at its default (`opacity="1"`) go;
- a run of sibling shapes that differ only in where they stand (a grid's
  lines, a diagram's cells, a bar chart's bars) becomes one `<path>` of as
  many subpaths, which paints the same pixels: lines and paths only when
  nothing could make them translucent, rectangles only when no two overlap;
- a style attribute written on many elements becomes one class of a
  `<style>` inside the SVG, as strong as the attribute was; a set of
  presentation attributes (`fill`, `font-size`, ...) written on many elements
  becomes one class as weak as they were (`:where()`, no specificity), so a
  page's stylesheet overrides it as it overrode them (widgets.css recolours
  the charts' text and rules for the dark palette);
- what a static picture carries for no reader goes: `pointer-events` (nothing
  points at a picture the runtime replaces once it goes live), and a
  `graphics-*` role and Vega's `aria-roledescription` ("group mark container")
  on an element with no label (a labelled mark keeps both: axe flags a label on
  a role-less `<g>`, and "bar" or "point" tells a listener what the label
  describes, as the live chart does), and a `<g>` with no attribute at all,
  which changes nothing of what it holds;
- a path that is exactly one rounded rectangle, as Vega draws a bar with a
  corner radius (four lines and four quarter-circle curves), becomes
  `<rect x y width height rx>`;
- a spec's data rows keep six significant digits, more than a chart's pixels resolve.

Text (labels, titles, `aria-label`s) is left exactly as drawn.
"""

import hashlib
import math
import re
from pathlib import Path

_DECIMALS = 2
_SIGNIFICANT = 6
# Attributes that hold only coordinates and lengths.
_GEOMETRY = re.compile(r'(\s(?:d|x|y|x1|x2|y1|y2|cx|cy|r|rx|ry|width|height|transform|points)=")([^"]*)(")')
_NUMBER = re.compile(r"-?\d+\.\d+")
_EMPTY_MARKS = re.compile(
    r'<path class="background" aria-hidden="true" d="M0,0h0v0h0Z"(?: pointer-events="none")?/>'
    r'|<path class="foreground" aria-hidden="true" d=""(?: pointer-events="none")? display="none"/>'
)
_DEFAULTS = re.compile(r' opacity="1"(?=[\s/>])')
_STYLE = re.compile(r' style="([^"]*)"')
# A style written at least this often is worth a class.
_SHARED = 8
# A set of presentation attributes costs its rule once (a class, the names and values again): written
# three times it is already cheaper as a class.
_SHARED_PRESENTATION = 3


def _rounded(match: re.Match) -> str:
    text = f"{float(match.group()):.{_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def svg(text: str) -> str:
    """The same drawing in fewer bytes."""
    text = _GEOMETRY.sub(lambda m: m.group(1) + _NUMBER.sub(_rounded, m.group(2)) + m.group(3), text)
    text = _NO_MOVE.sub("", _DEFAULTS.sub("", _EMPTY_MARKS.sub("", _UNREAD_ROOT.sub("", text))))
    if "xlink:" not in text.replace(_XLINK, ""):
        text = text.replace(_XLINK, "")
    text = _CLASSES.sub(_styled_classes, _UNPAINTED.sub("", _UNREAD.sub("", _ROLE_UNLABELLED.sub(_unlabelled_role, _said_once(text)))))
    text = _ROUNDED_PATH.sub(_as_rect, _bare_groups_collapsed(text))
    return _shared_presentation(_shared_styles(_merged_shapes(_folded_moves(text))))


_UNREAD = re.compile(r' pointer-events="[^"]*"')
# SVG 2 reads no version; the xlink namespace is only for xlink: attributes.
_UNREAD_ROOT = re.compile(r'(?<=<svg )version="1\.1" | version="1\.1"(?=[ >])')
_XLINK = ' xmlns:xlink="http://www.w3.org/1999/xlink"'
# A group's background Vega writes with neither fill nor stroke: under the root's fill="none" it paints nothing.
_UNPAINTED = re.compile(r'<path class="background" aria-hidden="true" d="[^"]*"/>')
_CLASSES = re.compile(r' class="([^"]*)"')
# Vega's names of what it drew; a stylesheet of the site's styles a few (widgets.css: axis rules and
# subtitles), which stay, and the rest style nothing.
_VEGA_CLASS = re.compile(r"^(?:mark-[\w-]+|role-[\w-]+|\w+_(?:marks|group|pathgroup)|background|foreground|root|marks)$")
_STYLED = frozenset(re.findall(r"\.(role-[\w-]+)", "".join(p.read_text() for p in (Path(__file__).parent / "browser").glob("*.css"))))


def _styled_classes(attribute: re.Match) -> str:
    kept = [name for name in attribute.group(1).split() if name in _STYLED or not _VEGA_CLASS.match(name)]
    return f' class="{" ".join(kept)}"' if kept else ""


_ROLE_UNLABELLED = re.compile(r'<(?!svg\b)\w+\b[^>]* role="graphics-[^"]*"[^>]*>')
_LABELLED = re.compile(r' aria-(?:label|labelledby|describedby)=')


_LABEL = re.compile(r' aria-label="([^"]*)"')
# What Vega labels again: a line with its first point's words, an axis's inner group with the axis's.
_SAID_AGAIN = re.compile(r'<\w+\b[^>]* aria-roledescription="(?:line mark|group mark)"[^>]*>')
_WHAT_IT_IS = re.compile(r' (?:aria-label|role|aria-roledescription)="[^"]*"')


def _said_once(text: str) -> str:
    """Each SVG without the labels Vega repeats: a listener hears each once, on the mark it describes."""
    def one(match: re.Match) -> str:
        labels = _LABEL.findall(match.group())
        return _SAID_AGAIN.sub(lambda tag: _WHAT_IT_IS.sub("", tag.group()) if labels.count(
            (_LABEL.search(tag.group()) or [None, None])[1]) > 1 else tag.group(), match.group())
    return re.sub(r"<svg\b.*?</svg>", one, text, flags=re.S)


def _unlabelled_role(tag: re.Match) -> str:
    element = tag.group()
    return element if _LABELLED.search(element) else re.sub(r' (?:role="graphics-|aria-roledescription=")[^"]*"', "", element)


_GROUP_TAG = re.compile(r"<(/?)g\b([^>]*)>")


def _bare_groups_collapsed(text: str) -> str:
    """The SVG without its attribute-less `<g>`s (their content kept where it stood)."""
    out, at, bare = [], 0, []  # bare: for each open <g>, whether it carries nothing
    for tag in _GROUP_TAG.finditer(text):
        closing, attributes = tag.group(1), tag.group(2)
        if attributes.endswith("/"):
            continue
        if closing:
            drop = bare.pop() if bare else False
        else:
            drop = not attributes.strip()
            bare.append(drop)
        if drop:
            out.append(text[at:tag.start()])
            at = tag.end()
    return "".join(out) + text[at:]


# Vega's rounded rectangle (vega-scenegraph's path/rectangle.js): from the top edge clockwise, a line
# and a quarter circle per side, each curve's control points this share of the radius from its corner.
_CURVE_SHARE = 1 - 0.448084975506
_ROUNDED_PATH = re.compile(r'<path\b([^>]*?) d="(M[^"]*C[^"]*Z)"([^>]*)/>')
_PAIR = r"(-?[\d.]+),(-?[\d.]+)"
_ROUNDED = re.compile("^" + "".join(f"{c}{','.join([_PAIR] * n)}" for c, n in
                                    (("M", 1), ("L", 1), ("C", 3), ("L", 1), ("C", 3), ("L", 1), ("C", 3), ("L", 1), ("C", 3))) + "Z$")
# Each coordinate was rounded to a hundredth: two of them differ from the exact ones by less than this.
_SLACK = 0.011 * 2


def rounded_rect(d: str):
    """(x, y, width, height, radius) of the one rectangle with equal round corners path `d` draws, or None."""
    found = _ROUNDED.match(d)
    if not found:
        return None
    p = [float(v) for v in found.groups()]
    pts = list(zip(p[0::2], p[1::2]))  # M, L, C1 C2 E, L, C1 C2 E, L, C1 C2 E, L, C1 C2 E
    x0, y0, x1, y1 = pts[11][0], pts[0][1], pts[3][0], pts[9][1]
    r = pts[0][0] - x0
    k = _CURVE_SHARE * r
    # Every point of the outline where that rectangle with that radius has it.
    expected = [(x0 + r, y0), (x1 - r, y0), (x1 - r + k, y0), (x1, y0 + r - k), (x1, y0 + r),
                (x1, y1 - r), (x1, y1 - r + k), (x1 - r + k, y1), (x1 - r, y1),
                (x0 + r, y1), (x0 + r - k, y1), (x0, y1 - r + k), (x0, y1 - r),
                (x0, y0 + r), (x0, y0 + r - k), (x0 + r - k, y0), (x0 + r, y0)]
    if r <= 0 or x1 <= x0 or y1 <= y0 or 2 * r > min(x1 - x0, y1 - y0) + _SLACK:
        return None
    if any(abs(a - b) > _SLACK for got, want in zip(pts, expected) for a, b in zip(got, want)):
        return None
    return x0, y0, x1 - x0, y1 - y0, r


def _as_rect(path: re.Match) -> str:
    box = rounded_rect(path.group(2))
    if not box:
        return path.group()
    x, y, width, height, r = (_number(str(round(v, _DECIMALS))) for v in box)
    return f'<rect{path.group(1)} x="{x}" y="{y}" width="{width}" height="{height}" rx="{r}"{path.group(3)}/>'


# A text moved only if it holds nothing but text: a tspan's own x or y would stay where it was.
_MOVED = re.compile(r'<(path|text)\b([^>]*?) transform="translate\((-?[\d.]+)(?:[ ,](-?[\d.]+))?\)"([^>]*)>(?:(?<=/>)|(?=[^<]*</text>))')
_COMMAND = re.compile(r"([MLHVCAZmlhvcaz])([^MLHVCAZmlhvcaz]*)")
_ARGUMENTS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "A": 7, "Z": 0}


def _relative(d: str):
    """Path data of absolute commands as its first move and then commands relative to where each starts,
    which draw the same wherever that move puts them; None for data of another form."""
    out, x, y, start = [], 0.0, 0.0, (0.0, 0.0)
    for command, numbers in _COMMAND.findall(d.strip()):
        values = [float(v) for v in re.findall(r"-?(?:\d+\.?\d*|\.\d+)", numbers)]
        count = _ARGUMENTS[command.upper()]
        if (len(values) != count) if not count else (not values or len(values) % count):
            return None
        for at in range(0, max(len(values), 1), count or 1):
            v = values[at:at + count]
            if at:  # a move's further pairs draw lines
                command = {"M": "L", "m": "l"}.get(command, command)
            if command.islower() and out:  # relative already: only where it ends is followed
                end = {"m": v[:2], "l": v[:2], "h": v[:1] + [0], "v": [0] + v[:1], "c": v[4:], "a": v[5:], "z": None}[command]
                x, y = start if end is None else (x + end[0], y + end[1])
                start = (x, y) if command == "m" else start
                out.append(command + ",".join(_number(str(c)) for c in v))
                continue
            if command in "Zz":
                out.append("z")
                x, y = start
                continue
            if not out:  # the first move stays absolute: the one place a translation lands
                if command not in "Mm":
                    return None
                x, y = start = v[0], v[1]
                out.append(_at(x, y))
                continue
            if command in "ML":
                shift, x, y = [v[0] - x, v[1] - y], v[0], v[1]
            elif command == "H":
                shift, x = [v[0] - x], v[0]
            elif command == "V":
                shift, y = [v[0] - y], v[0]
            elif command == "C":
                shift = [c - (x if i % 2 == 0 else y) for i, c in enumerate(v)]
                x, y = v[4], v[5]
            else:  # A: radii, rotation and flags stay; only the end point is relative
                shift, x, y = [*v[:5], v[5] - x, v[6] - y], v[5], v[6]
            if command == "M":
                start = (x, y)
            out.append(command.lower() + ",".join(_number(str(round(c, _DECIMALS))) for c in shift))
    return "".join(out) if out else None


def _folded_move(tag: re.Match) -> str:
    """A path or text moved by a translation alone, drawn where it lands instead."""
    element, before, dx, dy, after = tag.group(1), tag.group(2), float(tag.group(3)), float(tag.group(4) or 0), tag.group(5)
    attributes = dict(_ATTRIBUTE.findall(before + after))
    if element == "text":
        if "x" in attributes or "y" in attributes:
            return tag.group()
        return f'<text{before} x="{_number(tag.group(3))}" y="{_number(tag.group(4) or "0")}"{after}>'
    relative = _relative(attributes.get("d", ""))
    # Only straight edges: a curve drawn in place is flattened from other numbers than one drawn at the
    # origin and moved, and its edge pixels shade differently (by a sixteenth, in resvg).
    if relative is None or re.search(r"[aAcC]", relative):
        return tag.group()
    first = _RELATIVE_PATH.match(relative)
    moved = _at(float(first.group(1)) + dx, float(first.group(2)) + dy) + first.group(3)
    return re.sub(r' d="[^"]*"', lambda _: f' d="{moved}"', tag.group(), count=1).replace(
        re.search(r' transform="[^"]*"', tag.group()).group(), "", 1)


def _folded_moves(text: str) -> str:
    return _MOVED.sub(_folded_move, text)


_NO_MOVE = re.compile(r' transform="translate\(0(?:,0)?\)"')
_ATTRIBUTE = re.compile(r'([\w:-]+)="([^"]*)"')
_SHAPES = re.compile(r"(?:<(?:line|rect|path)\b[^>]*/>)+")
_SHAPE = re.compile(r"<(line|rect|path)\b([^>]*)/>")
_TRANSLATE = re.compile(r"^translate\((-?[\d.]+)(?:[ ,](-?[\d.]+))?\)$")
# After its first move, a path that only draws relative to where it is: it can start anywhere.
_RELATIVE_PATH = re.compile(r"^M\s*(-?[\d.]+)[ ,](-?[\d.]+)((?:[a-zZ][^A-Za-z]*)*)$")
# Attributes that make a shape a thing of its own (named, described, focusable, pointed at).
_OWN = re.compile(r"^(?:id|role|tabindex|aria-.*|data-.*|marker-.*|fill-rule|clip-rule)$")
_GEOMETRY_OF = {"line": ("x1", "y1", "x2", "y2"), "rect": ("x", "y", "width", "height"), "path": ("d",)}


def _number(text: str) -> str:
    return _NUMBER.sub(_rounded, repr(float(text))) if "." in text or "e" in text else text


def _at(x: float, y: float) -> str:
    return f"M{_number(str(round(x, _DECIMALS)))},{_number(str(round(y, _DECIMALS)))}"


def _outline(tag: str, attributes: dict):
    """(the shape as path data, its box if a rectangle), or None for a shape that must stay as drawn."""
    move = _TRANSLATE.match(attributes.get("transform", "translate(0,0)"))
    if not move or any(_OWN.match(name) for name in attributes):
        return None
    dx, dy = float(move.group(1)), float(move.group(2) or 0)
    try:
        if tag == "rect":
            if "rx" in attributes or "ry" in attributes:
                return None
            x, y, w, h = (float(attributes.get(k, 0)) for k in _GEOMETRY_OF["rect"])
            if w <= 0 or h <= 0:
                return None
            return f"{_at(x + dx, y + dy)}h{_number(attributes['width'])}v{_number(attributes['height'])}h-{_number(attributes['width'])}z", (x + dx, y + dy, w, h)
        if tag == "line":
            x1, y1, x2, y2 = (float(attributes.get(k, 0)) for k in _GEOMETRY_OF["line"])
            end = f"H{_number(str(round(x2 + dx, _DECIMALS)))}" if y1 == y2 else (
                f"V{_number(str(round(y2 + dy, _DECIMALS)))}" if x1 == x2 else _at(x2 + dx, y2 + dy).replace("M", "L"))
            return _at(x1 + dx, y1 + dy) + end, None
    except (KeyError, ValueError):
        return None
    start = _RELATIVE_PATH.match(attributes.get("d", ""))
    if not start:
        return None
    return _at(float(start.group(1)) + dx, float(start.group(2)) + dy) + start.group(3), None


# A stroke reaches past its shape's box; boxes nearer than this are taken to touch.
_STROKE_MARGIN = 1


def _overlap(a, b) -> bool:
    m = _STROKE_MARGIN
    return a[0] - m < b[0] + b[2] + m and b[0] - m < a[0] + a[2] + m and a[1] - m < b[1] + b[3] + m and b[1] - m < a[1] + a[3] + m


def _apart(boxes: list) -> bool:
    """No two of the rectangles touch: they can be painted in any order."""
    ordered = sorted(boxes)
    return not any(_overlap(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:] if b[0] - _STROKE_MARGIN < a[0] + a[2] + _STROKE_MARGIN)


def _could_be_translucent(attributes: dict) -> bool:
    return "class" in attributes or any("opacity" in name or "opacity" in value for name, value in attributes.items())


def _merged_shapes(text: str) -> str:
    return _SHAPES.sub(lambda run: _merged_run(run.group()), text)


def _merged_run(run: str) -> str:
    shapes = []  # (the element as drawn, its other attributes, its path data or None, its box)
    for shape in _SHAPE.finditer(run):
        tag, attributes = shape.group(1), dict(_ATTRIBUTE.findall(shape.group(2)))
        outline = _outline(tag, attributes)
        if outline and tag != "rect" and _could_be_translucent(attributes):
            outline = None
        rest = tuple((k, v) for k, v in attributes.items() if k not in (*_GEOMETRY_OF[tag], "transform"))
        shapes.append((shape.group(), rest, *(outline or (None, None))))
    if all(box for _, _, _, box in shapes) and _apart([box for *_, box in shapes]):
        # Rectangles apart from each other: one path per look, whatever order they were drawn in.
        looks = {}
        for shape in shapes:
            looks.setdefault(shape[1], []).append(shape)
        return "".join(_joined(group) for group in looks.values())
    out, group = [], []
    for shape in shapes:
        if group and shape[2] and shape[1] == group[0][1] and (shape[3] is None) == (group[0][3] is None) and (
                shape[3] is None or not any(_overlap(shape[3], other[3]) for other in group)):
            group.append(shape)
            continue
        out.append(_joined(group))
        group = [shape] if shape[2] else []
        if not shape[2]:
            out.append(shape[0])
    out.append(_joined(group))
    return "".join(out)


def _joined(group: list) -> str:
    """The shapes as one path, or the one shape as drawn."""
    if len(group) < 2:
        return "".join(shape[0] for shape in group)
    rest = "".join(f' {k}="{v}"' for k, v in group[0][1])
    return f'<path{rest} d="{_chained([shape[2] for shape in group])}"/>'


def _chained(subpaths: list) -> str:
    """Subpaths as one path's data, each that follows a closed one moved relative to where that one
    started (a closed subpath leaves the pen there): "m13,0" for "M39,22"."""
    out, start = [], None
    for subpath in subpaths:
        found = _RELATIVE_PATH.match(subpath)
        if not found:  # a line's absolute end: drawn as it is
            out.append(subpath)
            start = None
            continue
        x, y = float(found.group(1)), float(found.group(2))
        if start and out[-1][-1:] in "zZ":
            subpath = f"m{_number(str(round(x - start[0], _DECIMALS)))},{_number(str(round(y - start[1], _DECIMALS)))}{found.group(3)}"
        out.append(subpath)
        start = (x, y)
    return "".join(out)


def _shared_styles(text: str) -> str:
    styles = _STYLE.findall(text)
    shared = sorted({s for s in styles if styles.count(s) >= _SHARED})
    if not shared:
        return text
    # Named by their content, so that two figures of a page that share a style share its rule.
    names = {s: "f" + hashlib.sha256(s.encode()).hexdigest()[:8] for s in shared}

    def classed(tag: re.Match) -> str:
        element = tag.group()
        style = _STYLE.search(element)
        if not style or style.group(1) not in names or " class=" in element:
            return element
        return element.replace(style.group(), f' class="{names[style.group(1)]}"', 1)

    text = re.sub(r"<(?!svg\b)\w+\b[^>]*>", classed, text)
    # Each declaration !important: a style attribute outranks every stylesheet rule that is not,
    # and so does the class that stands in for it.
    rules = "".join(f".{names[s]}{{{_important(s)}}}" for s in shared)
    return re.sub(r"(<svg\b[^>]*>)", rf"\1<style>{rules}</style>", text, count=1)


# Presentation attributes a class can stand for (their CSS properties have the same names and values).
_PRESENTATION = ("fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray", "stroke-linecap",
                 "stroke-linejoin", "stroke-miterlimit", "font-family", "font-size", "font-weight", "font-style",
                 "text-anchor", "pointer-events")
_TAG = re.compile(r"<(?!svg\b|style\b)(\w+)\b([^>]*?)(/?)>")


def _presentation(attributes: str) -> tuple:
    return tuple((k, v) for k, v in _ATTRIBUTE.findall(attributes) if k in _PRESENTATION)


def _css_value(name: str, value: str) -> str:
    # A unitless font size is pixels as an attribute, but not valid CSS.
    return value + "px" if name == "font-size" and re.fullmatch(r"[\d.]+", value) else value


def _shared_presentation(text: str) -> str:
    sets = [p for p in (_presentation(m.group(2)) for m in _TAG.finditer(text)) if len(p) > 1]
    shared = sorted({p for p in sets if sets.count(p) >= _SHARED_PRESENTATION})
    if not shared:
        return text
    names = {p: "p" + hashlib.sha256(repr(p).encode()).hexdigest()[:7] for p in shared}

    def classed(tag: re.Match) -> str:
        attributes = tag.group(2)
        name = names.get(_presentation(attributes))
        if not name:
            return tag.group()
        kept = "".join(f' {k}="{v}"' for k, v in _ATTRIBUTE.findall(attributes) if k not in _PRESENTATION and k != "class")
        classes = " ".join(c for c in (dict(_ATTRIBUTE.findall(attributes)).get("class"), name) if c)
        return f'<{tag.group(1)} class="{classes}"{kept}{tag.group(3)}>'

    text = _TAG.sub(classed, text)
    rules = "".join(f":where(.{names[p]}){{{';'.join(f'{k}:{_css_value(k, v)}' for k, v in p)}}}" for p in shared)
    return re.sub(r"(<svg\b[^>]*>)", rf"\1<style>{rules}</style>", text, count=1)


def _important(style: str) -> str:
    return ";".join(f"{d.strip()} !important" for d in style.split(";") if d.strip())


def spec(value):
    """A Vega spec with its data rows' numbers at six significant digits."""
    if isinstance(value, dict):
        return {k: (_rows(v) if k == "values" else spec(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [spec(v) for v in value]
    return value


def _rows(values):
    if isinstance(values, list):
        return [_rows(v) for v in values]
    if isinstance(values, dict):
        return {k: _rows(v) for k, v in values.items()}
    if isinstance(values, float) and math.isfinite(values) and values:
        short = float(f"{values:.{_SIGNIFICANT}g}")
        return int(short) if short.is_integer() and abs(short) < 2**53 else short
    return values
