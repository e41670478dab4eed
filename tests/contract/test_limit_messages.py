"""A value past a limit that depends on the other inputs is refused with that limit, in the field's
unit: "Must be less than 1e3 GPUs per layer: with the other inputs, this value takes the result out
of range" named neither the real limit nor why; "Must be less than 9 experts" not the 8 there are.

Each test checks the field named and the numbers the message gives against the limit computed from the
inputs, not the message's wording."""

import json
import re

import estimators
import pyodide_widgets
from pyodide_widgets import contract, dispatch

from .test_widget_contract import default_state


def _error(name: str, **fields) -> dict:
    state = {**default_state(name), **{key: str(value) for key, value in fields.items()}}
    return json.loads(dispatch.handle(json.dumps({"widget": name, "state": state})))["error"]


def _numbers(message: str, *names: str) -> list:
    """The whole numbers a message gives, in order, once the names it quotes (which may hold digits) are left out."""
    for name in names:
        message = message.replace(name, "")
    return [int(text.replace(",", "")) for text in re.findall(r"\d[\d,]*", message)]


def _field(widget: str, name: str):
    return next(f for f in pyodide_widgets.module(widget).FIELDS if f.name == name)


def test_a_tensor_parallel_size_that_splits_no_head_evenly_is_refused_with_the_sizes_that_do():
    widget = pyodide_widgets.module("memory_bill")
    model = widget._MODELS[default_state("memory_bill")["model"]]
    heads = model.config.heads
    for tp in (heads - 1, 1000):
        error = _error("memory_bill", tp=tp)
        divisors = [d for d in range(1, heads + 1) if heads % d == 0]
        assert error["field"] == "tp" and model.name in error["message"]
        # The head count, then every size that divides it: the limit and the values that meet it.
        assert _numbers(error["message"], model.name) == [heads, *divisors]


def test_more_pipeline_stages_than_layers_is_refused_with_the_layer_count():
    widget = pyodide_widgets.module("memory_bill")
    model = widget._MODELS[default_state("memory_bill")["model"]]
    layers = model.config.layers
    error = _error("memory_bill", pp=layers + 1)
    assert error["field"] == "pp" and model.name in error["message"]
    assert _numbers(error["message"], model.name) == [layers, layers]  # the limit, and the layers it comes from


def test_more_experts_per_token_than_experts_is_refused_with_the_experts_there_are():
    experts = int(default_state("moe_routing")["experts"])
    error = _error("moe_routing", top_k=experts + 1)
    assert error["field"] == "top_k" and _numbers(error["message"]) == [experts]
    # Fewer experts than the token goes to: the field the reader set is named.
    top_k = int(default_state("moe_routing")["top_k"])
    error = _error("moe_routing", experts=top_k - 1)
    assert error["field"] == "experts" and _numbers(error["message"]) == [top_k]


def test_a_count_without_a_unit_names_itself_in_its_limit():
    for widget, name in (("storage_scale", "checkpoints_kept"), ("finetune_fit", "rank")):
        field = _field(widget, name)
        message = _error(widget, **{name: field.max * 2})["message"]
        # The field's own range, and its label standing for the unit it has not got.
        assert field.label.lower() in message.lower()
        assert _numbers(message, field.label) == [field.min, field.max]


def test_a_lora_rank_wider_than_the_layer_is_refused_with_the_narrowest_width():
    widget = pyodide_widgets.module("finetune_fit")
    state = default_state("finetune_fit")
    config = widget._MODELS[state["model"]].config
    matrices = estimators.lora_adapted_matrices(config, contract.read(widget.FIELDS, state)["modules"])
    narrowest = min(min(shape) for shape in matrices.values())
    error = _error("finetune_fit", rank=narrowest + 1)
    assert error["field"] == "rank" and _numbers(error["message"]) == [narrowest]
