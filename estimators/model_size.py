"""Parameter counts of decoder-only transformers, from their configuration.

Counted matrix by matrix, as the released checkpoints store them, and returned
as a breakdown (the habit of nanoGPT's sizing notebook):

- token embedding V·d, plus a learned position table P·d (GPT-2; rotary
  models such as Llama have none);
- attention with grouped-query heads (Ainslie et al. 2023, "GQA"): Q and O are
  d × H·h, K and V are d × G·h for G key/value heads of size h = d/H
  (G = H is plain multi-head attention);
- MLP: SwiGLU (Shazeer 2020, used by Llama) has three d × F matrices (gate,
  up, down); the GeLU MLP of GPT-2 has two (up, down);
- norms: RMSNorm has one scale vector of d, LayerNorm a scale and a bias (2d);
  two per block plus one final;
- output head V·d unless tied to the embedding;
- biases (GPT-2): one per output feature of every linear layer.

Checked exactly against Llama 3 8B/70B/405B and GPT-2 124M (see the tests).
"""

from dataclasses import dataclass

from .provenance import quantity
from .validate import flag, non_negative_int, one_of, positive_int
from .errors import EstimatorError

MLP_MATRICES = {"swiglu": 3, "gelu": 2}  # gate + up + down; up + down
NORM_VECTORS = {"rmsnorm": 1, "layernorm": 2}  # scale; scale + bias
NORMS_PER_BLOCK = 2  # before attention and before the MLP (pre-norm)


@dataclass(frozen=True)
class DecoderConfig:
    layers: int = quantity("transformer blocks, L", "integer")
    d_model: int = quantity("hidden width, d", "integer")
    heads: int = quantity("query heads, H", "integer")
    kv_heads: int = quantity("key/value heads, G (GQA); equal to heads for multi-head attention", "integer")
    ffn_dim: int = quantity("MLP inner width, F", "integer")
    vocab: int = quantity("vocabulary size, V", "integer")
    tied_embeddings: bool = False  # output head shares the token embedding
    mlp: str = "swiglu"  # "swiglu" or "gelu"
    norm: str = "rmsnorm"  # "rmsnorm" or "layernorm"
    bias: bool = False  # biases on every linear layer (GPT-2)
    max_positions: int = quantity("rows of a learned position table; 0 for rotary positions", "integer", default=0)
    dropout: bool = False  # dropout in training (GPT-2's config: 0.1); Llama trains without it
    fused_qkv: bool = False  # q, k and v stored as one d → (H + 2G)·h matrix (GPT-2's c_attn)

    def __post_init__(self):
        for name in ("layers", "d_model", "heads", "kv_heads", "ffn_dim", "vocab"):
            positive_int(name, getattr(self, name))
        non_negative_int("max_positions", self.max_positions)
        flag("tied_embeddings", self.tied_embeddings)
        flag("bias", self.bias)
        flag("dropout", self.dropout)
        flag("fused_qkv", self.fused_qkv)
        one_of("mlp", self.mlp, tuple(MLP_MATRICES))
        one_of("norm", self.norm, tuple(NORM_VECTORS))
        head_dim(self.d_model, self.heads)
        if self.heads % self.kv_heads:
            raise EstimatorError("kv_heads", self.kv_heads, f"a divisor of heads ({self.heads})")


@dataclass(frozen=True)
class ParamBreakdown:
    embeddings: int = quantity("token (+ learned position) tables", "count")
    attention: int = quantity("all blocks", "count")
    mlp: int = quantity("all blocks", "count")
    norms: int = quantity("all blocks + the final norm", "count")
    head: int = quantity("output projection; 0 when tied", "count")
    total: int = quantity("all of the above", "count")


def head_dim(d_model: int, heads: int) -> int:
    """h = d / H, the width of one attention head."""
    d = positive_int("d_model", d_model)
    h = positive_int("heads", heads)
    if d % h:
        raise EstimatorError("heads", heads, f"a divisor of d_model ({d})")
    return d // h


def linear_params(d_in: int, d_out: int, bias: bool = False) -> int:
    """A d_in × d_out weight matrix, plus d_out biases if it has them."""
    return d_in * d_out + (d_out if bias else 0)


def gqa_attention_params(d_model: int, heads: int, kv_heads: int, bias: bool = False, head_width: int = 0) -> int:
    """Q, K, V and O of one block: d·H·h + 2·d·G·h + H·h·d (plus biases), h = d/H unless the
    configuration sets its own head width (Qwen3-30B-A3B: 32 heads of 128 on d = 2048)."""
    h = positive_int("head_width", head_width) if head_width else head_dim(d_model, heads)
    q = linear_params(d_model, heads * h, bias)
    kv = 2 * linear_params(d_model, kv_heads * h, bias)
    o = linear_params(heads * h, d_model, bias)
    return q + kv + o


def mlp_params(d_model: int, ffn_dim: int, mlp: str = "swiglu", bias: bool = False) -> int:
    """SwiGLU: gate and up (d × F) and down (F × d); GeLU: up and down."""
    one_of("mlp", mlp, tuple(MLP_MATRICES))
    up_and_down = linear_params(d_model, ffn_dim, bias) + linear_params(ffn_dim, d_model, bias)
    gate = linear_params(d_model, ffn_dim, bias) if mlp == "swiglu" else 0
    return up_and_down + gate


def norm_params(d_model: int, norm: str = "rmsnorm") -> int:
    """d for RMSNorm (scale), 2d for LayerNorm (scale and bias)."""
    return NORM_VECTORS[one_of("norm", norm, tuple(NORM_VECTORS))] * d_model


def decoder_params(config: DecoderConfig) -> ParamBreakdown:
    """Every parameter of a dense decoder, by component."""
    c = config
    embeddings = c.vocab * c.d_model + c.max_positions * c.d_model
    attention = c.layers * gqa_attention_params(c.d_model, c.heads, c.kv_heads, c.bias)
    mlp = c.layers * mlp_params(c.d_model, c.ffn_dim, c.mlp, c.bias)
    norms = (c.layers * NORMS_PER_BLOCK + 1) * norm_params(c.d_model, c.norm)
    head = 0 if c.tied_embeddings else c.vocab * c.d_model
    return ParamBreakdown(
        embeddings=embeddings,
        attention=attention,
        mlp=mlp,
        norms=norms,
        head=head,
        total=embeddings + attention + mlp + norms + head,
    )


def param_count(
    layers: int,
    d_model: int,
    heads: int,
    kv_heads: int,
    ffn_dim: int,
    vocab: int,
    tied_embeddings: bool = False,
) -> int:
    """Exact parameter count of a Llama-style decoder (SwiGLU MLP, RMSNorm, GQA, no biases)."""
    config = DecoderConfig(layers, d_model, heads, kv_heads, ffn_dim=ffn_dim, vocab=vocab,
                           tied_embeddings=tied_embeddings)
    return decoder_params(config).total
