"""The training loop, station by station, for one dense model.

Each station's cost per token (forward 2N, backward 4N, each with its share of
the attention term) and what the optimizer step touches once per step, from
estimators.loop_costs. The diagram of the four stations is drawn at build time
by figures/training_loop.py; the picked station is highlighted in it.
"""

import estimators
from estimators import loop, memory, units

from ..contract import Output, choice, from_entry, from_preset, model_choice, preset, read, whole

TITLE = "One step of the training loop"
TEMPLATE = "training_loop.html"

_PRESETS = estimators.load_presets()
# Dense decoders only: the attention term needs one head width for queries and keys, which MLA has not.
_MODELS = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.DecoderConfig)}

FIELDS = (
    choice("station", "Station", loop.STATIONS, play=True),
    model_choice("model", "Model", _MODELS),
    whole("seq_len", "Sequence length", unit="tokens", max=1e7),  # past any context window
    choice("optimizer", "Optimizer", memory.OPTIMIZERS),
)
# Beside the picture (the station the picture lights, and the model whose costs it gives); the rest under "More inputs".
MAIN = ("station", "model")

_SHAPE = ("model", "seq_len")
_COSTS = estimators.LoopCosts

OUTPUTS = (
    Output("forward", "Forward pass, per token", detail="forward_attention", of=(_COSTS, "forward_flops"), uses=_SHAPE),
    Output("loss", "Loss, per token", detail="loss_logits", of=(_COSTS, "logits_flops"), uses=("model",)),
    Output("backward", "Backward pass, per token", detail="backward_attention", of=(_COSTS, "backward_flops"), uses=_SHAPE),
    Output("optimizer", "Optimizer step, once per step", detail="optimizer_parts", of=(_COSTS, "optimizer_bytes"),
           uses=("model", "optimizer")),
    Output("per_token", sentence=True, of=estimators.loop_costs, uses=_SHAPE),
)


def presets() -> dict:
    """One starting state per training setup's model and sequence length (the first is the default)."""
    return {
        key: preset(FIELDS, f"{_MODELS[setup.model].name}, {units.integer(setup.seq_len)} tokens", {
            "station": next(iter(loop.STATIONS)), "model": from_entry(_MODELS[setup.model]),
            "seq_len": from_preset(setup, "seq_len"), "optimizer": from_preset(setup, "optimizer"),
        })
        for key, setup in _PRESETS.setups.items()
    }


def _flops(value: float) -> str:
    return f"{units.count(value)} FLOPs"


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    model = _MODELS[s["model"]]
    c = estimators.loop_costs(model.config, s["seq_len"], s["optimizer"])
    parts = c.optimizer_state
    k = estimators.compute_constants()
    outputs = {
        # The weights' cost alone: attention's is the detail's, added to it, never inside it.
        "forward": f"{_flops(c.forward_flops)} for the weights",
        "forward_attention": f"{k.forward} × {units.count(c.params)} parameters; attention over {units.integer(c.seq_len)} "
                             f"tokens adds {_flops(c.forward_attention_flops)}",
        "loss": f"{units.integer(c.vocab)} logits",
        "loss_logits": f"scored against the one true next token; the output layer that makes them costs "
                       f"{_flops(c.logits_flops)}, part of the forward pass",
        "backward": f"{_flops(c.backward_flops)} for the weights",
        "backward_attention": f"{k.backward} × {units.count(c.params)} parameters; attention adds "
                              f"{_flops(c.backward_attention_flops)}",
        "optimizer": f"{units.bytes_(c.optimizer_bytes)} touched",
        "optimizer_parts": f"{units.number(parts.total)} bytes per parameter: weights {units.plain(parts.weights)}, "
                           f"gradients {units.plain(parts.gradients)}, master weights {units.plain(parts.master)}, "
                           f"moments {units.plain(parts.momentum)} + {units.plain(parts.variance)}",
    }
    outputs["per_token"] = (
        f"One token of training costs {_flops(c.forward_flops + c.forward_attention_flops + c.backward_flops + c.backward_attention_flops)} "
        f"for {model.name} at {units.integer(c.seq_len)} tokens a sequence; attention is "
        f"{units.percent(c.attention_share)} of it."
    )
    outputs["summary"] = f"{loop.STATIONS[s['station']]}. {outputs['per_token']}"
    return {"outputs": outputs, "data": {}}
