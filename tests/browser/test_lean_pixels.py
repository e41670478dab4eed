"""Every kind of static figure paints the same pixels in Chromium made lean (site_build.lean: svgo and the
project's passes) as drawn: each widget's chart or diagram, and each chart folded under it, at its first
preset, drawn at one and two device pixels per pixel.

Only a browser shows this: Chromium reads SVG numbers into 32-bit floats and samples each edge on a
sub-pixel grid, so a rounding or a rewriting of path data that another renderer (resvg, in
tests/build/test_lean.py) draws alike can move an edge across a sample here, by up to 71/255 at 41a3523.
"""

import re

import figures
import pyodide_widgets
from site_build import lean

CHARTS = sorted({
    chart: name
    for name in pyodide_widgets.WIDGETS
    if getattr(pyodide_widgets.module(name), "CHART", None)
    for chart in (pyodide_widgets.module(name).CHART, *getattr(pyodide_widgets.module(name), "FOLDED_CHARTS", {}))
}.items())

# Each SVG drawn on a white canvas at `scale` device pixels per pixel; the largest difference of a sample.
DIFFERENCE = """async ([drawn, leaner, scale]) => {
  const load = (svg) => new Promise((done, failed) => {
    const image = new Image();
    image.onload = () => done(image);
    image.onerror = failed;
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  });
  const [before, after] = [await load(drawn), await load(leaner)];
  const [width, height] = [Math.ceil(before.naturalWidth * scale), Math.ceil(before.naturalHeight * scale)];
  const samples = (image) => {
    const canvas = Object.assign(document.createElement("canvas"), { width, height });
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, width, height);
    context.drawImage(image, 0, 0, width, height);
    return context.getImageData(0, 0, width, height).data;
  };
  const [a, b] = [samples(before), samples(after)];
  let largest = 0, painted = 0;
  for (let i = 0; i < a.length; i++) {
    largest = Math.max(largest, Math.abs(a[i] - b[i]));
    painted += a[i] !== 255;
  }
  return [largest, painted];
}"""

_SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def _figures():
    """Each chart's SVG as drawn at its widget's first preset (a diagram's, each of its options' SVGs)."""
    for chart, widget in CHARTS:
        module = pyodide_widgets.module(widget)
        drawn = figures.svg(chart, module.update(next(iter(module.presets().values()))["state"])["data"])
        yield from ((f"{chart} {i}", before, after) for i, (before, after) in
                    enumerate(zip(_SVG.findall(drawn), _SVG.findall(lean.svg(drawn)), strict=True)))


def test_every_lean_figure_paints_the_pixels_it_was_drawn_with(page):
    # One blank page draws them all: the figures are data, not the site.
    page.goto("about:blank")
    moved, blank = {}, []
    for name, before, after in _figures():
        for scale in (1, 2):
            largest, painted = page.evaluate(DIFFERENCE, [before, after, scale])
            blank += [name] if not painted else []
            if largest:
                moved[name] = max(moved.get(name, 0), largest)
    assert not blank
    assert not moved, moved
