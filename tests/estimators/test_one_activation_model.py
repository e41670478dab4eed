"""One activation model: the memory bill, the planner and the block count itself give one answer for one run.

The attention kernel (FlashAttention or unfused) and recomputation are inputs, not a difference between estimators:
asked the same, Llama 3 8B at 8K tokens, TP 1, on every recomputation, each returns the same bytes.
"""

import pytest

import estimators
from estimators import memory, planner
from estimators.step_time import shape_of

PRESETS = estimators.load_presets()
LLAMA3_8B = PRESETS.model("llama3-8b").config
SEQ = 8192


def _bill(recompute, attention):
    return estimators.memory_bill(LLAMA3_8B, gpus=8, zero_stage=0, optimizer="adam", seq_len=SEQ, micro_batch=1,
                                  recompute=recompute, tp=1, gpu_memory_bytes=PRESETS.gpu("h100-sxm").memory_bytes,
                                  attention=attention).memory.activations


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
def test_the_memory_bill_and_the_planner_give_one_answer_under_flash_attention(recompute):
    # The planner counts FlashAttention's activations: the bill asked for FlashAttention gives the same bytes.
    planned = planner._activations(LLAMA3_8B, 1, 1, 1, seq_len=SEQ, recompute=recompute, b=1)
    model = memory.model_activation_bytes(LLAMA3_8B, SEQ, 1, 1, sequence_parallel=True, recompute=recompute,
                                          attention="flash")
    assert _bill(recompute, "flash") == pytest.approx(planned, rel=1e-12) == pytest.approx(model, rel=1e-12)


@pytest.mark.parametrize("attention", ["flash", "unfused"])
def test_one_layer_of_the_korthikanti_form_is_a_block_of_the_model(attention):
    # The per-layer form (width, heads, MLP) and the model's block are one count.
    c = LLAMA3_8B
    layer = memory.activation_bytes_per_layer(SEQ, 1, c.d_model, c.heads, kv_heads=c.kv_heads, ffn_dim=c.ffn_dim,
                                              mlp=c.mlp, dropout=c.dropout, attention=attention)
    block = memory.block_activation_bytes(shape_of(c), SEQ, SEQ, attention=attention)
    assert layer == pytest.approx(block, rel=1e-12)


def test_the_two_kernels_differ_by_the_scores_the_silu_output_and_the_log_sum_exp():
    # Unfused attention keeps the softmax output (2 bytes a score, H·s² a layer; Llama 3 trains without dropout) and
    # the SiLU output (2 bytes per F); FlashAttention keeps its FP32 log-sum-exp (4 bytes a head) instead.
    c = LLAMA3_8B
    per_layer = SEQ * (2 * c.heads * SEQ + 2 * c.ffn_dim - 4 * c.heads)
    assert not c.dropout
    assert _bill("none", "unfused") - _bill("none", "flash") == pytest.approx(c.layers * per_layer, rel=1e-12)
    # Selective recomputation drops the unfused scores, which FlashAttention never keeps.
    assert _bill("selective", "unfused") - _bill("selective", "flash") == pytest.approx(
        c.layers * SEQ * (2 * c.ffn_dim - 4 * c.heads), rel=1e-12)
