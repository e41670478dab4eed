"""A card shows each formula as its estimator declares it (estimators.provenance): the first paragraph
of an estimator's docstring, or a result field's note. A reader reads words and symbols there, never
the code's names for things (`window_s`, `gemm_seconds`): this holds every declaration the cards read."""

import dataclasses
import importlib
import inspect
import pkgutil
import re

import pytest

import estimators
from estimators import provenance

# A code name: two or more letters, an underscore, more (gpu_hours, six_n_causal). A paper's
# subscripted symbol (r_q, h_nope, d_qk) starts with one letter and reads as the paper writes it.
CODE_NAME = re.compile(r"(?<![\w.])[a-z]{2,}_\w+")


def declared_notes() -> list:
    """(where, text) of every result field's note in the estimators' modules."""
    notes = []
    for info in pkgutil.iter_modules(estimators.__path__):
        module = importlib.import_module(f"estimators.{info.name}")
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls):
                for f in dataclasses.fields(cls):
                    declared = f.metadata.get("quantity")
                    if declared is not None and declared.note:
                        notes.append((f"{cls.__name__}.{f.name}", declared.note))
    return notes


def estimator_formulas() -> list:
    formulas = [provenance.formula_of(getattr(estimators, name)) for name in estimators.ESTIMATORS]
    return [(formula.declared_in, formula.text) for formula in formulas if formula is not None]


def test_the_regex_tells_a_code_name_from_a_papers_symbol():
    assert CODE_NAME.search("saves × sync_s") and CODE_NAME.search("gpu_hours_ GPU-hours")
    assert not CODE_NAME.search("r_q, rank of the query bottleneck; 3·s·L·H·(d_qk + d_v)")


@pytest.mark.parametrize("source", [declared_notes, estimator_formulas])
def test_no_formula_a_card_shows_names_a_variable_of_the_code(source):
    declared = source()
    assert len(declared) > 50
    assert [(where, text[:120]) for where, text in declared if CODE_NAME.search(text)] == []
