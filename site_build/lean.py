"""Figures without surplus: a static SVG and a chart's spec as small as they draw the same.

A page inlines every figure's SVG and every chart's Vega spec, so what they
carry beyond what a reader sees is paid on every load. Vega writes each
coordinate to sixteen digits and each mark's default attributes in full; a
diagram of hundreds of cells repeats one style on each.

Every pass an SVG optimizer has is svgo's, configured once for the site in
`lean.mjs` (default attributes, hidden and empty marks, groups that carry
nothing, sibling shapes merged into one path where they cannot blend,
transforms written short, `pointer-events`, which nothing points at in a
picture the runtime replaces once it goes live), with numbers written as
briefly as a browser reads the same from them: a figure paints the pixels it
was drawn with (tests/browser/test_lean_pixels.py). One svgo process
serves a build process, started at its first figure the cache does not hold or,
for a build whose cache holds none, both at once before the pages (while one
core is free), and each figure's result is kept in the build cache by what it
was made from, so a warm build starts none.

What no optimizer offers stays in the project, each pass with its why:
`lean.mjs`'s own passes on svgo's tree (a label Vega says twice, a role
without a label, Vega's class names no stylesheet styles, shapes that paint
nothing, numbers as a browser reads them, a translation folded into a path
where every sum is exact, the runs `mergePaths` may join),
and here, reading svgo's output (which writes `<`, `>`, `"` and `&` in an
attribute's value escaped):

- a style attribute written on many elements (a diagram's cells) becomes one
  class of a `<style>` inside the first SVG, as strong as the attribute was
  (`!important`): svgo moves styles the other way only, into attributes;
- a set of presentation attributes (`fill`, `font-size`, ...) written three
  times becomes one class as weak as they were (`:where()`, no
  specificity): svgo has no pass from repeated attributes to a shared class,
  and a class of any strength would outrank the page's stylesheet, which
  recolours the charts' text and rules for the dark palette;
- a spec's data rows keep six significant digits, more than a chart's pixels
  resolve: a spec is JSON, which no SVG optimizer reads.

Text (labels, titles, `aria-label`s) is left exactly as drawn.
"""

import hashlib
import json
import math
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from site_build.cache import cached, holds_any, tree_hash

_SIGNIFICANT = 6
_KIND = "figures-lean"  # the build cache's
_HERE = Path(__file__).resolve().parent
_OPTIMIZER = _HERE / "lean.mjs"
_SVGO_PACKAGE = _HERE.parent / "node_modules" / "svgo" / "package.json"
# A set of presentation attributes costs its rule once (a class, the names and values again): written
# three times it is already cheaper as a class.
_SHARED_PRESENTATION = 3


class OptimizerError(Exception):
    """svgo missing, or refusing a figure: a build error naming what to do."""


def svg(text: str) -> str:
    """The same drawing in fewer bytes, kept in the build cache under the figure, this module, the
    optimizer's configuration and version, and the stylesheets whose class names stay."""
    if not _SVGO_PACKAGE.is_file():
        raise OptimizerError(f"svgo is missing from {_SVGO_PACKAGE.parent.parent}: install the npm packages with `npm ci` (make does)")
    version = json.loads(_SVGO_PACKAGE.read_text("utf-8"))["version"]
    key = [text, tree_hash([Path(__file__).resolve(), _OPTIMIZER, _HERE / "browser"]), version]
    return cached(_KIND, key, lambda: _after(_optimized(text)))


def _after(text: str) -> str:
    return _shared_presentation(_shared_styles(text))


@dataclass
class _Optimizer:
    """An svgo process, and the build process that started it: the only one that can tell whether it
    still runs, or end it."""

    process: subprocess.Popen
    parent: int

    def running(self) -> bool:
        return self.parent != os.getpid() or self.process.poll() is None


# {build process id: its svgo process}, and one started ahead for the build's second process
# (site_build.prefetch), which finds this as it was when it was forked, and takes that one.
_OPTIMIZERS: dict = {}
_FOR_THE_SECOND_PROCESS = "second process"


def _start() -> _Optimizer:
    try:
        # --single-threaded: V8 compiles and collects garbage in this thread rather than in threads of
        # its own, which would only contend with the build's processes for the same cores. --no-opt: a
        # build's figures are too few for V8's optimizing compiler to win back, on this thread, the time
        # it spends compiling (a sixth less time for a cold build's figures without it).
        process = subprocess.Popen(["node", "--single-threaded", "--no-opt", str(_OPTIMIZER)], cwd=_HERE,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
    except FileNotFoundError:
        raise OptimizerError("node is missing: the build makes figures lean with svgo, which needs Node 20 or later") from None
    return _Optimizer(process=process, parent=os.getpid())


def start_ahead() -> None:
    """For a build that makes every figure (the cache holds none made lean): start this process's svgo
    process and the second process's now, while this process alone reads the configuration and a core is
    free, rather than each at its first figure (Node's start and svgo's loading, a tenth of a second)."""
    if not _SVGO_PACKAGE.is_file() or holds_any(_KIND):
        return
    for key in (os.getpid(), _FOR_THE_SECOND_PROCESS):
        if key not in _OPTIMIZERS:
            _OPTIMIZERS[key] = _start()


def _optimizer() -> _Optimizer:
    optimizer = _OPTIMIZERS.get(os.getpid())
    if optimizer is None or not optimizer.running():
        ahead = _OPTIMIZERS.get(_FOR_THE_SECOND_PROCESS)
        taken = ahead is not None and ahead.parent != os.getpid()
        optimizer = _OPTIMIZERS[os.getpid()] = _OPTIMIZERS.pop(_FOR_THE_SECOND_PROCESS) if taken else _start()
    return optimizer


def _optimized(text: str) -> str:
    process = _optimizer().process
    process.stdin.write(json.dumps(text) + "\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline() or '{"error": "svgo stopped without an answer"}')
    if "error" in answer:
        raise OptimizerError(f"svgo refused a figure: {answer['error']}")
    return answer["svg"]


def stop() -> None:
    """End the svgo processes this process started (at the end of each build: `make serve` may forget this module)."""
    for key, optimizer in list(_OPTIMIZERS.items()):
        if optimizer.parent == os.getpid():
            del _OPTIMIZERS[key]
            # Not by closing its input: a forked process may hold that pipe open too.
            optimizer.process.terminate()
            optimizer.process.wait()


_STYLE = re.compile(r' style="([^"]*)"')
# A style written at least this often is worth a class.
_SHARED = 8


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


_ATTRIBUTE = re.compile(r'([\w:-]+)="([^"]*)"')
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
