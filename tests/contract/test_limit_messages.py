"""A value past a limit that depends on the other inputs is refused with that limit, in the field's
unit: "Must be less than 1e3 GPUs per layer: with the other inputs, this value takes the result out
of range" named neither the real limit nor why; "Must be less than 9 experts" not the 8 there are."""

import json

import estimators
import pyodide_widgets
from estimators import units
from pyodide_widgets import contract, dispatch

from .test_widget_contract import default_state


def _error(name: str, **fields) -> dict:
    state = {**default_state(name), **{key: str(value) for key, value in fields.items()}}
    return json.loads(dispatch.handle(json.dumps({"widget": name, "state": state})))["error"]


def _or(values) -> str:
    texts = [units.integer(v) for v in values]
    return ", ".join(texts[:-1]) + f" or {texts[-1]}" if len(texts) > 1 else texts[0]


def test_a_tensor_parallel_size_that_splits_no_head_evenly_is_refused_with_the_sizes_that_do():
    widget = pyodide_widgets.module("memory_bill")
    model = widget._MODELS[default_state("memory_bill")["model"]]
    heads = model.config.heads
    for tp in (heads - 1, 1000):
        error = _error("memory_bill", tp=tp)
        divisors = [d for d in range(1, heads + 1) if heads % d == 0]
        assert error["field"] == "tp"
        assert error["message"] == (f"Must be a divisor of {model.name}'s {units.integer(heads)} attention heads: "
                                    f"{_or(divisors)} GPUs per layer.")


def test_more_pipeline_stages_than_layers_is_refused_with_the_layer_count():
    widget = pyodide_widgets.module("memory_bill")
    model = widget._MODELS[default_state("memory_bill")["model"]]
    layers = model.config.layers
    error = _error("memory_bill", pp=layers + 1)
    assert error["field"] == "pp"
    assert error["message"] == f"Must be at most {units.integer(layers)} stages, one layer each: {model.name} has {units.integer(layers)} layers."


def test_more_experts_per_token_than_experts_is_refused_with_the_experts_there_are():
    experts = int(default_state("moe_routing")["experts"])
    error = _error("moe_routing", top_k=experts + 1)
    assert error == {"field": "top_k", "message": f"Must be at most {units.integer(experts)} experts, as many as there are."}
    # Fewer experts than the token goes to: the field the reader set is named.
    top_k = int(default_state("moe_routing")["top_k"])
    error = _error("moe_routing", experts=top_k - 1)
    assert error == {"field": "experts", "message": f"Must be at least {units.integer(top_k)} experts, as many as each token goes to."}


def test_a_count_without_a_unit_names_itself_in_its_limit():
    assert _error("storage_scale", checkpoints_kept=2e6)["message"] == "Must be a whole number from 1 to 1,000,000 (checkpoints kept)."
    assert _error("finetune_fit", rank=2e5)["message"] == "Must be a whole number from 1 to 100,000 (LoRA rank r)."


def test_a_lora_rank_wider_than_the_layer_is_refused_with_the_narrowest_width():
    widget = pyodide_widgets.module("finetune_fit")
    state = default_state("finetune_fit")
    config = widget._MODELS[state["model"]].config
    matrices = estimators.lora_adapted_matrices(config, contract.read(widget.FIELDS, state)["modules"])
    narrowest = min(min(shape) for shape in matrices.values())
    error = _error("finetune_fit", rank=narrowest + 1)
    assert error == {"field": "rank", "message": f"Must be at most {units.integer(narrowest)}, the narrowest adapted width."}
