"""The LoRA adapter drawn at its layer's true shapes: W d × k, B d × r, A r × k, r widened only as far as
it must be to show, and the whole inside its frame.

Where each matrix stands is the figure's (figures/lora_adapter.PLACED, Vega expressions over the sizes
the widget gives): vl-convert evaluates them here, as Vega does in the browser, and the places it
returns are checked against the shapes.
"""

import html
import re

import pytest
import vl_convert

from figures.lora_adapter import ADAPTER_FRAME, DRAWN_RANK_MAX, DRAWN_RANK_SHARE, PLACED, WIDENED
from pyodide_widgets.widgets import finetune_fit

TEXT = re.compile(r"<text[^>]*>([^<]*)</text>")
EDGES = ("x0", "x1", "y0", "y1")


def placed(d_in: int, d_out: int, rank: int) -> dict:
    """{matrix: (x0, x1, y0, y1)} and the widening, as Vega computes them for the widget's rows of one layer."""
    rows = finetune_fit._adapter_rows("q", (d_in, d_out), rank)["adapter"]
    spec = {
        "data": {"values": rows},
        "transform": [*({"calculate": e, "as": k} for k, e in PLACED.items()), {"calculate": WIDENED, "as": "widened"},
                      {"calculate": "join([datum.name, " + ", ".join(f"datum.{k}" for k in (*EDGES, "widened"))
                       + "], ' ')", "as": "out"}],
        "mark": "text",
        "encoding": {"text": {"field": "out"}, "y": {"field": "name", "type": "nominal", "axis": None}},
    }
    drawn = [html.unescape(t).split() for t in TEXT.findall(vl_convert.vegalite_to_svg(spec))]
    found = [words for words in drawn if len(words) == 2 + len(EDGES)]  # the marks' texts, not the axis's
    boxes = {name: tuple(map(float, values[:4])) for name, *values in found}
    assert set(boxes) == {"W", "B", "A"}
    return boxes, float(found[0][-1])


def sizes(boxes: dict) -> dict:
    return {name: (x1 - x0, y1 - y0) for name, (x0, x1, y0, y1) in boxes.items()}


def test_the_matrices_keep_their_true_shapes_and_b_times_a_spans_w():
    # Llama 3 8B's k projection: 4,096 in, 1,024 out (grouped-query attention), at rank 16.
    boxes, widened = placed(4096, 1024, 16)
    size = sizes(boxes)
    assert size["W"] == pytest.approx((1.0, 0.25))  # k = 4,096 columns, d = 1,024 rows
    assert size["B"][1] == pytest.approx(size["W"][1]) and size["A"][0] == pytest.approx(size["W"][0])
    # r = 16 of 4,096 is drawn at the narrowest share, and the figure says how much wider than life.
    assert size["B"][0] == pytest.approx(DRAWN_RANK_SHARE) and size["A"][1] == pytest.approx(DRAWN_RANK_SHARE)
    assert widened == pytest.approx(DRAWN_RANK_SHARE / (16 / 4096))


@pytest.mark.parametrize("d_in, d_out, rank", [(4096, 4096, 8), (4096, 14336, 64), (14336, 4096, 4096), (768, 768, 768),
                                                (4096, 4096, 512)])
def test_every_layout_fits_its_frame(d_in, d_out, rank):
    boxes, widened = placed(d_in, d_out, rank)
    width, height = ADAPTER_FRAME
    assert all(0 <= x0 < x1 <= width + 1e-9 and 0 <= y0 < y1 <= height + 1e-9 for x0, x1, y0, y1 in boxes.values())
    drawn = sizes(boxes)["B"][0]
    assert DRAWN_RANK_SHARE - 1e-9 <= drawn <= DRAWN_RANK_MAX + 1e-9
    # Drawn to scale where r shows and fits (r = 512 of 4,096): the note then says so.
    assert (widened == 1) is (DRAWN_RANK_SHARE <= rank / max(d_in, d_out) <= DRAWN_RANK_MAX)
