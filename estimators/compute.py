"""Training compute.

C = 6 N D (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", §2.1):
each parameter costs 2 FLOPs per token in the forward pass (a multiply and an
add) and 4 in the backward pass (gradients with respect to activations and to
weights), so 6 FLOPs per parameter per token.
"""

from .validate import finite_result, positive

FORWARD_FLOPS_PER_PARAM_TOKEN = 2
BACKWARD_FLOPS_PER_PARAM_TOKEN = 4
TRAINING_FLOPS_PER_PARAM_TOKEN = FORWARD_FLOPS_PER_PARAM_TOKEN + BACKWARD_FLOPS_PER_PARAM_TOKEN


def training_flops(params: float, tokens: float) -> float:
    """C = 6·N·D, in FLOPs, for N parameters trained on D tokens."""
    n = positive("params", params)
    d = positive("tokens", tokens)
    return finite_result("training_flops", TRAINING_FLOPS_PER_PARAM_TOKEN * n * d)


def tokens_per_param(params: float, tokens: float) -> float:
    """D / N, the ratio Chinchilla puts near 20 for a compute-optimal run."""
    return positive("tokens", tokens) / positive("params", params)
