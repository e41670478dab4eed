"""The Chinchilla loss law and the compute-optimal split it implies.

Hoffmann et al. 2022 ("Training Compute-Optimal Large Language Models",
approach 3, §3.3) fit the final loss of a model of N parameters trained on
D tokens as

    L(N, D) = E + A / N^α + B / D^β

Minimising L under C = 6ND (their appendix D.2) gives

    N_opt(C) = G · (C/6)^a,   D_opt(C) = G⁻¹ · (C/6)^b,
    G = (αA / βB)^(1/(α+β)),  a = β/(α+β),  b = α/(α+β).

Hoffmann's §3.3 prints the constants rounded: E = 1.69, A = 406.4,
B = 410.7, α = 0.34, β = 0.28. The fit itself has α = 0.3392, β = 0.2849 and
E = 1.6934 (as Besiroglu et al. 2024 tabulate Hoffmann's estimates, table 1);
only those give the optimum Hoffmann reports for approach 3, about 40B
parameters for Gopher's budget of 5.76e23 FLOPs (table 3). The exponent of N
is sensitive: the rounded α and β put that optimum at about 32B.

Besiroglu et al. 2024 ("Chinchilla Scaling: A replication attempt") refit the
same law to the data of Hoffmann's figure 4 and found constants whose optimum
agrees with Hoffmann's approaches 1 and 2 (about 20 tokens per parameter);
Hoffmann's approach-3 fit puts the optimum at smaller models on more data.
All three are here (Hoffmann's fit, its rounded print, the refit), so a page
can show any and say which it is.
"""

import math
from dataclasses import dataclass

from .compute import TRAINING_FLOPS_PER_PARAM_TOKEN
from .provenance import quantity
from .validate import finite_result, one_of, positive


@dataclass(frozen=True)
class LossFit:
    e: float = quantity("irreducible loss, nats per token")
    a: float = quantity("A, coefficient of the parameter term")
    b: float = quantity("B, coefficient of the data term")
    alpha: float = quantity("α, exponent of N")
    beta: float = quantity("β, exponent of D")
    source: str


FITS = {
    "hoffmann2022": LossFit(
        e=1.6934, a=406.4, b=410.7, alpha=0.3392, beta=0.2849,
        source="Hoffmann et al. 2022, approach 3 (its fit unrounded, as Besiroglu et al. 2024, table 1, give it)",
    ),
    "hoffmann2022-rounded": LossFit(
        e=1.69, a=406.4, b=410.7, alpha=0.34, beta=0.28,
        source="Hoffmann et al. 2022, §3.3, constants as printed (rounded to two decimals)",
    ),
    "besiroglu2024": LossFit(
        e=1.8172, a=482.01, b=2085.43, alpha=0.3478, beta=0.3658,
        source="Besiroglu et al. 2024, §3 (their refit of approach 3)",
    ),
}
DEFAULT_FIT = "besiroglu2024"


def loss_fits() -> dict:
    """Every fitted loss law by name: its constants E, A, B, α, β and its source."""
    return dict(FITS)


def _fit(fit: str) -> LossFit:
    return FITS[one_of("fit", fit, FITS)]


def chinchilla_loss(params: float, tokens: float, fit: str = DEFAULT_FIT) -> float:
    """L(N, D) = E + A/N^α + B/D^β, nats per token."""
    f = _fit(fit)
    n = positive("params", params)
    d = positive("tokens", tokens)
    return f.e + f.a / n**f.alpha + f.b / d**f.beta


def optimal_exponents(fit: str = DEFAULT_FIT) -> tuple:
    """(a, b) with Nₒₚₜ ∝ C^a and Dₒₚₜ ∝ C^b: a = β/(α+β), b = α/(α+β)."""
    f = _fit(fit)
    return f.beta / (f.alpha + f.beta), f.alpha / (f.alpha + f.beta)


def chinchilla_optimal(flops: float, fit: str = DEFAULT_FIT) -> tuple:
    """(Nₒₚₜ, Dₒₚₜ) minimising L(N, D) under C = 6ND, for a budget of C FLOPs."""
    f = _fit(fit)
    c = positive("flops", flops)
    a, b = optimal_exponents(fit)
    g = (f.alpha * f.a / (f.beta * f.b)) ** (1 / (f.alpha + f.beta))
    per_param_token = c / TRAINING_FLOPS_PER_PARAM_TOKEN
    n = finite_result("params", g * math.exp(a * math.log(per_param_token)))
    d = finite_result("tokens", math.exp(b * math.log(per_param_token)) / g)
    return n, d
