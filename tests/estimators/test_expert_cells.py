"""The experts of a layer drawn as a grid: one cell each, square, none overlapping, within the grid."""

import pytest

import estimators
from estimators import EstimatorError


@pytest.mark.parametrize("experts, rows", [(1, 1), (8, 1), (16, 1), (17, 2), (256, 16)])
def test_every_expert_has_one_square_cell_in_its_row(experts, rows):
    cells = estimators.expert_cells(experts)
    assert [c.expert for c in cells] == list(range(1, experts + 1))
    assert all(c.x1 - c.x0 == pytest.approx(c.y1 - c.y0) for c in cells)
    assert len({c.y0 for c in cells}) == rows
    assert len({(c.x0, c.y0) for c in cells}) == experts  # no two in one place
    assert all(0 <= c.x0 < c.x1 <= 1 + 1e-12 for c in cells)


def test_a_bad_count_is_named():
    with pytest.raises(EstimatorError) as error:
        estimators.expert_cells(0)
    assert error.value.argument == "experts"
