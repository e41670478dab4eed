"""Training compute.

C = 6 N D (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", §2.1):
each parameter costs 2 FLOPs per token in the forward pass (a multiply and an
add) and 4 in the backward pass (gradients with respect to activations and to
weights), so 6 FLOPs per parameter per token.

The attention term (Chowdhery et al. 2022, "PaLM", appendix B) adds the
score and value matmuls that 6N leaves out: 12·L·H·Q·T FLOPs per token for L
layers, H heads of size Q and a sequence of T tokens.

The compute-optimal split by the 20-tokens rule follows Hoffmann et al. 2022
("Training Compute-Optimal Large Language Models", Chinchilla), whose Table 3
puts the optimal D near 20·N; the fitted loss laws are in `scaling`.
"""

import math
from dataclasses import dataclass

from .provenance import quantity
from .validate import finite_result, positive, positive_int

FORWARD_FLOPS_PER_PARAM_TOKEN = 2
BACKWARD_FLOPS_PER_PARAM_TOKEN = 4
TRAINING_FLOPS_PER_PARAM_TOKEN = FORWARD_FLOPS_PER_PARAM_TOKEN + BACKWARD_FLOPS_PER_PARAM_TOKEN
# PaLM appendix B: 6 (forward 2 + backward 4) × 2 attention matmuls (Q·Kᵀ and scores·V).
ATTENTION_FLOPS_FACTOR = 12
# Hoffmann et al. 2022, Table 3: 400M → 8.0B tokens … 1T → 21.2T tokens.
CHINCHILLA_TOKENS_PER_PARAM = 20


@dataclass(frozen=True)
class ComputeConstants:
    forward: int = quantity("FLOPs per parameter per token, forward pass")
    backward: int = quantity("FLOPs per parameter per token, backward pass")
    training: int = quantity("forward + backward: the 6 of C = 6ND")
    attention: int = quantity("the 12 of 12·L·H·Q·T (PaLM appendix B)")
    chinchilla_tokens_per_param: int = quantity("compute-optimal D / N (Hoffmann et al. 2022, Table 3)")


def compute_constants() -> ComputeConstants:
    """The constants of this module's formulas, for a page that shows them: 2, 4, 6, 12 and 20."""
    return ComputeConstants(
        FORWARD_FLOPS_PER_PARAM_TOKEN,
        BACKWARD_FLOPS_PER_PARAM_TOKEN,
        TRAINING_FLOPS_PER_PARAM_TOKEN,
        ATTENTION_FLOPS_FACTOR,
        chinchilla_tokens_per_param=CHINCHILLA_TOKENS_PER_PARAM,
    )


def training_flops(params: float, tokens: float) -> float:
    """C = 6·N·D, in FLOPs, for N parameters trained on D tokens."""
    n = positive("params", params)
    d = positive("tokens", tokens)
    return finite_result("training_flops", TRAINING_FLOPS_PER_PARAM_TOKEN * n * d)


def forward_flops_per_token(params: float) -> float:
    """2·N FLOPs per token for the forward pass."""
    return FORWARD_FLOPS_PER_PARAM_TOKEN * positive("params", params)


def backward_flops_per_token(params: float) -> float:
    """4·N FLOPs per token for the backward pass."""
    return BACKWARD_FLOPS_PER_PARAM_TOKEN * positive("params", params)


def attention_flops_per_token(layers: int, heads: int, head_dim: int, seq_len: int) -> float:
    """12·L·H·Q·T FLOPs per token of training for attention scores and values (PaLM appendix B)."""
    return float(
        ATTENTION_FLOPS_FACTOR
        * positive_int("layers", layers)
        * positive_int("heads", heads)
        * positive_int("head_dim", head_dim)
        * positive_int("seq_len", seq_len)
    )


def training_flops_with_attention(
    params: float, tokens: float, layers: int, heads: int, head_dim: int, seq_len: int
) -> float:
    """C = D·(6N + 12·L·H·Q·T) FLOPs: 6ND plus the attention term of PaLM appendix B."""
    per_token = TRAINING_FLOPS_PER_PARAM_TOKEN * positive("params", params) + attention_flops_per_token(
        layers, heads, head_dim, seq_len
    )
    return finite_result("training_flops", positive("tokens", tokens) * per_token)


def tokens_per_param(params: float, tokens: float) -> float:
    """D / N, the ratio Chinchilla puts near 20 for a compute-optimal run."""
    return positive("tokens", tokens) / positive("params", params)


def compute_optimal(flops: float, tokens_per_param: float = CHINCHILLA_TOKENS_PER_PARAM) -> tuple:
    """(N, D) that spend C FLOPs with D = r·N (r = 20 by default).

    C = 6·N·(r·N), so N = √(C / 6r) parameters and D = r·N tokens.
    """
    c = positive("flops", flops)
    r = positive("tokens_per_param", tokens_per_param)
    n = math.sqrt(c / (TRAINING_FLOPS_PER_PARAM_TOKEN * r))
    return n, r * n


def optimal_training_flops(params: float, optimal_tokens_per_param: float = CHINCHILLA_TOKENS_PER_PARAM) -> float:
    """C_opt = 6·N·(r·N): what a compute-optimal run of N parameters costs (r = 20 by default).

    8B parameters: 6 × 8e9 × 160e9 = 7.68e21 FLOPs.
    """
    n = positive("params", params)
    return training_flops(n, positive("optimal_tokens_per_param", optimal_tokens_per_param) * n)


def compute_multiple(
    params: float, tokens: float, optimal_tokens_per_param: float = CHINCHILLA_TOKENS_PER_PARAM
) -> float:
    """How many times the compute-optimal budget a run of N params on D tokens spends.

    At fixed N, C = 6ND against C_opt = 6·N·(r·N), so the multiple is D / (r·N):
    Llama 3 8B on 15T tokens is 15e12 / (20 × 8e9) ≈ 94×.
    """
    return tokens_per_param(params, tokens) / positive("optimal_tokens_per_param", optimal_tokens_per_param)
