"""Every number a widget's form takes has a smallest meaningful value, and a value below it is
refused beside its field, in the field's units, in the form and on the command line alike: a
subnormal 1e-320 once printed "9.36e-298 FLOPs" as if it were an answer.

Run for every number field found, with no test written for any one widget.
"""

import contextlib
import io
import math

import pytest

import pyodide_widgets
from estimators import units
from estimators.errors import EstimatorError
from pyodide_widgets import contract
from pyodide_widgets.__main__ import main
from pyodide_widgets.take_away import option

from .test_widget_contract import default_state

NUMBERS = [
    (name, field)
    for name in pyodide_widgets.WIDGETS
    for field in pyodide_widgets.module(name).FIELDS
    if field.kind in ("number", "whole")
]


def _below(field) -> list:
    """Values under the field's minimum, as a reader could type them: a subnormal, and a tenth of it."""
    return ["1e-320", contract.form_text(field, field.min / 10)]


@pytest.mark.parametrize("name, field", NUMBERS, ids=lambda v: getattr(v, "name", v))
def test_a_value_below_the_fields_meaningful_minimum_is_refused_in_its_units(name, field):
    widget = pyodide_widgets.module(name)
    assert field.min is not None and 0 < field.min < field.max, f"{name}.{field.name} declares no minimum"
    for text in _below(field):
        with pytest.raises(EstimatorError) as refused:
            contract.read(widget.FIELDS, {**default_state(name), field.name: text})
        assert refused.value.argument == field.name
        limits = refused.value.allowed
        assert f"from {units.plain(field.min)} to " in limits or f"of {units.plain(field.min)} or more" in limits
        assert limits.endswith(field.unit or f"({contract.in_a_sentence(field.label)})"), limits


@pytest.mark.parametrize("name, field", [(n, f) for n, f in NUMBERS if f.kind == "number"],
                         ids=lambda v: getattr(v, "name", v))
def test_the_command_line_refuses_a_subnormal_number_by_its_option(name, field):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main([name, option(field), "1e-320"])
    assert status == 2 and option(field) in err.getvalue() and f"from {units.plain(field.min)} to" in err.getvalue()


@pytest.mark.parametrize("name, field", NUMBERS, ids=lambda v: getattr(v, "name", v))
def test_the_fields_minimum_itself_is_read(name, field):
    widget = pyodide_widgets.module(name)
    read = contract.read(widget.FIELDS, {**default_state(name), field.name: contract.form_text(field, field.min)})
    assert math.isclose(read[field.name], field.min * field.scale)
