"""The precision widget: what it prints is the format estimator's, and a value the format cannot hold, or no
number at all, is refused beside the value's field with the format's own limits."""

import json

import pytest

import estimators
from estimators import units
from estimators.number_formats import NUMBER_FORMATS
from pyodide_widgets import dispatch
from pyodide_widgets.widgets import number_line

from .test_widget_contract import default_state


def _answer(**fields) -> dict:
    state = {**default_state("number_line"), **fields}
    return json.loads(dispatch.handle(json.dumps({"widget": "number_line", "state": state})))


@pytest.mark.parametrize("key", list(number_line.presets()))
def test_the_stored_value_its_neighbours_and_its_bits_are_the_estimators(key):
    state = number_line.presets()[key]["state"]
    value = float(state["value"])
    rounded = number_line._round(value, state["format"], float(state["block_others"]))
    result = number_line.update(state)
    assert result["outputs"]["stored"] == units.apart(rounded.rounded, value)
    assert result["outputs"]["neighbours"] == f"{units.apart(rounded.below, rounded.rounded)} and {units.apart(rounded.above, rounded.rounded)}"
    assert "".join(row["bit"] for row in result["data"]["bits"]) == rounded.bits
    stored = [row for row in result["data"]["near"] if row["kind"] == "stored"]
    assert [row["at"] for row in stored] == [rounded.rounded]
    assert [row["picked"] for row in result["data"]["formats"]].count(True) == 1


@pytest.mark.parametrize("fmt, text", [("fp16", "1e5"), ("fp8_e5m2", "61440"), ("fp16", "NaN"), ("bf16", "one")])
def test_a_value_the_format_cannot_hold_is_refused_with_the_formats_limits(fmt, text):
    error = _answer(format=fmt, value=text)["error"]
    figures = estimators.number_format_figures(fmt)
    assert error["field"] == "value"
    assert units.number(figures.largest) in error["message"] and units.number(figures.smallest_subnormal) in error["message"]


def test_a_value_past_a_saturating_formats_largest_is_stored_as_it_and_said_so():
    outputs = _answer(format="fp8_e4m3", value="1e6")["outputs"]
    assert outputs["stored"] == units.apart(estimators.number_format_figures("fp8_e4m3").largest, 1e6)
    assert units.number(448) in outputs["error"]  # its largest, OCP OFP8 table 1


@pytest.mark.parametrize("fmt, gpu", [("int8", "h100-sxm"), ("nvfp4", "b200"), ("mxfp6", "gb200"), ("nvfp4", "h100-sxm")])
def test_the_gpus_peak_for_a_format_is_the_one_its_vendor_lists_or_the_list_is_named(fmt, gpu):
    """INT8 on the H100 and FP4 and FP6 on Blackwell are the datasheets' dense peaks; Hopper has no FP4, and
    the answer then names the precisions the GPU does list rather than print a number."""
    entry = estimators.load_presets().gpu(gpu)
    outputs = _answer(format=fmt, gpu=gpu)["outputs"]
    precision = NUMBER_FORMATS[fmt].multiplies_in
    if precision in entry.peak_flops:
        assert outputs["peak"] == units.si(entry.peak_flops[precision], "FLOP/s")
    else:
        assert (fmt, gpu) == ("nvfp4", "h100-sxm")
        assert all(p.upper() in outputs["peak_note"] for p in entry.peak_flops), outputs["peak_note"]
