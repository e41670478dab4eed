"""Every widget answers the extremes of each field's valid range
readably: outputs a reader can take in, or an error beside the field that
caused it, in its own units, never naming an estimator's internal quantity.

Run for every widget found, with no test written for any one of them.
"""

import json
import math
import re

import pytest

import estimators
import pyodide_widgets
from pyodide_widgets import contract, dispatch

from .test_widget_contract import GARBAGE, default_state

# "1.16e302 days", "16,384 × NVIDIA H100 SXM BF16 989.0 TFLOP/s = 16.2 EFLOP/s peak": no output line
# is longer than a sentence; a 309-digit duration is.
LONGEST_FIGURE = 40
# An identifier of code (training_seconds, peak_flops_per_gpu): never in a message to a reader.
IDENTIFIER = re.compile(r"\b[a-z]+_[a-z_]+\b")


def extremes(field: contract.Field) -> list:
    """Valid values at the edges of a field's range, as a reader could type them."""
    low = [contract.form_text(field, field.min)] if field.min is not None else ["5e-324", "1e-300", "1e-30"]
    high = [contract.form_text(field, field.max)] if math.isfinite(field.max) else ["1e300"]
    return low + high


CASES = [
    (name, field, text)
    for name in pyodide_widgets.WIDGETS
    for field in pyodide_widgets.module(name).FIELDS
    if field.kind in ("number", "whole")
    for text in extremes(field)
]


@pytest.mark.parametrize("name, field, text", CASES, ids=lambda v: getattr(v, "name", v))
def test_an_extreme_valid_value_gives_readable_outputs_or_an_error_beside_its_field(name, field, text):
    widget = pyodide_widgets.module(name)
    reply = json.loads(dispatch.handle(json.dumps({"widget": name, "state": {**default_state(name), field.name: text}})))
    if "error" in reply:
        error = reply["error"]
        assert error["field"] in {f.name for f in widget.FIELDS}, error
        assert error["message"].startswith("Must be") and not IDENTIFIER.search(error["message"]), error
        culprit = next(f for f in widget.FIELDS if f.name == error["field"])
        assert culprit.unit in error["message"], error
        return
    figures = {o.key for o in widget.OUTPUTS if not o.sentence and not o.detail}
    for key, shown in reply["outputs"].items():
        assert not GARBAGE.search(shown), (key, shown)
        if key in figures:
            assert len(shown) <= LONGEST_FIGURE, (key, shown)


def test_a_value_that_once_overflowed_an_estimator_is_refused_by_its_fields_own_limit():
    """mfu = 1e-300 % once named "training_seconds" in the status line, then "more than 1e-310 % of peak: with the
    other inputs, this value takes the result out of range"; the field's minimum now refuses it, in its unit."""
    mfu = next(f for f in pyodide_widgets.module("training_time").FIELDS if f.name == "mfu")
    for text in ("1e-310", "5e-324"):
        state = {**default_state("training_time"), "mfu": text}
        reply = json.loads(dispatch.handle(json.dumps({"widget": "training_time", "state": state})))
        error = reply["error"]
        # The field, and its own range in the form's text and unit, the lower end first.
        low, high = contract.form_text(mfu, mfu.min), contract.form_text(mfu, mfu.max)
        assert error["field"] == "mfu" and mfu.unit in error["message"]
        assert 0 <= error["message"].find(low) < error["message"].find(high), error["message"]


def test_a_widgets_own_error_keeps_its_message():
    state = {**default_state("training_time"), "gpu": "a100-sxm", "precision": "fp8"}
    reply = json.loads(dispatch.handle(json.dumps({"widget": "training_time", "state": state})))
    assert reply["error"]["field"] == "precision"
    # It names the GPU and the precisions it has a dense peak for, and not the one asked for.
    gpu = estimators.load_presets().gpu(state["gpu"])
    labels = dict(next(f for f in pyodide_widgets.module("training_time").FIELDS if f.name == "precision").options)
    message = reply["error"]["message"]
    assert gpu.name in message and all(labels[p] in message for p in gpu.peak_flops), message
    assert labels[state["precision"]] not in message.replace(gpu.name, "")
