"""The worker's one entry point: JSON text in, JSON text out.

Strings cross the worker boundary instead of Python proxies, so nothing is
left for Pyodide's proxy registry to hold on to.

An error names the field it concerns, in the terms the reader sees. A widget
and its contract raise errors in those terms already; an estimator deep inside
`update` does not (it names its own quantities, "training_seconds", in SI), so
its error is put back on the field whose value took the result out of range.
"""

import json

from estimators.errors import EstimatorError

from . import compare, contract, module, provenance, take_away

ESTIMATORS = "estimators"


def handle(request: str) -> str:
    """{"widget", "state", "pinned"?} -> {"outputs", "data", "card_lines", "card_sources", "sources", "command",
    "pinned"?} or
    {"error": {"field", "message"}}.

    With a pinned state, "pinned" holds its outputs, each live output's difference from them and its
    chart's rows (`compare`), or its own {"error"}: a bad pinned state from a link is named, the live answer stays.
    """
    message = json.loads(request)
    widget = module(message["widget"])
    state, pinned = message["state"], message.get("pinned")
    try:
        live = compare.printed(widget, state) if pinned is not None else (widget.update(state), None)
        result = live[0]
        # Each field's card line once, and each card's sources: runtime.js writes the lines on the widget once.
        result["card_lines"], found = provenance.parts(widget, state)
        result["card_sources"] = {key: card.sources for key, card in found.items()}
        # And the list under the widget, which follows the state as the cards do.
        result["sources"] = provenance.listed(result["card_lines"], found)
        result["command"] = take_away.command(message["widget"], widget, state)
    except EstimatorError as error:
        return json.dumps({"error": _error(widget, state, error)}, allow_nan=False)
    if pinned is not None:
        try:
            result["pinned"] = compare.against(message["widget"], pinned, live)
        except EstimatorError as error:
            result["pinned"] = {"error": _error(widget, pinned, error)}
    return json.dumps(result, allow_nan=False)


def _error(widget, state: dict, error: EstimatorError) -> dict:
    """{"field", "message"}: the error in the reader's terms, on the field it concerns."""
    field, allowed = error.argument, error.allowed
    if _raised_by_an_estimator(error):
        field, allowed = _in_field_terms(widget, state, error)
    return {"field": field, "message": f"Must be {allowed}."}


def _raised_by_an_estimator(error: EstimatorError) -> bool:
    """Whether the `raise` was in the estimators package rather than in a widget or the contract."""
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_globals.get("__name__", "").split(".")[0] == ESTIMATORS


def _computes(widget, state: dict) -> bool:
    try:
        widget.update(state)
    except EstimatorError:
        return False
    return True


def _in_field_terms(widget, state: dict, error: EstimatorError) -> tuple:
    """(field name, what it must be) for an estimator's error: the field it names, or else the first
    field whose default value makes the rest compute; (None, ...) when no one field is to blame."""
    fields = {f.name: f for f in widget.FIELDS}
    named = fields.get(error.argument)
    if named is not None and named.kind == "whole" and error.value == contract.read([named], state)[named.name]:
        # The estimator refused a count the reader typed, as typed: its limit is already in the field's terms.
        return named.name, error.allowed
    default = next(iter(widget.presets().values()))["state"]
    culprit = named or next(
        (f for f in widget.FIELDS if _computes(widget, {**state, f.name: contract.form_text(f, default[f.name])})),
        None,
    )
    if culprit is None:
        return None, "inputs that together give a result in range; these take it out of range"
    return culprit.name, _other_value(culprit, state[culprit.name], default[culprit.name])


def _other_value(field: contract.Field, raw, default) -> str:
    """What the field must be instead, in its own units and labels: "more than 1e-300 % of peak: …"."""
    why = "with the other inputs, this value takes the result out of range"
    if field.kind in ("number", "whole"):
        value = contract.parse_number(field.name, raw)
        direction = "more" if value < contract.parse_number(field.name, default) else "less"
        unit = f" {field.unit}" if field.unit else ""
        return f"{direction} than {str(raw).strip()}{unit}: {why}"
    if field.kind == "choice":
        return f"an option other than {field.label_of(raw)}: {why}"
    return f"another choice: {why}"
