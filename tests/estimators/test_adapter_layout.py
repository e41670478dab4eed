"""The LoRA adapter drawn at its layer's true shapes: W d × k, B d × r, A r × k, r widened only as
far as it must be to show, and the whole inside its frame."""

import pytest

import estimators
from estimators import EstimatorError
from estimators.finetune import ADAPTER_FRAME, DRAWN_RANK_MAX, DRAWN_RANK_SHARE


def sizes(layout):
    return {b.name: (b.x1 - b.x0, b.y1 - b.y0) for b in layout.boxes}


def test_the_matrices_keep_their_true_shapes_and_b_times_a_spans_w():
    # Llama 3 8B's k projection: 4,096 in, 1,024 out (grouped-query attention), at rank 16.
    layout = estimators.lora_adapter_layout(4096, 1024, 16)
    size = sizes(layout)
    assert size["W"] == pytest.approx((1.0, 0.25))  # k = 4,096 columns, d = 1,024 rows
    assert size["B"][1] == size["W"][1] and size["A"][0] == size["W"][0]
    assert [(b.rows, b.columns) for b in layout.boxes] == [(1024, 4096), (1024, 16), (16, 4096)]
    # r = 16 of 4,096 is drawn at the narrowest share, and the layout says how much wider than life.
    assert size["B"][0] == pytest.approx(DRAWN_RANK_SHARE) and size["A"][1] == pytest.approx(DRAWN_RANK_SHARE)
    assert layout.rank_widened == pytest.approx(DRAWN_RANK_SHARE / (16 / 4096))


@pytest.mark.parametrize("d_in, d_out, rank", [(4096, 4096, 8), (4096, 14336, 64), (14336, 4096, 4096), (768, 768, 768)])
def test_every_layout_fits_its_frame(d_in, d_out, rank):
    layout = estimators.lora_adapter_layout(d_in, d_out, rank)
    assert layout.width <= ADAPTER_FRAME[0] + 1e-12 and layout.height <= ADAPTER_FRAME[1] + 1e-12
    assert all(0 <= b.x0 < b.x1 <= layout.width and 0 <= b.y0 < b.y1 <= layout.height for b in layout.boxes)
    assert sizes(layout)["B"][0] <= DRAWN_RANK_MAX


def test_a_rank_wider_than_the_layer_is_refused_by_name():
    with pytest.raises(EstimatorError) as error:
        estimators.lora_adapter_layout(4096, 1024, 2048)
    assert error.value.argument == "rank"
