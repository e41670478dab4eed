"""Mixture-of-experts parameter counts: total (what is stored) and active (what a token uses).

An MoE decoder replaces the MLP of most blocks by E routed experts, each a
SwiGLU MLP of width F_e, plus S shared experts every token passes through and a
router (an E × d matrix). A token is sent to the top-k routed experts, so

    total  = embeddings + head + attention + norms + dense MLPs + Σ_moe (S + E)·expert + routers
    active = the same with k in place of E.

Active counts the embedding and the output head, the convention under which
Mixtral 8x7B is 46.7B total and 12.9B active (Mistral AI's announcement).
Attention heads are d/H wide unless the configuration says otherwise: Qwen3's
head_dim of 128 on d = 2048 and 32 heads, with an RMSNorm on each head's query
and key (Qwen Team 2025, the Qwen3-30B-A3B config.json).

DeepSeek-V3 (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §2 and its
config.json) uses multi-head latent attention (MLA, from DeepSeek-V2 §2.1):
queries and keys/values pass through low-rank bottlenecks with RMSNorm, and
part of each head carries rotary positions:

    q: d × r_q, norm r_q, r_q × H·(h_nope + h_rope)
    kv: d × (r_kv + h_rope), norm r_kv, r_kv × H·(h_nope + h_v)
    o: H·h_v × d

`route_tokens` is no trained router: it stands in for one with a fixed hash
of each token's text, so that a page can show which experts each token of a
sentence would use, the same in every browser and at build time.

Left out: the router's per-expert bias of DeepSeek-V3 (256 a layer, about
15K parameters in all) and its multi-token-prediction module (14B, which the
report counts apart from the 671B).
"""

import hashlib
import heapq
from dataclasses import dataclass

from .model_size import NORMS_PER_BLOCK, gqa_attention_params, linear_params, mlp_params, norm_params
from .provenance import quantity
from .validate import flag, non_negative_int, positive_int
from .errors import EstimatorError


@dataclass(frozen=True)
class MlaConfig:
    q_lora_rank: int = quantity("r_q, rank of the query bottleneck; 0 for none, the queries projected from d directly "
                                "(DeepSeek-V2-Lite, whose configuration writes null)", "integer")
    kv_lora_rank: int = quantity("r_kv, rank of the key/value bottleneck", "integer")
    qk_nope_head_dim: int = quantity("h_nope, per-head query/key width without rotary positions", "integer")
    qk_rope_head_dim: int = quantity("h_rope, per-head query/key width with rotary positions", "integer")
    v_head_dim: int = quantity("h_v, per-head value width", "integer")

    def __post_init__(self):
        non_negative_int("q_lora_rank", self.q_lora_rank)
        for name in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            positive_int(name, getattr(self, name))


@dataclass(frozen=True)
class MoeConfig:
    layers: int = quantity("transformer blocks, L", "integer")
    d_model: int = quantity("hidden width, d", "integer")
    heads: int = quantity("query heads, H", "integer")
    kv_heads: int = quantity("key/value heads (GQA); ignored with MLA", "integer")
    vocab: int = quantity("vocabulary size, V", "integer")
    dense_layers: int = quantity("first blocks with a dense MLP instead of experts", "integer")
    dense_ffn_dim: int = quantity("MLP width of those dense blocks", "integer")
    expert_ffn_dim: int = quantity("MLP width of one expert, Fₑ", "integer")
    routed_experts: int = quantity("E, experts the router chooses among in each MoE block", "integer")
    shared_experts: int = quantity("S, experts every token passes through", "integer")
    top_k: int = quantity("k, routed experts per token", "integer")
    tied_embeddings: bool = False
    mla: MlaConfig | None = None  # multi-head latent attention (DeepSeek); None for GQA
    head_dim: int = quantity("h, the width of one attention head, where it is not d/H (its configuration's head width); 0 for d/H",
                             "integer", default=0)
    qk_norm: bool = False  # an RMSNorm of width h on each head's query and key (Qwen3)

    def __post_init__(self):
        for name in ("layers", "d_model", "heads", "kv_heads", "vocab", "expert_ffn_dim", "routed_experts", "top_k"):
            positive_int(name, getattr(self, name))
        for name in ("dense_layers", "dense_ffn_dim", "shared_experts", "head_dim"):
            non_negative_int(name, getattr(self, name))
        flag("tied_embeddings", self.tied_embeddings)
        flag("qk_norm", self.qk_norm)
        if self.mla is not None and (self.head_dim or self.qk_norm):
            raise EstimatorError("head_dim", self.head_dim, "0 with mla: latent attention sets its own head widths")
        if self.dense_layers > self.layers:
            raise EstimatorError("dense_layers", self.dense_layers, f"at most layers ({self.layers})")
        if self.top_k > self.routed_experts:
            raise EstimatorError("top_k", self.top_k, f"at most routed_experts ({self.routed_experts})")
        if self.dense_layers and not self.dense_ffn_dim:
            raise EstimatorError("dense_ffn_dim", self.dense_ffn_dim, "a width of 1 or more when dense_layers > 0")


@dataclass(frozen=True)
class MoeParams:
    total: int = quantity("every parameter stored", "count")
    active: int = quantity("parameters one token passes through (top-k + shared experts), embeddings included", "count")
    embedding: int = quantity("the input token table (a lookup, no arithmetic), inside both figures", "count")
    active_share: float = quantity("active / total, the fraction of the weights one token passes through", "percent")


def mla_attention_params(d_model: int, heads: int, mla: MlaConfig) -> int:
    """Parameters of one multi-head latent attention block (DeepSeek-V2 §2.1): queries through a bottleneck of rank r_q
    (d·r_q, its norm r_q, r_q·H·h_qk), or projected directly (d·H·h_qk) when r_q = 0, as in DeepSeek-V2-Lite; keys and
    values through r_kv."""
    qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim
    if mla.q_lora_rank:
        q = linear_params(d_model, mla.q_lora_rank) + mla.q_lora_rank + linear_params(mla.q_lora_rank, heads * qk_head)
    else:
        q = linear_params(d_model, heads * qk_head)
    kv = (
        linear_params(d_model, mla.kv_lora_rank + mla.qk_rope_head_dim)
        + mla.kv_lora_rank
        + linear_params(mla.kv_lora_rank, heads * (mla.qk_nope_head_dim + mla.v_head_dim))
    )
    o = linear_params(heads * mla.v_head_dim, d_model)
    return q + kv + o


def moe_params(config: MoeConfig) -> MoeParams:
    """Total and active parameters of an MoE decoder (SwiGLU experts, RMSNorm), and active / total."""
    c = config
    if c.mla is None:
        attention = gqa_attention_params(c.d_model, c.heads, c.kv_heads, head_width=c.head_dim)
        if c.qk_norm:
            attention += 2 * norm_params(c.head_dim or c.d_model // c.heads)
    else:
        attention = mla_attention_params(c.d_model, c.heads, c.mla)
    norms = NORMS_PER_BLOCK * norm_params(c.d_model)
    expert = mlp_params(c.d_model, c.expert_ffn_dim)
    router = linear_params(c.d_model, c.routed_experts)
    embedding = c.vocab * c.d_model
    outer = embedding + (0 if c.tied_embeddings else embedding) + norm_params(c.d_model)
    dense_block = attention + norms + mlp_params(c.d_model, c.dense_ffn_dim)
    moe_blocks = c.layers - c.dense_layers
    shared = outer + c.dense_layers * dense_block + moe_blocks * (attention + norms + router)

    def with_experts(routed: int) -> int:
        return shared + moe_blocks * (c.shared_experts + routed) * expert

    total, active = with_experts(c.routed_experts), with_experts(c.top_k)
    return MoeParams(total=total, active=active, embedding=embedding, active_share=active / total)


@dataclass(frozen=True)
class Routing:
    """Which experts each token goes to, and how many tokens each expert receives."""

    experts: int = quantity("E, routed experts, numbered 1 to E", "integer")
    top_k: int = quantity("k, experts per token", "integer")
    choices: tuple  # per token, its k expert numbers, first choice first
    load: tuple  # per expert (1 to E), the tokens sent to it
    used: int = quantity("experts that receive at least one token", "integer")
    busiest: int = quantity("the most tokens any one expert receives", "integer")
    even_load: float = quantity("k·T / E, what each expert would receive were the load even")


_MASK64 = (1 << 64) - 1


def _score(seed: int, expert: int) -> int:
    """The expert-th output of SplitMix64 (Steele, Lea and Flood 2014) started from the token's seed.

    One hash per token, then integer mixing per expert: a hash per (token, expert)
    pair costs too much at DeepSeek-V3's 256 experts, and a checksum such as
    CRC-32 is linear and sends most words to the same few experts.
    """
    x = (seed + expert * 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def route_tokens(tokens, experts: int, top_k: int) -> Routing:
    """A deterministic stand-in for a router: each token to the k experts of highest score.

    A trained router scores token x for expert e as a learned w_e · x and keeps
    the top k (Shazeer et al. 2017; Jiang et al. 2024, §2.1). Here the score
    mixes the SHA-256 of the token's text with the expert's number: no learning, the
    same token always goes to the same experts, and the load falls unevenly,
    as it does before a real router is balanced.
    """
    e = positive_int("experts", experts)
    k = positive_int("top_k", top_k)
    if k > e:
        raise EstimatorError("top_k", top_k, f"at most experts ({e})")
    words = tuple(tokens)
    if not words or not all(isinstance(w, str) and w for w in words):
        raise EstimatorError("tokens", tokens, "one or more non-empty strings")
    seeds = [int.from_bytes(hashlib.sha256(w.lower().encode()).digest()[:8], "big") for w in words]
    choices = tuple(tuple(heapq.nlargest(k, range(1, e + 1), key=lambda n, s=s: _score(s, n))) for s in seeds)
    load = tuple(sum(n in c for c in choices) for n in range(1, e + 1))
    return Routing(experts=e, top_k=k, choices=choices, load=load, used=sum(1 for t in load if t),
                   busiest=max(load), even_load=k * len(words) / e)


# A picture of a layer's experts: a grid this many to a row (DeepSeek-V3's 256 routed experts make
# 16 rows), each expert a square cell.
EXPERTS_PER_ROW = 16


@dataclass(frozen=True)
class ExpertCell:
    """Where one expert is drawn, in units of the grid's width."""

    expert: int = quantity("the expert's number, from 1", "integer")
    x0: float = quantity("left edge, in units of the grid's width", "number")
    x1: float = quantity("right edge", "number")
    y0: float = quantity("top edge, in units of the grid's width", "number")
    y1: float = quantity("bottom edge", "number")


def expert_cells(experts: int, per_row: int = EXPERTS_PER_ROW) -> tuple:
    """The experts as a grid of square cells: n = min(E, the cells a row holds) to a row, each 1/n of the grid's
    width, expert e in row ⌊(e − 1) / n⌋ and column (e − 1) mod n."""
    e = positive_int("experts", experts)
    n = min(e, positive_int("per_row", per_row))
    return tuple(ExpertCell(i + 1, (i % n) / n, (i % n + 1) / n, (i // n) / n, y1=(i // n + 1) / n) for i in range(e))
