"""Number formats against their specifications, and rounding against the standard library's own."""

import math
import struct
from statistics import NormalDist

import pytest

from estimators import EstimatorError, format_peak_flops, format_weight_bytes, number_format_figures, round_to_number_format
from estimators.number_formats import NF4_LEVELS, NUMBER_FORMATS

# Each row: format, (largest, smallest normal, smallest subnormal, mantissa bits), as its source tables them.
PUBLISHED = [
    # IEEE 754-2019, table 3.5: binary32 and binary16 (emax 127 and 15, p 24 and 11)
    ("fp32", ((2 - 2**-23) * 2**127, 2**-126, 2**-149, 23)),
    ("fp16", (65504, 2**-14, 2**-24, 10)),
    # Google's bfloat16: FP32's exponent, 8 significand bits; NVIDIA A100 whitepaper: TF32, FP32's range, FP16's precision
    ("bf16", ((2 - 2**-7) * 2**127, 2**-126, 2**-133, 7)),
    ("tf32", ((2 - 2**-10) * 2**127, 2**-126, 2**-136, 10)),
    # OCP 8-bit floating point specification (OFP8) rev 1.0, table 1
    ("fp8_e4m3", (448, 2**-6, 2**-9, 3)),
    ("fp8_e5m2", (57344, 2**-14, 2**-16, 2)),
    # OCP Microscaling specification v1.0, tables 2 and 3
    ("fp6_e3m2", (28, 2**-2, 2**-4, 2)),
    ("fp6_e2m3", (7.5, 1, 2**-3, 3)),
    ("fp4_e2m1", (6, 1, 0.5, 1)),
]


@pytest.mark.parametrize("key, published", PUBLISHED)
def test_a_float_formats_figures_are_its_specifications(key, published):
    largest, normal, subnormal, mantissa = published
    figures = number_format_figures(key)
    assert (figures.largest, figures.smallest_normal, figures.smallest_subnormal) == (largest, normal, subnormal)
    assert figures.spacing_at_one == 2.0**-mantissa
    assert figures.decimal_digits == pytest.approx((mantissa + 1) * math.log10(2))
    assert figures.dynamic_range == largest / subnormal
    assert sum(bits for _, bits in figures.layout) == NUMBER_FORMATS[key].bits


def test_e4m3_has_no_infinity_and_saturates_where_e5m2_overflows():
    """OCP OFP8 §4: E4M3's only NaN is S.1111.111, so 1.75 × 2^8 is its largest; past it a conversion saturates."""
    assert round_to_number_format(1e6, "fp8_e4m3").rounded == 448
    assert round_to_number_format(1e6, "fp8_e4m3").saturated
    assert round_to_number_format(464, "fp8_e4m3").rounded == 448  # a tie between 448 and 480 goes to even
    with pytest.raises(EstimatorError) as raised:
        round_to_number_format(61440, "fp8_e5m2")  # halfway past 57344: rounds to infinity
    assert raised.value.argument == "value" and "57344" in raised.value.allowed


def test_every_fp4_value_is_the_microscaling_specifications():
    """OCP MX v1.0 table 3: FP4 E2M1 holds 0, 0.5, 1, 1.5, 2, 3, 4, 6."""
    values = {0, 0.5, 1, 1.5, 2, 3, 4, 6}
    for x in values:
        assert round_to_number_format(x, "fp4_e2m1").rounded == x
    assert round_to_number_format(2.5, "fp4_e2m1").rounded == 2  # tie, to the even mantissa
    assert round_to_number_format(5, "fp4_e2m1").rounded == 4
    assert round_to_number_format(0.25, "fp4_e2m1").rounded == 0


@pytest.mark.parametrize("key, element_bits, scale_bits, block", [
    # OCP MX v1.0 table 1: one E8M0 scale per 32 elements
    ("mxfp8", 8, 8, 32), ("mxfp6", 6, 8, 32), ("mxfp4", 4, 8, 32),
    # NVIDIA's NVFP4: one E4M3 scale per 16 FP4 values (the tensor's one FP32 scale costs nothing per value)
    ("nvfp4", 4, 8, 16),
])
def test_a_block_scaled_format_counts_its_scales_bits(key, element_bits, scale_bits, block):
    assert number_format_figures(key).bits_per_value == element_bits + scale_bits / block


def test_mx_scale_is_the_largest_power_of_two_below_the_blocks_absmax_over_the_elements():
    """OCP MX v1.0 §6.3: X = 2^(⌊log2 amax⌋ − e_max); E2M1's e_max is 2, so a block of absmax 5 has X = 2^0."""
    rounded = round_to_number_format(0.3, "mxfp4", block_absmax=5)
    assert rounded.scale == 1 and rounded.rounded == 0.5
    assert round_to_number_format(7.9, "mxfp8", block_absmax=7.9).scale == 2.0**(2 - 8)


def test_nvfp4_scales_a_block_to_fp4s_largest_and_the_tensor_to_e4m3s():
    """NVIDIA NVFP4: tensor scale = amax / (6 × 448), block scale E4M3(amax_block / 6 / tensor scale)."""
    rounded = round_to_number_format(3.0, "nvfp4", block_absmax=3.0, tensor_absmax=2688.0)
    assert rounded.scale == 0.5 and rounded.rounded == 3.0  # tensor scale 2688 / 2688 = 1, block scale E4M3(3 / 6) = 0.5
    assert round_to_number_format(-6.0, "nvfp4").rounded == -6.0


def test_nf4_levels_are_qloras_normal_quantiles():
    """QLoRA §3 and appendix E: q_i from the normal quantile, 8 positive and 7 negative, normalised to [−1, 1]
    (bitsandbytes' construction, offset 0.9677)."""
    normal = NormalDist()
    offset = 0.9677083

    def spaced(n):
        return [offset + (0.5 - offset) * i / (n - 1) for i in range(n)][:-1]

    positive = [normal.inv_cdf(p) for p in spaced(9)]
    negative = [-normal.inv_cdf(p) for p in spaced(8)]
    levels = sorted(positive + [0.0] + negative)
    top = max(levels)
    assert [level / top for level in levels] == pytest.approx(NF4_LEVELS, abs=1e-6)


def test_nf4_with_double_quantization_costs_qloras_bits():
    """QLoRA §3: double quantization takes the scales from 32/64 = 0.5 to 8/64 + 32/(64 × 256) = 0.127 bits."""
    assert number_format_figures("nf4").bits_per_value == pytest.approx(4 + 8 / 64 + 32 / (64 * 256))
    assert round_to_number_format(0.3, "nf4", block_absmax=1).rounded == NF4_LEVELS[11]


@pytest.mark.parametrize("key, largest", [("int8", 127), ("int4", 7)])
def test_an_integer_format_scales_by_absmax_and_saturates(key, largest):
    assert number_format_figures(key).largest == largest
    rounded = round_to_number_format(0.5, key, block_absmax=1.0)
    assert rounded.scale == 1 / largest
    assert rounded.rounded == round(0.5 * largest) / largest


def _sweep():
    """Values across both formats' ranges: subnormals, the normal boundary, ties, the overflow edge."""
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, math.pi, 1e-3, 12345.678]
    for e in range(-160, 130, 3):
        for f in (1.0, 1.1, 1.5, 1.75, 1.9999):
            values += [f * 2.0**e, -f * 2.0**e]
    for bits, mantissa, emin in ((16, 10, -14), (32, 23, -126)):
        for e in range(emin - mantissa, emin + 3):
            step = 2.0**e
            values += [1.5 * step, 2.5 * step, 0.5 * step, 0.25 * step]  # ties on the subnormal grid, and below it
        for k in range(1, 40):
            values += [1 + (k + 0.5) * 2.0**-mantissa]  # ties at 1: to the even neighbour
    values += [65504.0, 65519.99, 65520.0, 65536.0, 3.4028234e38, 3.4028235677973366e38, 3.5e38]
    return values


@pytest.mark.parametrize("key, code", [("fp16", "e"), ("fp32", "f")])
def test_rounding_agrees_with_struct(key, code):
    """struct packs half and single precision by IEEE 754: round to nearest even, and past the range an
    OverflowError or infinity, where the estimator names the format's limits rather than print infinity."""
    checked = 0
    for value in _sweep():
        try:
            expected = struct.unpack(code, struct.pack(code, value))[0]
            if math.isinf(expected):
                raise OverflowError(value)
        except OverflowError:
            with pytest.raises(EstimatorError):
                round_to_number_format(value, key)
            continue
        rounded = round_to_number_format(value, key)
        assert rounded.rounded == expected and math.copysign(1, rounded.rounded) == math.copysign(1, expected), value
        assert rounded.below < rounded.rounded <= rounded.above or expected == 0
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("key", ["fp16", "fp32"])
def test_the_neighbours_are_the_next_values_struct_holds(key):
    code = {"fp16": "e", "fp32": "f"}[key]
    for value in (1.0, 0.75, 2.0**-20, 1000.0):
        rounded = round_to_number_format(value, key)
        bits = struct.unpack("<H" if code == "e" else "<I", struct.pack("<" + code, rounded.rounded))[0]
        pack = "<H" if code == "e" else "<I"
        up = struct.unpack("<" + code, struct.pack(pack, bits + 1))[0]
        down = struct.unpack("<" + code, struct.pack(pack, bits - 1))[0]
        assert (rounded.below, rounded.above) == (down, up)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "1.5", None, True])
def test_bad_value_names_the_field_and_the_formats_limits(value):
    with pytest.raises(EstimatorError) as raised:
        round_to_number_format(value, "fp8_e4m3")
    assert raised.value.argument == "value" and "448" in raised.value.allowed


def test_unknown_format_and_bad_absmax_are_named():
    with pytest.raises(EstimatorError) as raised:
        number_format_figures("fp7")
    assert raised.value.argument == "number_format"
    with pytest.raises(EstimatorError) as raised:
        round_to_number_format(2.0, "mxfp4", block_absmax=1.0)
    assert raised.value.argument == "block_absmax"


def test_every_half_precision_value_and_every_midpoint_rounds_as_struct_does():
    """All 63,488 finite FP16 values, decoded by struct: each rounds to itself, and each tie between two
    neighbours (in binary64, exact) rounds as struct rounds it, to the one whose last bit is 0."""
    finite = sorted({struct.unpack("<e", struct.pack("<H", bits))[0] for bits in range(1 << 16)} - {math.inf, -math.inf},
                    key=lambda x: (x, math.copysign(1, x)))
    finite = [x for x in finite if not math.isnan(x)]
    for low, high in zip(finite, finite[1:]):
        assert round_to_number_format(low, "fp16").rounded == low
        middle = (low + high) / 2
        assert round_to_number_format(middle, "fp16").rounded == struct.unpack("<e", struct.pack("<e", middle))[0]


def _decode(bits: int, exponent_bits: int, mantissa_bits: int, specials: str) -> float | None:
    """A bit pattern as the OCP OFP8 and MX specifications read it; None for NaN and infinity."""
    sign = -1.0 if bits >> (exponent_bits + mantissa_bits) else 1.0
    exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    bias = 2 ** (exponent_bits - 1) - 1
    top = exponent == (1 << exponent_bits) - 1
    if (specials == "ieee" and top) or (specials == "nan" and top and mantissa == (1 << mantissa_bits) - 1):
        return None
    if exponent == 0:
        return sign * 2.0 ** (1 - bias) * mantissa / 2**mantissa_bits
    return sign * 2.0 ** (exponent - bias) * (1 + mantissa / 2**mantissa_bits)


@pytest.mark.parametrize("key, exponent_bits, mantissa_bits, specials", [
    ("fp8_e4m3", 4, 3, "nan"), ("fp8_e5m2", 5, 2, "ieee"),  # OCP OFP8 rev 1.0, §4
    ("fp6_e3m2", 3, 2, "none"), ("fp6_e2m3", 2, 3, "none"), ("fp4_e2m1", 2, 1, "none"),  # OCP MX v1.0, §5.3
])
def test_the_small_floats_hold_exactly_the_values_their_bit_patterns_decode_to(key, exponent_bits, mantissa_bits, specials):
    patterns = {}  # value: its bit pattern (0 and −0 both even)
    for bits in reversed(range(1 << (1 + exponent_bits + mantissa_bits))):
        patterns[_decode(bits, exponent_bits, mantissa_bits, specials)] = bits
    values = sorted(set(patterns) - {None})
    figures = number_format_figures(key)
    assert values[-1] == figures.largest and min(v for v in values if v > 0) == figures.smallest_subnormal
    for low, high in zip(values, values[1:]):
        rounded = round_to_number_format(high, key)
        assert rounded.rounded == high and (rounded.below == low or high == 0)
        even = low if patterns[low] % 2 == 0 else high  # a tie goes to the even mantissa
        assert round_to_number_format((low + high) / 2, key).rounded == even


def test_int8_is_llm_int8s_symmetric_absmax_quantization():
    """Dettmers et al. 2022 (LLM.int8(), §2, eq. 1): x_i8 = round(127 × x ÷ absmax), so the block's largest
    magnitude maps to ±127 (never −128: the grid is symmetric) and the step is absmax ÷ 127."""
    figures = number_format_figures("int8")
    assert (figures.largest, figures.smallest_subnormal, figures.spacing_at_one) == (127, 1, 1)
    assert figures.bits_per_value == 8
    for value, absmax in ((0.5, 1.0), (-0.5, 1.0), (-3.0, 3.0), (0.01, 2.5)):
        rounded = round_to_number_format(value, "int8", block_absmax=absmax)
        q = round(127 * value / absmax)  # Python's round: to nearest, ties to even, as the format rounds
        assert rounded.rounded == q * absmax / 127 and rounded.scale == absmax / 127
        assert int(rounded.bits, 2) == q % 256  # two's complement
    assert round_to_number_format(-3.0, "int8", block_absmax=3.0).bits == "10000001"  # −127
    assert round_to_number_format(-3.0, "int8", block_absmax=3.0).below == -3.0  # nothing held past the largest


@pytest.mark.parametrize("key, code, pack", [("fp16", "<e", "<H"), ("fp32", "<f", "<I")])
def test_the_bits_of_a_rounded_value_are_structs(key, code, pack):
    """struct packs IEEE 754's bit patterns: sign, biased exponent, mantissa; subnormals and zero included."""
    width = NUMBER_FORMATS[key].bits
    for value in (1.0, -2.5, 0.1, 65504.0, 2.0**-24, 2.0**-20, 0.0, -0.0, 1 / 3):
        rounded = round_to_number_format(value, key)
        expected = struct.unpack(pack, struct.pack(code, rounded.rounded))[0]
        assert rounded.bits == format(expected, f"0{width}b"), value


def test_the_small_floats_bits_decode_to_the_value_they_hold():
    """OCP OFP8 §4 and MX v1.0 §5.3, read back by `_decode`: every bit pattern the rounding writes decodes to it."""
    for key, (e, m, specials) in {"fp8_e4m3": (4, 3, "nan"), "fp8_e5m2": (5, 2, "ieee"), "fp4_e2m1": (2, 1, "none")}.items():
        for value in (0.3, 1.0, 2.5, 6.0, -0.75, 0.001):
            rounded = round_to_number_format(value, key)
            assert _decode(int(rounded.bits, 2), e, m, specials) == rounded.rounded, (key, value)


def test_weights_in_a_format_cost_its_bits_per_value():
    """Ψ × b ÷ 8: 2 bytes a weight in BF16, 1 in FP8, 4.127 bits in NF4 with double quantization (QLoRA §3)."""
    params = 8e9
    assert format_weight_bytes(params, "bf16") == 2 * params
    assert format_weight_bytes(params, "fp8_e4m3") == params
    assert format_weight_bytes(params, "nf4") == pytest.approx(params * (4 + 8 / 64 + 32 / (64 * 256)) / 8)
    with pytest.raises(EstimatorError) as raised:
        format_weight_bytes(0, "bf16")
    assert raised.value.argument == "params"


def test_a_formats_peak_is_the_gpus_at_the_precision_it_multiplies_in():
    peaks = {"bf16": 989e12, "fp8": 1979e12}  # the H100 SXM's dense peaks (its datasheet)
    assert format_peak_flops(peaks, "fp8_e5m2") == format_peak_flops(peaks, "mxfp8") == 1979e12
    assert format_peak_flops(peaks, "nf4") == 989e12  # QLoRA §3: NF4 weights are multiplied in BF16
    assert format_peak_flops(peaks, "nvfp4") is None  # the H100 has no FP4 tensor cores


def test_nf4_rounds_a_negative_weight_to_its_own_negative_levels():
    """QLoRA appendix E: NF4 has eight levels above zero and seven below, at other quantiles, so a negative weight
    rounds among the negative levels, never to a positive level's mirror image."""
    for value in (-0.7, -0.3, -0.05, -0.95, 0.05):
        rounded = round_to_number_format(value, "nf4", block_absmax=1.0)
        nearest = min(NF4_LEVELS, key=lambda level: abs(level - value))
        assert rounded.rounded == nearest and rounded.rounded in NF4_LEVELS
        assert NF4_LEVELS[int(rounded.bits, 2)] == nearest
        index = NF4_LEVELS.index(nearest)  # at −1, the end of the levels, the value itself stands for the one below
        assert (rounded.below, rounded.above) == (NF4_LEVELS[max(index - 1, 0)], NF4_LEVELS[index + 1])
