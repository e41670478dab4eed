"""Six ways to cut a job: what each of four GPUs holds, one panel per cut (the parallel_cuts
widget's first picture; its second, figures.parallel_cuts, draws the picked cut's traffic).

Drawn from the rows of the dataset "slices" (estimators.cut_slices: for every
cut and GPU, the [start, end) share of the layers, the width of the weight
matrices, the optimizer state, the batch, the tokens of each sequence and the
experts it holds). Each cut's panel is a figure marked `data-when="cut=<key>"`,
so the runtime shows the picked one; without JavaScript all six read in turn,
each with its text alternative. Colours are the theme's variables, so the
diagram follows the light and the dark palette.
"""

from html import escape

DATASETS = ("slices",)
GRID = 8  # cells a side of the schematic model: 8 layers × 8 columns of width
CELL = 13  # px
PANEL_W, GAP, TOP = 150, 12, 22
# Two GPUs a row: the panel fits a 360 px phone's column with its text at 10 px or more.
PER_ROW = 2
STRIP_H = 12
NOT_HELD = "fill: none; stroke: var(--md-default-fg-color--light)"  # 3:1 or more on either palette
HELD = "fill: none; stroke: var(--md-accent-fg-color)"  # a run of cells: a line, dashed
TEXT = "fill: var(--md-default-fg-color); font: 12px sans-serif"  # also the strips' labels: 12 px drawn, 10 or more at 360 px
# The strips under each GPU's model grid, in drawing order: (row key, label, parts drawn).
STRIPS = (("state", "state", 4), ("batch", "batch", 4), ("tokens", "tokens", 8), ("experts", "experts", 4))


def _held(span: tuple, i: int, parts: int) -> bool:
    """Part i of `parts` lies inside the [start, end) share."""
    middle = (i + 0.5) / parts
    return span[0] <= middle < span[1]


def _share(span: tuple) -> str:
    """Words for a share: "all", or "part 2 of 4"."""
    lo, hi = span
    if (lo, hi) == (0.0, 1.0):
        return "all"
    n = round(1 / (hi - lo))
    return f"part {round(lo * n) + 1} of {n}"


def _gpu(row: dict, x: float, top: float) -> list:
    parts = [f'<text x="{x}" y="{top + TOP - 8}" style="{TEXT}">GPU {row["gpu"] + 1}</text>']
    parts += _cells([[_held(row["layers"], r, GRID) and _held(row["width"], c, GRID) for c in range(GRID)]
                     for r in range(GRID)], x, top + TOP, CELL, height=CELL - 2)
    y = top + TOP + GRID * CELL + 6
    for key, label, count in STRIPS:
        parts += _cells([[_held(row[key], i, count) for i in range(count)]], x, y, GRID * CELL / count, height=STRIP_H)
        parts.append(f'<text x="{x + GRID * CELL + 4}" y="{y + STRIP_H - 1}" style="{TEXT}">{label}</text>')
        y += STRIP_H + 6
    return parts


def _runs(cells: list) -> list:
    """(first, count) of each run of true values in `cells`."""
    runs = []
    for i, on in enumerate(cells):
        if on and i and cells[i - 1]:
            runs[-1][1] += 1
        elif on:
            runs.append([i, 1])
    return runs


def _cells(held: list, x: float, y: float, pitch: float, height: float) -> list:
    """Rows of cells (`held[row][column]`, `pitch` apart, 2 px between them), filled where held and outlined
    where not. A row's run of held cells is one line as thick as a cell, dashed so that its dashes are the
    cells: it paints the pixels their <rect>s did, in far fewer bytes. A cell not held is outlined on its
    own (outlines drawn as dashes shade their corners otherwise)."""
    width = pitch - 2
    runs = [f"M{x + first * pitch},{y + r * (height + 2) + height / 2}h{count * pitch - 2}" for r, cells in enumerate(held)
            for first, count in _runs(cells)]
    outlined = [f'<rect x="{x + c * pitch}" y="{y + r * (height + 2)}" width="{width}" height="{height}" style="{NOT_HELD}"/>'
                for r, cells in enumerate(held) for c, on in enumerate(cells) if not on]
    return ([f'<path d="{"".join(runs)}" style="{HELD}; stroke-width: {height:g}; stroke-dasharray: {width:g} 2"/>'] if runs else []) + outlined


def _alt(rows: list) -> str:
    return " ".join(
        f"GPU {r['gpu'] + 1}: layers {_share(r['layers'])}, matrix width {_share(r['width'])}, "
        f"state {_share(r['state'])}, batch {_share(r['batch'])}, tokens {_share(r['tokens'])}, "
        f"experts {_share(r['experts'])}." for r in rows
    )


def draw(datasets: dict) -> str:
    """One <figure> per cut, in the rows' order, each an SVG of its GPUs (its text alternative states the
    shares) captioned with the cut's name; then the key to the panels."""
    cuts = {}
    for row in datasets["slices"]:
        cuts.setdefault(row["cut"], []).append(row)
    panel_h = TOP + GRID * CELL + 6 + len(STRIPS) * (STRIP_H + 6)
    figures = []
    for cut, rows in cuts.items():
        width = min(len(rows), PER_ROW) * (PANEL_W + GAP) - GAP
        height = -(-len(rows) // PER_ROW) * (panel_h + GAP) - GAP
        body = [p for i, row in enumerate(rows)
                for p in _gpu(row, (i % PER_ROW) * (PANEL_W + GAP), (i // PER_ROW) * (panel_h + GAP))]
        title = escape(rows[0]["title"])
        alt = escape(_alt(rows))
        figures.append(
            f'<figure class="widget__option widget__diagram" data-when="cut={cut}">'
            f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="{title}: {alt}" xmlns="http://www.w3.org/2000/svg">'
            + "".join(body)
            + f"</svg><figcaption>{title}</figcaption></figure>"
        )
    # The key reads the same for every cut: written once, under whichever panels show.
    return "".join(figures) + (
        '<p class="widget__note">The grid is the model (rows: layers; columns: the width of each weight matrix), '
        "filled where the GPU holds it; the strips show its share of the optimizer state, the batch, each "
        "sequence's tokens and the experts.</p>")
