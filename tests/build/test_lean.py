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
