"""Figures without surplus (site_build.lean): coordinates at a hundredth of a pixel, empty marks
and default attributes gone, a repeated style one class, data rows at six significant digits;
text exactly as drawn."""

import re

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
    assert re.findall(r'd="([^"]*)"', lean_svg) == ["M0,0h11v11h-11zM26,0h11v11h-11z", "M13,0h11v11h-11zM39,0h11v11h-11z"]


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
    [name] = set(re.findall(r'<text class="(p[0-9a-f]{7})" transform=', lean_svg))
    # A unitless font size is pixels; `:where()` leaves a page's `svg text { fill: ... }` stronger, as it was.
    assert f"<style>:where(.{name}){{font-size:10px;fill:#000}}</style>" in lean_svg
    assert "font-size=" not in lean_svg and [t for t in re.findall(r">(\d)</text>", lean_svg)] == [str(i) for i in range(8)]
