"""Figures without surplus (site_build.lean): coordinates at a hundredth of a pixel, empty marks
and default attributes gone, a repeated style one class, data rows at six significant digits;
text exactly as drawn."""

import re
import struct
import zlib

import pytest

from site_build import lean


def test_coordinates_are_rounded_and_text_is_left_as_drawn():
    drawn = ('<svg viewBox="0 0 10 10"><g transform="translate(404.339400755146,171.29089978408962)">'
             '<text x="12.0" y="-0.001" aria-label="1.23456 s">1.23456 s</text>'
             '<path class="background" aria-hidden="true" d="M0,0h0v0h0Z" pointer-events="none"/>'
             '<line x2="0.5" opacity="1"/></g></svg>')
    assert lean.svg(drawn) == ('<svg viewBox="0 0 10 10"><g transform="translate(404.34,171.29)">'
                               '<text x="12" y="0" aria-label="1.23456 s">1.23456 s</text><line x2="0.5"/></g></svg>')


def test_a_style_written_on_many_elements_becomes_one_class_as_strong_as_the_attribute():
    cells = "".join(f'<rect x="{i}" style="fill: red; stroke: none"/>' for i in range(8))
    drawn = f'<svg viewBox="0 0 8 1">{cells}<rect class="keep" style="fill: red; stroke: none"/><text style="fill: blue">a</text></svg>'
    lean_svg = lean.svg(drawn)
    [name] = set(re.findall(r'<rect x="\d" class="(f[0-9a-f]{8})"/>', lean_svg))
    assert f"<style>.{name}{{fill: red !important;stroke: none !important}}</style>" in lean_svg
    assert lean_svg.count(f'class="{name}"') == 8
    assert '<rect class="keep" style="fill: red; stroke: none"/>' in lean_svg and 'style="fill: blue"' in lean_svg


def test_a_specs_data_rows_keep_six_significant_digits_and_the_rest_stays():
    spec = {"width": 640.5, "data": [{"name": "a", "values": [{"tokens": 16666666666.666666, "share": 0.123456789, "n": 3, "line": "1e19"}]}]}
    assert lean.spec(spec) == {"width": 640.5, "data": [{"name": "a", "values": [{"tokens": 16666700000, "share": 0.123457, "n": 3, "line": "1e19"}]}]}


def test_a_run_of_shapes_apart_from_each_other_becomes_one_path_per_look():
    cells = "".join(f'<rect x="{i * 13}" y="0" width="11" height="11" style="fill: {"red" if i % 2 else "blue"}"/>' for i in range(4))
    lean_svg = lean.svg(f'<svg viewBox="0 0 52 11">{cells}</svg>')
    assert "<rect" not in lean_svg
    assert re.findall(r'd="([^"]*)"', lean_svg) == ["M0,0h11v11h-11zm26,0h11v11h-11z", "M13,0h11v11h-11zm26,0h11v11h-11z"]


def test_rectangles_that_overlap_keep_their_order_and_a_labelled_one_stays_itself():
    drawn = ('<svg viewBox="0 0 20 20"><rect x="0" y="0" width="10" height="10" fill="red"/><rect x="5" y="5" width="10" height="10" fill="blue"/>'
             '<rect x="0" y="0" width="10" height="10" fill="red"/><rect x="15" y="15" width="2" height="2" aria-label="a cell"/></svg>')
    lean_svg = lean.svg(drawn)
    assert lean_svg.index('fill="red"') < lean_svg.index('fill="blue"') < lean_svg.rindex('fill="red"')
    assert '<rect x="15" y="15" width="2" height="2" aria-label="a cell"/>' in lean_svg


def test_grid_lines_become_one_path_at_the_same_coordinates_but_translucent_ones_stay():
    lines = "".join(f'<line transform="translate({x},-60)" x2="0" y2="60" stroke="#ddd" stroke-width="1"/>' for x in (0, 58.18))
    faint = '<line x2="5" stroke="#ddd" stroke-opacity="0.5"/><line x2="7" stroke="#ddd" stroke-opacity="0.5"/>'
    lean_svg = lean.svg(f'<svg viewBox="0 0 100 60"><g>{lines}</g>{faint}</svg>')
    assert '<path stroke="#ddd" stroke-width="1" d="M0,-60V0M58.18,-60V0"/>' in lean_svg
    assert lean_svg.count("<line") == 2


def test_repeated_presentation_attributes_become_a_class_without_specificity():
    ticks = "".join(f'<text transform="translate({i},0)" font-size="10" fill="#000">{i}</text>' for i in range(8))
    lean_svg = lean.svg(f'<svg viewBox="0 0 8 1">{ticks}</svg>')
    [name] = set(re.findall(r'<text class="(p[0-9a-f]{7})" x=', lean_svg))
    # A unitless font size is pixels; `:where()` leaves a page's `svg text { fill: ... }` stronger, as it was.
    assert f"<style>:where(.{name}){{font-size:10px;fill:#000}}</style>" in lean_svg
    assert "font-size=" not in lean_svg and [t for t in re.findall(r">(\d)</text>", lean_svg)] == [str(i) for i in range(8)]


def _bar(x: float, y: float, width: float, height: float, r: float) -> str:
    """A bar with round corners as Vega's renderer draws it (vega-scenegraph's path/rectangle.js):
    lines and cubic curves whose control points stand 0.448 of the radius short of each corner."""
    c = 0.448084975506 * r
    right, bottom = x + width, y + height
    points = [("M", x + r, y), ("L", right - r, y), ("C", right - c, y, right, y + c, right, y + r),
              ("L", right, bottom - r), ("C", right, bottom - c, right - c, bottom, right - r, bottom),
              ("L", x + r, bottom), ("C", x + c, bottom, x, bottom - c, x, bottom - r),
              ("L", x, y + r), ("C", x, y + c, x + c, y, x + r, y)]
    return "".join(command + ",".join(f"{v:.2f}" for v in values) for command, *values in points) + "Z"


def test_a_path_that_is_one_rounded_rectangle_becomes_a_rect_with_its_box_and_radius():
    box = (129.14, 6, 35.22, 10, 3)
    lean_svg = lean.svg(f'<svg viewBox="0 0 200 20"><path aria-label="a bar" role="graphics-symbol" d="{_bar(*box)}" fill="#5c6bc0"/></svg>')
    [rect] = re.findall(r"<rect\b[^>]*/>", lean_svg)
    attributes = dict(re.findall(r'([\w-]+)="([^"]*)"', rect))
    assert tuple(float(attributes[k]) for k in ("x", "y", "width", "height", "rx")) == pytest.approx(box, abs=0.01)
    assert attributes["aria-label"] == "a bar" and attributes["role"] == "graphics-symbol" and attributes["fill"] == "#5c6bc0"
    assert "<path" not in lean_svg


def test_a_path_with_uneven_corners_or_another_shape_stays_a_path():
    uneven = _bar(0, 0, 40, 10, 3).replace("L37.00,0.00", "L36.00,0.00", 1)
    assert lean.rounded_rect(uneven) is None
    assert lean.rounded_rect(_bar(0, 0, 40, 10, 3)[:-1] + "L0,5Z") is None
    lean_svg = lean.svg(f'<svg viewBox="0 0 40 10"><path d="{uneven}"/></svg>')
    assert "<rect" not in lean_svg and lean_svg.count("<path") == 1


def _pixels(png: bytes) -> bytes:
    """The RGBA samples of an 8-bit RGBA PNG (resvg's), rows unfiltered (PNG's filter types 0 to 4)."""
    width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
    assert (depth, colour) == (8, 6)
    at, chunks = 8, b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        chunks += png[at + 8:at + 8 + length] if kind == b"IDAT" else b""
        at += 12 + length
    raw, stride, rows, previous = zlib.decompress(chunks), width * 4, [], bytearray(width * 4)
    for y in range(height):
        kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left, up, corner = (row[i - 4] if i >= 4 else 0), previous[i], (previous[i - 4] if i >= 4 else 0)
            guess = left + up - corner
            nearest = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))[2]
            row[i] = (row[i] + (0, left, up, (left + up) // 2, nearest)[kind]) & 0xFF
        rows.append(bytes(row))
        previous = row
    return b"".join(rows)


def test_the_rect_paints_the_pixels_the_rounded_path_did():
    vl_convert = pytest.importorskip("vl_convert")
    bars = [(3.5, 2, 60.25, 14, 3), (10, 20, 30, 6, 3), (5.13, 30.6, 80.4, 12.2, 6.1)]
    def picture(bars):
        return '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">' + "".join(
            f'<path d="{_bar(*bar)}" fill="#5c6bc0"/>' for bar in bars) + "</svg>"
    drawn = picture(bars)
    lean_svg = lean.svg(drawn)
    assert lean_svg.count("<rect") == len(bars)
    before, after = (_pixels(vl_convert.svg_to_png(svg, scale=1)) for svg in (drawn, lean_svg))
    assert sum(before) and before == after
    assert before != _pixels(vl_convert.svg_to_png(picture([(3.5, 2, 59.25, 14, 3), *bars[1:]]), scale=1))  # the comparison can fail
    # At a phone's two device pixels per CSS pixel, the true arc and Vega's curve (its points at a hundredth
    # of a pixel) may shade a few pixels of a corner apart, by at most a sixteenth of a pixel's coverage.
    before, after = (_pixels(vl_convert.svg_to_png(svg, scale=2)) for svg in (drawn, lean_svg))
    shaded = [abs(a - b) for a, b in zip(before, after) if a != b]
    assert max(shaded, default=0) <= 16 and len(shaded) < len(before) / 1000


def test_what_a_static_picture_carries_for_no_reader_goes_and_labels_stay_with_their_roles():
    drawn = ('<svg viewBox="0 0 10 10"><g class="mark-group" role="graphics-object" aria-roledescription="group mark container">'
             '<g><g><path class="bar" role="graphics-symbol" aria-roledescription="bar" aria-label="A: 3 GPUs" d="M0,0h1v1h-1z"/></g>'
             '<g class="mark-rule" pointer-events="none"><line x2="5" stroke="#888"/></g></g></g></svg>')
    lean_svg = lean.svg(drawn)
    assert "pointer-events" not in lean_svg and "group mark container" not in lean_svg
    # The labelled element keeps its role, what it is and its label as drawn; the unlabelled group loses its
    # role and Vega's class names (no stylesheet styles them), and with nothing left it goes too.
    assert re.search(r'<path class="bar" role="graphics-symbol" aria-roledescription="bar" aria-label="A: 3 GPUs"', lean_svg)
    assert "<g" not in lean_svg and "</g>" not in lean_svg
    # What was inside the bare groups stands in the same order.
    assert re.sub(r"<g>|</g>", "", drawn.replace(' pointer-events="none"', "")).count("<line") == lean_svg.count("<line")
    assert lean_svg.index("A: 3 GPUs") < lean_svg.index("<line")


def test_a_text_or_a_straight_edged_path_moved_by_a_translation_is_drawn_where_it_lands():
    drawn = ('<svg viewBox="0 0 50 50"><text transform="translate(42,15)" fill="#000">1B</text>'
             '<text transform="translate(3,4)"><tspan x="0" dy="15">two lines</tspan></text>'
             '<path aria-label="a" transform="translate(10.5,20)" d="M-3,-3L3,-3L0,3Z"/>'
             '<path aria-label="b" transform="translate(20.04,1)" d="M2.74,0A2.74,2.74,0,1,1,-2.74,0A2.74,2.74,0,1,1,2.74,0"/></svg>')
    lean_svg = lean.svg(drawn)
    assert '<text x="42" y="15" fill="#000">1B</text>' in lean_svg
    # A tspan's own x stays where it was only if its text does; a curve is left moved (drawn in place it shades otherwise).
    assert '<text transform="translate(3,4)"><tspan x="0"' in lean_svg
    assert '<path aria-label="a" d="M7.5,17l6,0l-3,6z"/>' in lean_svg
    assert 'transform="translate(20.04,1)"' in lean_svg


def test_what_vega_names_or_says_twice_goes_and_what_a_stylesheet_styles_stays():
    drawn = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" class="marks" viewBox="0 0 9 9">'
             '<g fill="none"><g class="mark-group role-frame root"><path class="background" aria-hidden="true" d="M0,0h9v9h-9Z"/>'
             '<g class="mark-rule role-axis-grid"><path stroke="#ddd" d="M0,0V5"/></g>'
             '<g role="graphics-symbol" aria-roledescription="axis" aria-label="X-axis: N">'
             '<g aria-label="X-axis: N" role="graphics-object" aria-roledescription="group mark" transform="translate(1,2)"><text>1</text></g></g>'
             '<path aria-label="1B: 8 GB" role="graphics-symbol" aria-roledescription="line mark" d="M0,0L1,1"/>'
             '<path aria-label="1B: 8 GB" role="graphics-symbol" aria-roledescription="point" d="M0,0h1v1h-1z"/></g></g></svg>')
    assert lean.svg(drawn) == (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9"><g fill="none"><g class="role-axis-grid"><path stroke="#ddd" d="M0,0V5"/></g>'
        '<g role="graphics-symbol" aria-roledescription="axis" aria-label="X-axis: N"><g transform="translate(1,2)"><text>1</text></g></g>'
        '<path d="M0,0L1,1"/><path aria-label="1B: 8 GB" role="graphics-symbol" aria-roledescription="point" d="M0,0h1v1h-1z"/></g></svg>')


def test_a_subpath_after_a_closed_one_moves_from_where_that_one_started():
    cells = "".join(f'<rect x="{x}" y="{y}" width="11" height="11" fill="red"/>' for y in (22, 35) for x in (0, 13))
    assert re.findall(r'd="([^"]*)"', lean.svg(f'<svg viewBox="0 0 30 50">{cells}</svg>')) == [
        "M0,22h11v11h-11zm13,0h11v11h-11zm-13,13h11v11h-11zm13,0h11v11h-11z"]


def test_the_leaner_drawing_paints_the_same_pixels():
    vl_convert = pytest.importorskip("vl_convert")
    marks = "".join(f'<text transform="translate({x},15)" font-family="sans-serif" font-size="10" fill="#000">{x}</text>'
                    f'<path transform="translate({x},30)" d="M-3,-3L3,-3L0,3Z" fill="#26a69a"/>'
                    f'<rect x="{x}" y="40" width="11" height="11" fill="none" stroke="#888"/>' for x in (5, 18.5))
    drawn = ('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="60" height="60" viewBox="0 0 60 60"><g fill="none">'
             f'<path class="background" aria-hidden="true" d="M0,0h60v60h-60Z"/>{marks}</g></svg>')
    lean_svg = lean.svg(drawn)
    assert "transform" not in lean_svg and "background" not in lean_svg
    for scale in (1, 2):
        before, after = (_pixels(vl_convert.svg_to_png(svg, scale=scale)) for svg in (drawn, lean_svg))
        assert sum(before) and before == after
