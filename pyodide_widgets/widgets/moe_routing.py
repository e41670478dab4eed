"""Dense against mixture-of-experts.

Step through a sentence and see which experts each token goes to, with the
number of experts and of experts per token adjustable. The router is a
deterministic stand-in (estimators.route_tokens), not a trained one. Beside
it, total against active parameters on one scale: Mixtral 8x7B and
DeepSeek-V3 from their configurations, a Mixtral-shaped model with the
experts and top-k of the form, and a dense model of each one's active size.
The picture draws a dense block beside an MoE block (its router and a grid of
its experts, estimators.expert_cells) with the current token's path lit; Play
steps the sentence. The scale of total against active is folded under the outputs.
"""

import dataclasses

import estimators
from estimators import units

from ..contract import Output, choice, from_preset, preset, read, typed, whole

TITLE = "Dense against mixture-of-experts: what one token touches"
CHART = "moe_blocks"
# Under the outputs, folded: total against active parameters on one scale.
FOLDED_CHARTS = {"moe_params": "What each model stores against what one token uses"}

_PRESETS = estimators.load_presets()
_MOE = {key: m for key, m in _PRESETS.models.items() if isinstance(m.config, estimators.MoeConfig)}
# The two models the article compares, and the one whose shape the form's experts and top-k reshape.
COMPARED = ("mixtral-8x7b", "deepseek-v3")
SHAPE = "mixtral-8x7b"
# The sentence a reader steps through, one word a token (a real tokenizer would split some words).
SENTENCE = ("Experts", "share", "the", "work", "but", "each", "token", "meets", "only", "a", "few")
# The compared models do not change with the form: counted once, at import.
_COMPARED = {key: estimators.moe_params(_MOE[key].config) for key in COMPARED}
# As many routed experts as the largest preset has: a count past every model built is a typo.
_MAX_EXPERTS = max(m.config.routed_experts for m in _MOE.values())

FIELDS = (
    choice("token", "Token", {str(i): word for i, word in enumerate(SENTENCE)}, play=True),
    whole("experts", "Routed experts", unit="experts", max=_MAX_EXPERTS),
    whole("top_k", "Experts per token (top-k)", unit="experts", max=_MAX_EXPERTS),
)

OUTPUTS = (
    Output("route", "This token goes to", detail="route_note", of=estimators.route_tokens, uses=("token", "experts", "top_k")),
    Output("shaped", "A Mixtral-shaped model with these experts", detail="shaped_note", of=estimators.moe_params,
           uses=("experts", "top_k"), source=_MOE[SHAPE].source),
    Output("mixtral", _MOE["mixtral-8x7b"].name, detail="mixtral_note", of=estimators.moe_params,
           source=_MOE["mixtral-8x7b"].source),
    Output("deepseek", _MOE["deepseek-v3"].name, detail="deepseek_note", of=estimators.moe_params,
           source=_MOE["deepseek-v3"].source),
    Output("routes", "Every token", sentence=True, of=estimators.route_tokens, uses=("experts", "top_k")),
    Output("load", "The load", sentence=True, of=(estimators.Routing, "busiest"), uses=("experts", "top_k")),
)


def presets() -> dict:
    """The two compared models' own experts and top-k (the first is the default)."""
    return {
        key: preset(FIELDS, f"{_MOE[key].name}: {units.integer(_MOE[key].config.routed_experts)} experts, "
                            f"top-{units.integer(_MOE[key].config.top_k)}",
                    {"token": "0", "experts": from_preset(_MOE[key], "config.routed_experts"),
                     "top_k": from_preset(_MOE[key], "config.top_k")})
        for key in COMPARED
    }


def _experts(numbers) -> str:
    return ", ".join(str(n) for n in numbers)


def _params(p: estimators.MoeParams) -> str:
    return f"{units.count(p.total)} stored, {units.count(p.active)} per token"


def _rows(name: str, total: float, active: float, order: int) -> list:
    """Chart rows of one model: what it stores and what one token passes through."""
    return [
        {"model": name, "order": order, "part": "stored (total)", "params": total,
         "label": f"{name}: {units.count(total)} stored"},
        {"model": name, "order": order, "part": "used per token (active)", "params": active,
         "label": f"{name}: {units.count(active)} per token"},
    ]


def update(state: dict) -> dict:
    s = read(FIELDS, state)
    if s["top_k"] > s["experts"]:
        # Named on the field the reader set, in experts.
        if typed(FIELDS, presets(), state, ("top_k", "experts")) == "experts":
            raise estimators.EstimatorError("experts", state["experts"], (
                f"at least {units.integer(s['top_k'])} experts, as many as each token goes to"))
        raise estimators.EstimatorError("top_k", state["top_k"], (
            f"at most {units.integer(s['experts'])} experts, as many as there are"))
    routing = estimators.route_tokens(SENTENCE, s["experts"], s["top_k"])
    token = int(s["token"])
    shape = _MOE[SHAPE].config
    shaped = estimators.moe_params(dataclasses.replace(shape, routed_experts=s["experts"], top_k=s["top_k"]))
    outputs = {
        "route": f"“{SENTENCE[token]}” → expert{'s' if s['top_k'] > 1 else ''} {_experts(routing.choices[token])}",
        "route_note": f"{units.integer(s['top_k'])} of {units.integer(s['experts'])} experts; the others skip this token",
        "shaped": _params(shaped),
        "shaped_note": f"{units.percent(shaped.active_share)} of the weights work on each token",
        "routes": " · ".join(f"{word} → {_experts(c)}" for word, c in zip(SENTENCE, routing.choices)),
        "load": f"{units.integer(routing.used)} of the {units.integer(s['experts'])} experts receive a token; the "
                f"busiest receives {units.integer(routing.busiest)}, where an even spread would give each "
                f"{units.number(routing.even_load)}",
    }
    for key, out in (("mixtral-8x7b", "mixtral"), ("deepseek-v3", "deepseek")):
        p, c = _COMPARED[key], _MOE[key].config
        outputs[out] = _params(p)
        outputs[f"{out}_note"] = f"{units.integer(c.routed_experts)} routed experts, top-{units.integer(c.top_k)}" + (
            f", plus {units.integer(c.shared_experts)} shared" if c.shared_experts else "")
    outputs["summary"] = (
        f"{outputs['route']}. With {units.integer(s['experts'])} experts and top-{units.integer(s['top_k'])}: "
        f"{outputs['shaped']}."
    )
    # The form's model named by its experts alone ("8 experts, top-2"), short enough for a phone's column.
    rows = _rows(f"{units.integer(s['experts'])} experts, top-{units.integer(s['top_k'])}",
                 shaped.total, shaped.active, 0)
    # Under each compared model, a dense one of its active size: it stores no more than it uses.
    for i, key in enumerate(COMPARED, start=1):
        p = _COMPARED[key]
        rows += _rows(_MOE[key].name, p.total, p.active, 2 * i - 1)
        rows += _rows(f"Dense, {units.count(p.active)}", p.active, p.active, 2 * i)
    chosen = routing.choices[token]
    cells = [
        {"expert": c.expert, "x0": c.x0, "x1": c.x1, "y0": c.y0, "y1": c.y1, "lit": c.expert in chosen,
         "label": f"expert {units.integer(c.expert)}: " + (f"“{SENTENCE[token]}” goes here" if c.expert in chosen
                                                          else "skips this token")}
        for c in estimators.expert_cells(s["experts"])
    ]
    # Three lines (the figure breaks at "\n"): where the token goes, which token it is, how many experts skip it.
    path = [{"label": f"{outputs['route']}\ntoken {units.integer(token + 1)} of {units.integer(len(SENTENCE))}\n"
                      f"{outputs['route_note']}"}]
    return {"outputs": outputs, "data": {"params": rows, "experts": cells, "path": path}}
