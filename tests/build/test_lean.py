"""Figures without surplus (site_build.lean): svgo as the site configures it (numbers as short as a
browser reads them the same, empty marks and default attributes gone, shapes merged) and the passes it has
not; data rows at six significant digits; text, labels and roles exactly as drawn."""

import json
import re
import struct
import subprocess
import sys
import zlib

import pytest

from harness.site import ROOT
from site_build import lean


def test_a_specs_data_rows_keep_six_significant_digits_and_the_rest_stays():
    spec = {"width": 640.5, "data": [{"name": "a", "values": [{"tokens": 16666666666.666666, "share": 0.123456789, "n": 3, "line": "1e19"}]}]}
    assert lean.spec(spec) == {"width": 640.5, "data": [{"name": "a", "values": [{"tokens": 16666700000, "share": 0.123457, "n": 3, "line": "1e19"}]}]}


def test_coordinates_are_rounded_empty_marks_go_and_text_labels_roles_and_ids_stay_as_drawn():
    drawn = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 500 200"><g transform="translate(404.339400755146,171.29089978408962)">'
             '<text aria-label="1.23456 s">1.23456 s</text>'
             '<path class="background" aria-hidden="true" d="M0,0h0v0h0Z" pointer-events="none"/>'
             '<path id="clip1" role="graphics-symbol" aria-roledescription="bar" aria-label="A: 3 GPUs" d="M0.123456,0h10v10h-10Z"/><line x2="5" stroke="#000" opacity="1"/>'
             '</g></svg>')
    lean_svg = lean.svg(drawn)
    # Each number as briefly as a browser reads the same 32-bit float from it (Chromium reads SVG numbers so).
    [moved] = re.findall(r'transform="translate\(([\d.]+)[ ,]([\d.]+)\)"', lean_svg)
    assert [_float32(x) for x in moved] == [_float32(x) for x in ("404.339400755146", "171.29089978408962")]
    assert all(len(x) < len("404.339400755146") for x in moved) and 'viewBox="0 0 500 200"' in lean_svg and "M.123456 0" in lean_svg
    assert ">1.23456 s</text>" in lean_svg and 'aria-label="1.23456 s"' in lean_svg
    assert all(f'{k}="{v}"' in lean_svg for k, v in (("id", "clip1"), ("role", "graphics-symbol"), ("aria-roledescription", "bar"),
                                                      ("aria-label", "A: 3 GPUs")))
    assert "pointer-events" not in lean_svg and "opacity" not in lean_svg and "h0v0" not in lean_svg


def _float32(number: str) -> float:
    return struct.unpack("<f", struct.pack("<f", float(number)))[0]


def test_a_run_of_grid_lines_becomes_one_path_and_labelled_shapes_stay_each_itself():
    lines = "".join(f'<line transform="translate({x},-60)" x2="0" y2="60" stroke="#ddd" stroke-width="1"/>' for x in (0, 58, 90))
    cells = "".join(f'<rect x="{x}" y="70" width="11" height="11" fill="red" aria-label="cell {x}"/>' for x in (0, 13))
    lean_svg = lean.svg(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 90"><g>{lines}</g>{cells}</svg>')
    assert "<line" not in lean_svg and len([p for p in re.findall(r"<path\b[^>]*>", lean_svg) if "aria-label" not in p]) == 1
    assert 'aria-label="cell 0"' in lean_svg and 'aria-label="cell 13"' in lean_svg


def test_repeated_presentation_attributes_become_a_class_without_specificity():
    ticks = "".join(f'<text transform="translate({i},0)" font-size="10" fill="#5c6bc0">{i}</text>' for i in range(8))
    lean_svg = lean.svg(f'<svg viewBox="0 0 8 1">{ticks}</svg>')
    [name] = set(re.findall(r'<text class="(p[0-9a-f]{7})"', lean_svg))
    # A unitless font size is pixels; `:where()` leaves a page's `svg text { fill: ... }` stronger, as it was.
    assert f"<style>:where(.{name}){{font-size:10px;fill:#5c6bc0}}</style>" in lean_svg
    assert "font-size=" not in lean_svg and [t for t in re.findall(r">(\d)</text>", lean_svg)] == [str(i) for i in range(8)]


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
    assert lean_svg.count('stroke="#888"') == 1
    assert lean_svg.index("A: 3 GPUs") < lean_svg.index('stroke="#888"')


def test_what_vega_names_or_says_twice_goes_and_what_a_stylesheet_styles_stays():
    drawn = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" class="marks" viewBox="0 0 9 9">'
             '<g fill="none"><g class="mark-group role-frame root"><path class="background" aria-hidden="true" d="M0,0h9v9h-9Z"/>'
             '<g class="mark-rule role-axis-grid"><path stroke="#ddd" d="M0,0V5"/></g>'
             '<g role="graphics-symbol" aria-roledescription="axis" aria-label="X-axis: N">'
             '<g aria-label="X-axis: N" role="graphics-object" aria-roledescription="group mark" transform="translate(1,2)"><text>1</text></g></g>'
             '<path aria-label="1B: 8 GB" role="graphics-symbol" aria-roledescription="line mark" d="M0,0L1,1"/>'
             '<path aria-label="1B: 8 GB" role="graphics-symbol" aria-roledescription="point" d="M0,0h1v1h-1z"/></g></g></svg>')
    lean_svg = lean.svg(drawn)
    # Each label once, on the mark it describes, with its role and what it is; the axis's too.
    assert lean_svg.count('aria-label="1B: 8 GB"') == 1 and lean_svg.count('aria-label="X-axis: N"') == 1
    assert re.search(r'<path[^>]* role="graphics-symbol" aria-roledescription="point" aria-label="1B: 8 GB"|'
                     r'<path[^>]* aria-label="1B: 8 GB" role="graphics-symbol" aria-roledescription="point"', lean_svg)
    assert "line mark" not in lean_svg and "group mark" not in lean_svg and "graphics-object" not in lean_svg
    # The class a stylesheet styles stays; Vega's others, the xlink namespace and the version go.
    assert "role-axis-grid" in lean_svg and not re.search(r"mark-|role-frame|root|marks|background|xlink|version", lean_svg)


def test_the_leaner_drawing_paints_the_same_pixels():
    vl_convert = pytest.importorskip("vl_convert")
    marks = "".join(f'<text transform="translate({x},15)" font-family="sans-serif" font-size="10" fill="#000">{x}</text>'
                    f'<path transform="translate({x},30)" d="M-3,-3L3,-3L0,3Z" fill="#26a69a"/>'
                    f'<rect x="{x}" y="40" width="11" height="11" fill="none" stroke="#888"/>' for x in (5, 18.5))
    drawn = ('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="60" height="60" viewBox="0 0 60 60"><g fill="none">'
             f'<path class="background" aria-hidden="true" d="M0,0h60v60h-60Z"/>{marks}</g></svg>')
    lean_svg = lean.svg(drawn)
    assert "background" not in lean_svg
    for scale in (1, 2):
        before, after = (_pixels(vl_convert.svg_to_png(svg, scale=scale)) for svg in (drawn, lean_svg))
        assert sum(before) and before == after


def test_a_diagrams_figures_keep_their_markup_and_each_svg_is_made_lean_where_it_stands():
    drawn = ('<figure class="widget__option" data-when="cut=zero"><svg viewBox="0 0 9 9"><rect x="1.0" width="2" height="2"/></svg>'
             '<figcaption>ZeRO</figcaption></figure><figure data-when="cut=dp"><svg viewBox="0 0 9 9"><rect x="1.0" width="2" height="2"/></svg></figure>')
    lean_svg = lean.svg(drawn)
    assert lean_svg.startswith('<figure class="widget__option" data-when="cut=zero"><svg') and '<figcaption>ZeRO</figcaption></figure><figure data-when="cut=dp"><svg' in lean_svg
    assert lean_svg.count('viewBox="0 0 9 9"') == 2 and "1.0" not in lean_svg


def test_a_style_written_on_many_elements_becomes_one_class_as_strong_as_the_attribute():
    cells = "".join(f'<text x="{i}" style="fill: red; font-weight: bold">{i}</text>' for i in range(8))
    drawn = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 1">{cells}<text class="keep" style="fill: red; font-weight: bold">k</text></svg>'
    lean_svg = lean.svg(drawn)
    [name] = set(re.findall(r'class="(f[0-9a-f]{8})"', lean_svg))
    assert f"<style>.{name}{{fill:red !important;font-weight:bold !important}}</style>" in lean_svg
    assert lean_svg.count(f'class="{name}"') == 8 and 'class="keep"' in lean_svg


_AHEAD = """
import json, multiprocessing, os, tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from site_build import cache, lean

def figure(colour):
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0,0h5v5h-5Z" fill="{colour}"/></svg>'

def answered_by(colour):
    lean.svg(figure(colour))
    return lean._OPTIMIZERS[os.getpid()].process.pid

cache.CACHE = Path(tempfile.mkdtemp())
lean.start_ahead()
ahead = dict(lean._OPTIMIZERS)
with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as second:
    in_second = second.submit(answered_by, "red").result()
here = answered_by("blue")
lean.stop()
ended = all(optimizer.process.returncode is not None for optimizer in ahead.values())
lean.start_ahead()  # the cache holds lean figures now
print(json.dumps({"ahead": {str(key): o.process.pid for key, o in ahead.items()}, "here": here, "in_second": in_second,
                  "pid": os.getpid(), "ended": ended, "started_when_warm": len(lean._OPTIMIZERS)}))
"""


def test_a_build_with_no_lean_figure_cached_starts_both_processes_svgo_ahead_and_a_warm_one_starts_none():
    done = subprocess.run([sys.executable, "-c", _AHEAD], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    run = json.loads(done.stdout.splitlines()[-1])
    # This process's own, and the other taken by the forked process at its first figure: no third started.
    assert run["here"] == run["ahead"][str(run["pid"])]
    assert run["in_second"] == run["ahead"][lean._FOR_THE_SECOND_PROCESS]
    assert len(run["ahead"]) == 2 and run["ended"]
    assert run["started_when_warm"] == 0
