"""The memory bill's picture: eight data-parallel GPUs drawn one by one, then one column for the rest."""

import pytest

from estimators import EstimatorError
from pyodide_widgets.widgets import memory_bill


@pytest.mark.parametrize("gpus, firsts, counts", [(1, [1], [1]), (8, list(range(1, 9)), [1] * 8),
                                                  (9, list(range(1, 10)), [1] * 9),
                                                  (1024, list(range(1, 10)), [1] * 8 + [1016])])
def test_the_picture_draws_eight_gpus_then_one_column_for_the_rest(gpus, firsts, counts):
    columns = memory_bill.data_parallel_columns(gpus)
    assert [c.first for c in columns] == firsts and [c.gpus for c in columns] == counts
    assert sum(c.gpus for c in columns) == gpus


def test_no_gpus_is_named():
    with pytest.raises(EstimatorError) as error:
        memory_bill.data_parallel_columns(0)
    assert error.value.argument == "gpus"
