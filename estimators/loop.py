"""The training loop, station by station: what one token costs at each.

Every step of training runs four stations in order: the forward pass turns a
batch of tokens into logits, the loss compares the logits with the true next
tokens, the backward pass turns the loss into a gradient for every weight, and
the optimizer step applies the gradients to the weights.

Per token, for N parameters (Kaplan et al. 2020, §2.1), a sequence of T tokens
and L layers of H heads of width Q (Chowdhery et al. 2022, "PaLM", appendix B):

    forward   2N  + 4·L·H·Q·T   (the attention term: a third of PaLM's 12·L·H·Q·T)
    backward  4N  + 8·L·H·Q·T   (twice the forward, as for the weights)

The loss reads the logits the forward pass's output layer computes, 2·d·V
FLOPs a token for width d and a vocabulary of V, which are part of the 2N.
The optimizer step runs once per step, not per token: it reads the gradients
and rewrites the weights, the FP32 master weights and the optimizer's moments,
the whole training state of `memory.bytes_per_param` for each parameter.
"""

from dataclasses import dataclass

from .compute import (
    FORWARD_FLOPS_PER_PARAM_TOKEN,
    TRAINING_FLOPS_PER_PARAM_TOKEN,
    attention_flops_per_token,
    backward_flops_per_token,
    forward_flops_per_token,
)
from .memory import ModelState, bytes_per_param
from .model_size import DecoderConfig, decoder_params, head_dim, linear_params
from .provenance import quantity
from .validate import positive_int

# The stations in the order a step runs them: key -> name, and what each hands to the next.
STATIONS = {"forward": "Forward pass", "loss": "Loss", "backward": "Backward pass", "optimizer": "Optimizer step"}
HANDS_ON = {"forward": "logits", "loss": "loss", "backward": "gradients", "optimizer": "new weights"}


@dataclass(frozen=True)
class LoopCosts:
    """The cost of each station for one model and sequence length."""

    params: int = quantity("N, parameters", "count")
    seq_len: int = quantity("T, tokens per sequence", "integer")
    forward_flops: float = quantity("2N FLOPs per token, the weights' matmuls", "sci")
    forward_attention_flops: float = quantity("4·L·H·Q·T FLOPs per token, scores and values", "sci")
    logits_flops: float = quantity("2·d·V FLOPs per token: the output layer, part of the 2N", "sci")
    vocab: int = quantity("V, logits per token the loss compares with the true next token", "integer")
    backward_flops: float = quantity("4N FLOPs per token", "sci")
    backward_attention_flops: float = quantity("8·L·H·Q·T FLOPs per token", "sci")
    optimizer_state: ModelState  # bytes per parameter the optimizer step reads or writes
    optimizer_bytes: float = quantity("that state for all N parameters, touched once per step", "bytes")
    attention_share: float = quantity("attention's share of the training FLOPs per token", "percent")


def loop_costs(config: DecoderConfig, seq_len: int, optimizer: str = "adam") -> LoopCosts:
    """Each station's cost for a dense decoder trained on sequences of s tokens."""
    t = positive_int("seq_len", seq_len)
    n = decoder_params(config).total
    attention = attention_flops_per_token(config.layers, config.heads, head_dim(config.d_model, config.heads), t)
    forward_attention = attention * FORWARD_FLOPS_PER_PARAM_TOKEN / TRAINING_FLOPS_PER_PARAM_TOKEN
    state = bytes_per_param(optimizer)
    return LoopCosts(
        params=n,
        seq_len=t,
        forward_flops=forward_flops_per_token(n),
        forward_attention_flops=forward_attention,
        logits_flops=FORWARD_FLOPS_PER_PARAM_TOKEN * linear_params(config.d_model, config.vocab),
        vocab=config.vocab,
        backward_flops=backward_flops_per_token(n),
        backward_attention_flops=attention - forward_attention,
        optimizer_state=state,
        optimizer_bytes=state.total * n,
        attention_share=attention / (TRAINING_FLOPS_PER_PARAM_TOKEN * n + attention),
    )
