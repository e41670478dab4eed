"""What a training run keeps on disk: dataset, shipped weights, checkpoints.

Tokenised data is stored as fixed-width token ids, so its bytes are D × the
width of one id: 2 bytes (uint16) while the vocabulary fits in 2¹⁶ ids
(GPT-2's 50,257), 4 bytes (uint32) above that (Llama 3's 128,256).
Every term grows linearly with the parameter count N once the tokens are a
multiple of N (D = r·N): dataset r·N·bytes/token, weights 2·N, a checkpoint
14·N (16·N with gradients), k of them retained.
"""

from dataclasses import dataclass

from .checkpoint import checkpoint_bytes, weights_bytes
from .provenance import quantity
from .validate import finite_result, flag, non_negative_int, positive, positive_int

TOKEN_ID_WIDTHS = (1, 2, 4, 8)  # bytes of the unsigned integer types a shard can use
BITS_PER_BYTE = 8


def token_id_bytes(vocab: int) -> int:
    """Bytes of the narrowest unsigned integer that holds every id of a `vocab`-sized vocabulary."""
    v = positive_int("vocab", vocab)
    return next(w for w in TOKEN_ID_WIDTHS if v <= 2 ** (BITS_PER_BYTE * w))


def raw_text_bytes(tokens: float, chars_per_token: float, bytes_per_char: float = 1) -> float:
    """Bytes of the plain text D tokens were cut from: D × characters per token × bytes per character.

    GPT-2's tokenizer averages about 4 characters a token on English text
    (OpenAI's tokenizer guide); UTF-8 spends 1 byte on each ASCII character,
    the default. 15T FineWeb tokens × 4 ≈ 60 TB of text.
    """
    chars = positive("tokens", tokens) * positive("chars_per_token", chars_per_token)
    return finite_result("raw_text_bytes", chars * positive("bytes_per_char", bytes_per_char))


def dataset_bytes(tokens: float, bytes_per_token: float) -> float:
    """D × bytes per token id.

    For example 15.6T tokens × 4 B = 62.4 TB; 10B × 2 B = 20 GB.
    """
    return finite_result(
        "dataset_bytes", positive("tokens", tokens) * positive("bytes_per_token", bytes_per_token)
    )


@dataclass(frozen=True)
class StorageBreakdown:
    tokens: float = quantity("D = r·N, training tokens", "count")
    dataset: float = quantity("bytes of tokenised data", "bytes")
    weights: float = quantity("bytes of the shipped BF16 weights", "bytes")
    checkpoint: float = quantity("bytes of one checkpoint", "bytes")
    retained: float = quantity("bytes of the k checkpoints kept (each written one counted once)", "bytes")
    total: float = quantity("dataset + weights + retained", "bytes")
    dataset_share: float = quantity("dataset / total, a fraction of the bytes on disk", "percent")


def storage_footprint(
    params: float,
    tokens_per_param: float = 20,
    bytes_per_token: float = 4,
    checkpoints_kept: int = 5,
    include_gradients: bool = False,
) -> StorageBreakdown:
    """Bytes on disk of a run of N parameters on r·N tokens keeping k checkpoints.

    7B at 20 tokens/param, 4 B/token, 5 kept, 16 B/param checkpoints:
    560 GB dataset, 14 GB weights, 112 GB a checkpoint, 560 GB retained; the
    dataset is 560 / (560 + 14 + 560) of the total.
    """
    n = positive("params", params)
    tokens = n * positive("tokens_per_param", tokens_per_param)
    dataset = dataset_bytes(tokens, bytes_per_token)
    weights = weights_bytes(n)
    one = checkpoint_bytes(n, flag("include_gradients", include_gradients))
    retained = one * non_negative_int("checkpoints_kept", checkpoints_kept)
    total = finite_result("storage_bytes", dataset + weights + retained)
    return StorageBreakdown(tokens, dataset, weights, one, retained=retained, total=total,
                            dataset_share=dataset / total)
