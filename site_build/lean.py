"""Figures without surplus: a static SVG and a chart's spec as small as they draw the same.

A page inlines every figure's SVG and every chart's Vega spec, so what they
carry beyond what a reader sees is paid on every load. Vega writes each
coordinate to sixteen digits and each mark's default attributes in full; a
diagram of hundreds of cells repeats one style on each. Here:

- a coordinate keeps two decimals (a hundredth of a pixel), and "12.0" reads "12";
- a mark Vega draws empty (a zero-sized background, an undrawn foreground)
  and an attribute at its default (`opacity="1"`) go;
- a style attribute written on many elements becomes one class of a
  `<style>` inside the SVG, as strong as the attribute was;
- a spec's data rows keep six significant digits, more than a chart's pixels resolve.

Text (labels, titles, `aria-label`s) is left exactly as drawn.
"""

import hashlib
import math
import re

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


def _rounded(match: re.Match) -> str:
    text = f"{float(match.group()):.{_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def svg(text: str) -> str:
    """The same drawing in fewer bytes."""
    text = _GEOMETRY.sub(lambda m: m.group(1) + _NUMBER.sub(_rounded, m.group(2)) + m.group(3), text)
    text = _DEFAULTS.sub("", _EMPTY_MARKS.sub("", text))
    return _shared_styles(text)


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
