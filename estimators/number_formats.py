"""Number formats: what a value keeps when it is stored in fewer bits.

A floating-point format spends its bits on a sign, an exponent and a mantissa:
a normal value is (−1)^s × 2^(e − bias) × (1 + m / 2^M), a subnormal one (e = 0)
(−1)^s × 2^(1 − bias) × (m / 2^M). Exponent bits buy range (each one doubles
the binades covered), mantissa bits buy precision (each one halves the spacing
within a binade). The definitions, as data in `NUMBER_FORMATS`:

- FP32, FP16: IEEE 754-2019 binary32 and binary16; the top exponent holds
  infinity and NaN, and a value past the largest finite one overflows to infinity.
- BF16: FP32's 8 exponent bits with 7 mantissa bits (Google's bfloat16); TF32:
  FP32's exponent with FP16's 10 mantissa bits, stored in 32 bits (NVIDIA A100
  whitepaper, 2020). Both follow IEEE 754's rules for infinity and NaN.
- FP8 E4M3 and E5M2: the OCP 8-bit floating point specification (OFP8, rev. 1.0,
  2023). E5M2 keeps IEEE's infinity; E4M3 has none, its only NaN is S.1111.111,
  so its largest value is 1.75 × 2^8 = 448, and a conversion saturates to it.
- FP6 E3M2 and E2M3, FP4 E2M1: the OCP Microscaling specification (MX v1.0,
  2023, §5.3), no infinity nor NaN; a conversion saturates.
- MXFP8, MXFP6, MXFP4: 32 values of an element format share one E8M0 scale,
  a power of two 2^(e − 127) (OCP MX v1.0, §5, §6.3): X = 2^(⌊log2 amax⌋ − e_max,element).
- NVFP4: 16 FP4 E2M1 values share an E4M3 scale, and the tensor an FP32 scale
  (NVIDIA, "Introducing NVFP4", 2025): tensor scale = amax_tensor / (6 × 448),
  block scale = E4M3(amax_block / 6 / tensor scale).
- INT8, INT4: symmetric integers with a per-tensor absmax scale, q = round(x × 127 / amax).
- NF4: QLoRA's 4-bit NormalFloat (Dettmers et al. 2023, appendix E), sixteen levels
  at quantiles of a normal distribution, a block of 64 values scaled by its absmax;
  double quantization stores those FP32 scales in 8 bits, one FP32 scale per 256 of them.

Rounding is to nearest, ties to even (IEEE 754 §4.3.1, the OCP specifications'
default), exact: a value is a Python float (binary64), and every format here is
a subset of it, so scaling by a power of two and `round` lose nothing.
"""

import math
from dataclasses import dataclass

from .errors import EstimatorError
from .finetune import NF4_BLOCK, quantization_layout
from .provenance import quantity
from .validate import finite_result, one_of, positive

# QLoRA (Dettmers et al. 2023), appendix E: the NF4 data type's sixteen values, as bitsandbytes stores them.
NF4_LEVELS = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)
# NF4 as QLoRA stores it (§3): blocks of 64 weights, their absmax scales double-quantized.
NF4_STORAGE = "nf4-double-quant"


@dataclass(frozen=True)
class NumberFormat:
    """One row of the table of number formats: how its bits are laid out and read."""

    label: str  # as a reader reads it
    kind: str  # "float", "integer" or "levels"
    bits: int  # of one element
    exponent_bits: int = 0
    mantissa_bits: int = 0
    specials: str = "none"  # "ieee": the top exponent is infinity and NaN; "nan": only S.1…1.1…1 is NaN
    storage_bits: int = 0  # bits a value takes in memory when more than its own (TF32 in 32)
    element: str = ""  # a block-scaled format's element format
    block_values: int = 0  # values that share one block scale
    scale: str = ""  # the block scale's format ("e8m0" or a key of the table); NF4's is QLoRA's storage
    source: str = ""
    multiplies_in: str = ""  # the precision of a GPU's peak its matrix multiplies run at (a key of peak_flops)

    @property
    def bias(self) -> int:
        return 2 ** (self.exponent_bits - 1) - 1


NUMBER_FORMATS = {
    "fp32": NumberFormat("FP32", "float", 32, exponent_bits=8, mantissa_bits=23, specials="ieee",
                         source="IEEE 754-2019 binary32", multiplies_in="fp32"),
    "tf32": NumberFormat("TF32", "float", 19, exponent_bits=8, mantissa_bits=10, specials="ieee", storage_bits=32,
                         source="NVIDIA A100 whitepaper", multiplies_in="tf32"),
    "bf16": NumberFormat("BF16", "float", 16, exponent_bits=8, mantissa_bits=7, specials="ieee",
                         source="Google bfloat16", multiplies_in="bf16"),
    # FP16 multiplies at BF16's rate on every GPU listed (their datasheets give one figure for both).
    "fp16": NumberFormat("FP16", "float", 16, exponent_bits=5, mantissa_bits=10, specials="ieee",
                         source="IEEE 754-2019 binary16", multiplies_in="bf16"),
    "fp8_e4m3": NumberFormat("FP8 E4M3", "float", 8, exponent_bits=4, mantissa_bits=3, specials="nan",
                             source="OCP 8-bit floating point", multiplies_in="fp8"),
    "fp8_e5m2": NumberFormat("FP8 E5M2", "float", 8, exponent_bits=5, mantissa_bits=2, specials="ieee",
                             source="OCP 8-bit floating point", multiplies_in="fp8"),
    "fp6_e3m2": NumberFormat("FP6 E3M2", "float", 6, exponent_bits=3, mantissa_bits=2, source="OCP Microscaling",
                             multiplies_in="fp6"),
    "fp6_e2m3": NumberFormat("FP6 E2M3", "float", 6, exponent_bits=2, mantissa_bits=3, source="OCP Microscaling",
                             multiplies_in="fp6"),
    "fp4_e2m1": NumberFormat("FP4 E2M1", "float", 4, exponent_bits=2, mantissa_bits=1, source="OCP Microscaling",
                             multiplies_in="fp4"),
    "int8": NumberFormat("INT8", "integer", 8, source="symmetric absmax integers", multiplies_in="int8"),
    "int4": NumberFormat("INT4", "integer", 4, source="symmetric absmax integers", multiplies_in="int4"),
    "nf4": NumberFormat("NF4", "levels", 4, block_values=NF4_BLOCK, source="QLoRA paper", multiplies_in="bf16"),
    "mxfp8": NumberFormat("MXFP8", "float", 8, element="fp8_e4m3", block_values=32, scale="e8m0",
                          source="OCP Microscaling", multiplies_in="fp8"),
    "mxfp6": NumberFormat("MXFP6", "float", 6, element="fp6_e2m3", block_values=32, scale="e8m0",
                          source="OCP Microscaling", multiplies_in="fp6"),
    "mxfp4": NumberFormat("MXFP4", "float", 4, element="fp4_e2m1", block_values=32, scale="e8m0",
                          source="OCP Microscaling", multiplies_in="fp4"),
    # NVFP4's per-tensor FP32 scale is one number per tensor: nothing per value.
    "nvfp4": NumberFormat("NVFP4", "float", 4, element="fp4_e2m1", block_values=16, scale="fp8_e4m3",
                          source="NVIDIA NVFP4", multiplies_in="fp4"),
}
# The shared scale of the MX formats: 8 exponent bits, no sign, no mantissa, 2^(e − 127), 0xFF is NaN.
E8M0_BITS = 8
E8M0_BIAS = 127
E8M0_EXPONENTS = (-E8M0_BIAS, 2**E8M0_BITS - 2 - E8M0_BIAS)


@dataclass(frozen=True)
class NumberFormatFigures:
    label: str
    layout: tuple  # (("sign", 1), ("exponent", 8), ("mantissa", 23)): the element's bits, most significant first
    largest: float = quantity("the largest finite value of the element format", "sci")
    smallest_normal: float = quantity("2^(1 − bias), the smallest value with full precision (0 when none)", "sci")
    smallest_subnormal: float = quantity("2^(1 − bias − M), the smallest value above 0", "sci")
    spacing_at_one: float = quantity("2^−M, the gap between 1 and the next value up", "number")
    decimal_digits: float = quantity("p × log10 2 for p = M + 1 significand bits", "number")
    dynamic_range: float = quantity("largest ÷ smallest value above 0", "sci")
    bits_per_value: float = quantity("element bits + scale bits ÷ values per scale", "number")
    saturates: bool  # a value past the largest rounds to it, rather than to infinity


def _row(number_format: str) -> NumberFormat:
    return NUMBER_FORMATS[one_of("number_format", number_format, tuple(NUMBER_FORMATS))]


def _element(row: NumberFormat) -> NumberFormat:
    return NUMBER_FORMATS[row.element] if row.element else row


def _float_limits(row: NumberFormat) -> tuple:
    """(largest exponent, largest finite value, smallest normal, smallest subnormal) of a float format."""
    top = 2 ** row.exponent_bits - 1 - row.bias - (1 if row.specials == "ieee" else 0)
    steps = 2 ** row.mantissa_bits - (2 if row.specials == "nan" else 1)
    largest = math.ldexp(1 + steps / 2 ** row.mantissa_bits, top)
    smallest_normal = math.ldexp(1, 1 - row.bias)
    return top, largest, smallest_normal, math.ldexp(1, 1 - row.bias - row.mantissa_bits)


def _grid(row: NumberFormat, negative: bool = False) -> tuple:
    """The magnitudes an integer or level format holds on one side of zero, ascending (integers in units of one
    step). NF4's sides differ: eight levels above zero and seven below (QLoRA, appendix E)."""
    if row.kind == "levels":
        return tuple(sorted(abs(level) for level in NF4_LEVELS if (level <= 0 if negative else level >= 0)))
    return tuple(range(2 ** (row.bits - 1)))


def _bits_per_value(row: NumberFormat) -> float:
    """Element bits + block-scale bits ÷ values per block; NF4's as QLoRA's double quantization stores it."""
    if row.kind == "levels":
        return quantization_layout(NF4_STORAGE).bits_per_weight
    if not row.block_values:
        return row.storage_bits or row.bits
    return row.bits + _scale_bits(row) / row.block_values


def _scale_bits(row: NumberFormat) -> float:
    return E8M0_BITS if row.scale == "e8m0" else NUMBER_FORMATS[row.scale].bits


def number_format_figures(number_format: str) -> NumberFormatFigures:
    """A format's figures: largest = (2 − 2^−M) × 2^(eₘₐₓ) (E4M3: 1.75 × 2^8), smallest normal 2^(1 − bias),
    smallest subnormal 2^(1 − bias − M), spacing at 1 2^−M, decimal digits (M + 1) × log10 2, bits per value
    b + scale bits ÷ block values.

    Sources: IEEE 754-2019 (FP32, FP16), the OCP 8-bit floating point and Microscaling specifications
    (FP8, FP6, FP4, MX), NVIDIA's NVFP4 description, the QLoRA paper (NF4, its double quantization). A
    block-scaled format's figures are its element's, before the scale. Integer and NF4 grids have no
    normal or subnormal values (smallest normal 0): an integer's figures are in steps of its scale, NF4's
    relative to its block's absmax, and their decimal digits are log10(largest ÷ spacing at the largest).
    """
    row = _row(number_format)
    element = _element(row)
    if element.kind == "float":
        _, largest, smallest_normal, smallest_subnormal = _float_limits(element)
        spacing = math.ldexp(1, -element.mantissa_bits)
        digits = (element.mantissa_bits + 1) * math.log10(2)
        layout = (("sign", 1), ("exponent", element.exponent_bits), ("mantissa", element.mantissa_bits))
    else:
        grid = _grid(element)
        largest, smallest_normal, smallest_subnormal = grid[-1], 0.0, grid[1]
        spacing = grid[-1] - grid[-2]
        digits = math.log10(largest / spacing)
        layout = (("sign", 1), ("integer", element.bits - 1)) if element.kind == "integer" else (("level", element.bits),)
    return NumberFormatFigures(
        label=row.label,
        layout=layout,
        largest=float(largest),
        smallest_normal=smallest_normal,
        smallest_subnormal=float(smallest_subnormal),
        spacing_at_one=float(spacing),
        decimal_digits=digits,
        dynamic_range=largest / smallest_subnormal,
        bits_per_value=_bits_per_value(row),
        saturates=element.specials != "ieee",
    )


@dataclass(frozen=True)
class RoundedNumber:
    value: float = quantity("the value to store", "sci")
    rounded: float = quantity("the nearest value the format holds, ties to even", "sci")
    below: float = quantity("the value the format holds next below the rounded one", "sci")
    above: float = quantity("the value the format holds next above the rounded one (itself at the largest)", "sci")
    error: float = quantity("rounded − value", "sci")
    relative_error: float = quantity("|rounded − value| ÷ |value|", "percent")
    scale: float = quantity("what one element is multiplied by: its block's and tensor's scales (1 for none)", "sci")
    saturated: bool  # the value lay past the largest and was stored as it
    bits: str = ""  # the element's bit pattern, most significant first ("0" and "1"), as `element_bits` writes it


def _limits_text(row: NumberFormat, scale: float) -> str:
    figures = number_format_figures(_key_of(row))
    return (f"{row.label} holds magnitudes from {figures.smallest_subnormal * scale:.4g} "
            f"to {figures.largest * scale:.6g}")


def _key_of(row: NumberFormat) -> str:
    return next(key for key, value in NUMBER_FORMATS.items() if value is row)


def _float_round(row: NumberFormat, magnitude: float) -> tuple:
    """(rounded, below, above, overflowed) for a magnitude ≥ 0 on a float element's grid, unsaturated."""
    _, largest, smallest_normal, _ = _float_limits(row)

    def spacing(x: float) -> float:  # the gap above x ≥ 0
        exponent = max(math.frexp(x)[1] - 1, 1 - row.bias) if x else 1 - row.bias
        return math.ldexp(1, exponent - row.mantissa_bits)

    step = spacing(magnitude)
    rounded = round(magnitude / step) * step  # Python's round: to nearest, ties to even, exact on floats
    if rounded > largest:
        return largest, largest - spacing(largest), largest, True
    # Below a power of two the binade, and so the gap, is half as wide.
    halved = rounded > smallest_normal and math.frexp(rounded)[0] == 0.5
    down = rounded - (spacing(rounded) / 2 if halved else spacing(rounded))
    return rounded, down, min(rounded + spacing(rounded), largest), False


def _grid_round(row: NumberFormat, magnitude: float, negative: bool = False) -> tuple:
    """(rounded, below, above, overflowed) on an integer or level grid, of the side of zero `negative` says; a tie
    goes to the even index."""
    grid = _grid(row, negative)
    if magnitude > grid[-1]:
        return grid[-1], grid[-2], grid[-1], True
    index = min(range(len(grid)), key=lambda i: (abs(grid[i] - magnitude), i % 2))
    down = grid[index - 1] if index else -_grid(row, not negative)[1]  # below zero: the first value of the other side
    return grid[index], down, grid[min(index + 1, len(grid) - 1)], False


def _block_scale(row: NumberFormat, block_absmax: float, tensor_absmax: float) -> float:
    """What an element of a scaled format is multiplied by, from its block's and tensor's absmax."""
    element = _element(row)
    if row.kind == "integer":
        return block_absmax / _grid(row)[-1]
    if row.kind == "levels":
        return block_absmax
    if not row.block_values:
        return 1.0
    if row.scale == "e8m0":  # OCP MX §6.3: X = 2^(⌊log2 amax⌋ − e_max of the element), within E8M0's range
        exponent = math.frexp(block_absmax)[1] - 1 - _float_limits(element)[0]
        return math.ldexp(1, min(max(exponent, E8M0_EXPONENTS[0]), E8M0_EXPONENTS[1]))
    scale_row = NUMBER_FORMATS[row.scale]
    scale_largest = _float_limits(scale_row)[1]
    element_largest = _float_limits(element)[1]
    tensor_scale = tensor_absmax / (element_largest * scale_largest)
    block_scale = _float_round(scale_row, block_absmax / element_largest / tensor_scale)[0]
    return block_scale * tensor_scale


def round_to_number_format(value: float, number_format: str, block_absmax: float | None = None,
                           tensor_absmax: float | None = None) -> RoundedNumber:
    """x̂ = s × round(x ÷ s), to nearest with ties to even, on the format's grid; s the scale: 1, a block's
    2^(⌊log2 amax⌋ − eₘₐₓ) (MX), the tensor's amax ÷ (6 × 448) × an E4M3 block scale (NVFP4), amax ÷ 127 (INT8)
    or amax (NF4).

    A value past the largest overflows where the format has infinity (IEEE 754 §7.4: an error here, as
    a number never reads infinity) and saturates to the largest where it has none (OCP E4M3, FP6, FP4,
    the integers and NF4). The block's and the tensor's absmax default to the value's magnitude: a
    block of one. Source: IEEE 754-2019 §4.3.1; OCP OFP8 §4 and MX v1.0 §6.3; NVIDIA's NVFP4; QLoRA.
    """
    row = _row(number_format)
    element = _element(row)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EstimatorError("value", value, f"a finite number; {_limits_text(element, 1.0)}")
    magnitude = abs(float(value))
    scaled = row.block_values or row.kind != "float"
    scale = 1.0
    if scaled:
        block = magnitude if block_absmax is None else positive("block_absmax", block_absmax)
        tensor = block if tensor_absmax is None else positive("tensor_absmax", tensor_absmax)
        if block < magnitude:
            raise EstimatorError("block_absmax", block_absmax, f"at least the value's magnitude, {magnitude:.6g}")
        if tensor < block:
            raise EstimatorError("tensor_absmax", tensor_absmax, f"at least the block's absmax, {block:.6g}")
        scale = _block_scale(row, block, tensor) if block else 1.0
    if scale == 0:  # a block far below its tensor's absmax: its E4M3 scale underflowed, every element is 0
        return RoundedNumber(float(value), rounded=0.0, below=0.0, above=0.0, error=-float(value),
                             relative_error=1.0 if value else 0.0, scale=0.0, saturated=False,
                             bits=element_bits(element, 0.0))
    unit = magnitude / scale
    negative = math.copysign(1.0, value) < 0
    if element.kind == "float":
        rounded, below, above, overflowed = _float_round(element, unit)
    else:
        rounded, below, above, overflowed = _grid_round(element, unit, negative)
    if overflowed and element.specials == "ieee" and not scaled:
        raise EstimatorError("value", value, f"at most {element.label}'s largest, past which it overflows to infinity: "
                             f"{_limits_text(element, 1.0)}")
    sign = -1.0 if negative else 1.0
    if negative:
        below, above = -above, -below
    result = sign * rounded * scale
    return RoundedNumber(
        value=float(value),
        rounded=result,
        below=below * scale,
        above=above * scale,
        error=result - value,
        relative_error=abs(result - value) / magnitude if magnitude else 0.0,
        scale=scale,
        saturated=overflowed,
        bits=element_bits(element, sign * rounded),
    )


def element_bits(element: NumberFormat, held: float) -> str:
    """The bit pattern of a value an element format holds (in units of its scale), most significant bit first.

    A float: sign s, biased exponent e = ⌊log2 |x|⌋ + bias and mantissa m = (|x| ÷ 2^(e − bias) − 1) × 2^M, or
    e = 0 and m = |x| ÷ 2^(1 − bias − M) for a subnormal (IEEE 754-2019 §3.4; OCP OFP8 §4, MX v1.0 §5.3); an
    integer in two's complement; an NF4 value its level's index among QLoRA's sixteen (appendix E).
    """
    if element.kind == "levels":
        index = min(range(len(NF4_LEVELS)), key=lambda i: abs(NF4_LEVELS[i] - held))
        return format(index, f"0{element.bits}b")
    if element.kind == "integer":
        return format(round(held) & (2 ** element.bits - 1), f"0{element.bits}b")
    magnitude, m_bits = abs(held), element.mantissa_bits
    exponent = math.frexp(magnitude)[1] - 1 if magnitude else 0
    if not magnitude or exponent < 1 - element.bias:
        biased, mantissa = 0, round(magnitude / math.ldexp(1, 1 - element.bias - m_bits))
    else:
        biased, mantissa = exponent + element.bias, round((magnitude / math.ldexp(1, exponent) - 1) * 2 ** m_bits)
    sign = "1" if math.copysign(1.0, held) < 0 else "0"
    return sign + format(biased, f"0{element.exponent_bits}b") + format(mantissa, f"0{m_bits}b")


def format_weight_bytes(params: float, number_format: str) -> float:
    """Bytes of Ψ weights stored in a format: Ψ × b ÷ 8, b its bits per value with its block scales' share:
    2Ψ in BF16, Ψ in FP8, about Ψ ÷ 2 in NF4 or the FP4 formats."""
    return finite_result("format_weight_bytes", positive("params", params) * _bits_per_value(_row(number_format)) / 8)


def format_peak_flops(peak_flops: dict, number_format: str) -> float | None:
    """A GPU's dense peak FLOP/s for matrix multiplies of a format's values: its peak at the precision they run in
    (FP8 for the FP8 and MXFP8 formats, FP4 for FP4, MXFP4 and NVFP4; NF4's weights are turned back into BF16 for
    each multiply, QLoRA §3), or None where the GPU lists no peak at that precision. Source: the GPU's datasheet."""
    return peak_flops.get(_row(number_format).multiplies_in)
