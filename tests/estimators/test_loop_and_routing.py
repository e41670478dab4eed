"""The training loop's stations (estimators.loop) and the stand-in router (estimators.moe.route_tokens)."""

import pytest

from estimators import EstimatorError, load_presets, loop_costs, route_tokens, training_flops_with_attention

PRESETS = load_presets()
GPT2 = PRESETS.model("gpt2-124m").config  # openai-community/gpt2 config.json: L 12, H 12, d 768, V 50,257


def test_stations_add_up_to_palm_appendix_b_per_token():
    # PaLM appendix B: 6N + 12·L·H·Q·T FLOPs per token; GPT-2 at its 1,024 tokens, Q = 768 / 12 = 64.
    c = loop_costs(GPT2, 1024)
    per_token = c.forward_flops + c.forward_attention_flops + c.backward_flops + c.backward_attention_flops
    assert per_token == training_flops_with_attention(c.params, 1, 12, 12, 64, 1024)
    assert c.params == 124_439_808
    assert c.forward_flops == 2 * 124_439_808 and c.backward_flops == 4 * 124_439_808  # Kaplan et al. 2020, §2.1
    # The attention term splits as the weights' do: a third forward, two thirds backward.
    assert c.forward_attention_flops == 4 * 12 * 12 * 64 * 1024
    assert c.backward_attention_flops == 8 * 12 * 12 * 64 * 1024
    assert c.attention_share == pytest.approx(12 * 12 * 12 * 64 * 1024 / (6 * 124_439_808 + 12 * 12 * 12 * 64 * 1024))


def test_logits_are_the_output_layer_and_the_optimizer_touches_the_whole_state():
    c = loop_costs(GPT2, 1024)
    assert c.logits_flops == 2 * 768 * 50_257  # d × V weights, a multiply and an add each
    assert c.vocab == 50_257
    assert c.optimizer_bytes == 16 * 124_439_808  # ZeRO §3.1: 2 + 2 + 4 + 4 + 4 bytes per parameter
    assert loop_costs(GPT2, 1024, "sgd").optimizer_bytes == 8 * 124_439_808


def test_attention_share_grows_with_the_sequence():
    assert loop_costs(GPT2, 4096).attention_share > loop_costs(GPT2, 1024).attention_share


def test_bad_sequence_length_is_named():
    with pytest.raises(EstimatorError) as error:
        loop_costs(GPT2, 0)
    assert error.value.argument == "seq_len"


def test_router_sends_each_token_to_k_distinct_experts_the_same_every_time():
    words = ("The", "cat", "sat", "on", "the", "mat")
    r = route_tokens(words, 8, 2)
    assert all(len(set(c)) == 2 and all(1 <= e <= 8 for e in c) for c in r.choices)
    assert r.choices[0] == r.choices[4]  # "The" and "the": one token text, one route
    assert r == route_tokens(words, 8, 2)
    assert sum(r.load) == 2 * len(words) and len(r.load) == 8
    assert r.even_load == 2 * 6 / 8 and r.busiest == max(r.load) and r.used == sum(1 for t in r.load if t)


def test_router_with_every_expert_picked_uses_them_all():
    r = route_tokens(("a", "b"), 4, 4)
    assert all(sorted(c) == [1, 2, 3, 4] for c in r.choices)
    assert r.load == (2, 2, 2, 2)


@pytest.mark.parametrize("experts, top_k, argument", [(4, 5, "top_k"), (0, 1, "experts"), (4, 0, "top_k")])
def test_router_bad_input_is_named(experts, top_k, argument):
    with pytest.raises(EstimatorError) as error:
        route_tokens(("a",), experts, top_k)
    assert error.value.argument == argument
