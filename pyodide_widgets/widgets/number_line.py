"""A value stored in fewer bits: the format's bits, its neighbours and the rounding error.

The reader types a value and picks a format; estimators.round_to_number_format rounds it to the
nearest value the format holds (ties to even), with the two values the format holds either side and
the bit pattern it is stored as. Every format rounds the same value, side by side, on one log scale
of their ranges (estimators.number_format_figures). Folded: a model and a GPU, for the bytes of its
weights in that format (estimators.format_weight_bytes) and the GPU's peak for multiplies of it
(estimators.format_peak_flops).
"""

import re

import estimators
from estimators import units
from estimators.number_formats import NUMBER_FORMATS

from ..contract import Output, choice, from_entry, from_preset, model_choice, number, preset, read

TITLE = "A number in fewer bits"
CHART = "number_line"

_PRESETS = estimators.load_presets()
# From far below FP32's smallest value (1.4e-45), which every format rounds to zero, to far past the largest
# block-scaled magnitude (MX: 2^127 × 448, about 7.6e40): beyond both, a typo.
SMALLEST, LARGEST = 1e-50, 1e50

FIELDS = (
    choice("format", "Number format", {key: row.label for key, row in NUMBER_FORMATS.items()}),
    number("value", "Value to store", min=SMALLEST, max=LARGEST),
    number("block_others", "Largest other value in its block", min=SMALLEST, max=LARGEST,
           note="sets the shared scale of INT8, INT4, NF4 and the block-scaled formats"),
    model_choice("model", "Model", _PRESETS.models),
    choice("gpu", "GPU", {key: gpu.name for key, gpu in _PRESETS.gpus.items()}),
)
# Beside the picture: the format and the value it rounds; the block, model and GPU wait under "More inputs".
MAIN = ("format", "value")

_ROUNDING = ("format", "value", "block_others")
_R = estimators.RoundedNumber
_F = estimators.NumberFormatFigures

OUTPUTS = (
    Output("stored", "Stored as", detail="error", of=(_R, "rounded"), uses=_ROUNDING),
    Output("neighbours", "Its neighbours in the format", detail="gap", of=(_R, "below"), uses=_ROUNDING),
    Output("range", "The format holds", detail="digits", of=estimators.number_format_figures, uses=("format",)),
    Output("weights", "The model's weights in it", detail="per_value", of=estimators.format_weight_bytes,
           uses=("format", "model")),
    Output("peak", "The GPU's dense peak for it", detail="peak_note", of=estimators.format_peak_flops,
           uses=("format", "gpu")),
)


def presets() -> dict:
    """One per value to store (the first is the default), each on Llama 3 8B and the H100."""
    model, gpu = _PRESETS.model("llama3-8b"), _PRESETS.gpu("h100-sxm")
    return {
        key: preset(FIELDS, example.name, {
            "format": from_preset(example, "number_format"),
            "value": from_preset(example, "value"),
            "block_others": from_preset(example, "block_others"),
            "model": from_entry(model),
            "gpu": from_entry(gpu),
        })
        for key, example in _PRESETS.stored_values.items()
    }


def _limits(figures) -> str:
    """"FP16 holds magnitudes from 5.96e-8 to 65,504": the smallest above zero to the largest."""
    return f"{figures.label} holds magnitudes from {units.number(figures.smallest_subnormal)} to {units.number(figures.largest)}"


def _read(state: dict) -> dict:
    """The form, read; a value that is not a number in range is named with the format's limits too."""
    try:
        return read(FIELDS, state)
    except estimators.EstimatorError as error:
        fmt = state.get("format")
        if error.argument != "value" or fmt not in NUMBER_FORMATS:
            raise
        limits = _limits(estimators.number_format_figures(fmt))
        raise estimators.EstimatorError("value", error.value, f"{error.allowed}; {limits}") from None


def _scaled(fmt: str) -> bool:
    row = NUMBER_FORMATS[fmt]
    return bool(row.block_values) or row.kind != "float"


def _round(value: float, fmt: str, block_others: float):
    """The value rounded in `fmt`, its block's absmax the larger of it and the block's other values; None past an
    infinity the format overflows to."""
    block = max(value, block_others) if _scaled(fmt) else None
    try:
        return estimators.round_to_number_format(value, fmt, block_absmax=block)
    except estimators.EstimatorError:
        return None


def _as_typed(value: float) -> str:
    """The value with every digit the reader gave it, its exponent as the site writes one: 1.00008, 1e-8."""
    return re.sub(r"e([+-])0*(\d)", lambda m: f"e{m[1].replace('+', '')}{m[2]}", units.plain(value))


def _error_note(r, figures, share: bool = True) -> str:
    """What rounding did: saturated, flushed to zero, or the error (and its `share` of the value)."""
    if r.saturated:
        return f"saturated: past its largest, {units.number(figures.largest * r.scale)}"
    if r.rounded == 0:
        return f"to zero: below half its smallest, {units.sci(figures.smallest_subnormal * r.scale)}"
    return f"off by {units.sci(r.error)}" + (f", {units.percent(r.relative_error)} of the value" if share else "")


def update(state: dict) -> dict:
    """Outputs (text) and chart rows for one state of the form."""
    s = _read(state)
    fmt, value = s["format"], s["value"]
    figures = estimators.number_format_figures(fmt)
    r = _round(value, fmt, s["block_others"])
    if r is None:
        raise estimators.EstimatorError("value", state["value"], f"at most {units.number(figures.largest)}, past which "
                                        f"{figures.label} overflows to infinity; {_limits(figures)}")
    model, gpu = _PRESETS.model(s["model"]), _PRESETS.gpu(s["gpu"])
    weights = estimators.format_weight_bytes(model.params, fmt)
    peak = estimators.format_peak_flops(gpu.peak_flops, fmt)
    multiplies_in = NUMBER_FORMATS[fmt].multiplies_in.upper()
    outputs = {
        "stored": units.apart(r.rounded, value),
        "error": _error_note(r, figures),
        "neighbours": f"{units.apart(r.below, r.rounded)} and {units.apart(r.above, r.rounded)}",
        "gap": f"a gap of {units.sci(r.above - r.below)} across them",
        "range": f"{units.number(figures.smallest_subnormal)} to {units.number(figures.largest)}",
        "digits": f"{units.number(figures.decimal_digits)} decimal digits" + (
            ", times its block's scale" if _scaled(fmt) else ""),
        "weights": units.bytes_(weights),
        "per_value": f"{units.number(figures.bits_per_value)} bits per value, {model.name}",
        "peak": units.si(peak, "FLOP/s") if peak else f"none listed at {multiplies_in}",
        "peak_note": (f"{gpu.name} at {multiplies_in}" if peak else
                      f"the {gpu.name} lists {', '.join(p.upper() for p in gpu.peak_flops)}"),
    }
    outputs["summary"] = (f"{_as_typed(value)} in {figures.label} is stored as {outputs['stored']}, "
                          f"{outputs['error']}; its neighbours are {outputs['neighbours']}.")
    return {"outputs": outputs, "data": _rows(fmt, value, s["block_others"], r, figures)}


def _rows(fmt: str, value: float, block_others: float, r, figures) -> dict:
    """The picture's rows: the chosen format's bits, its neighbourhood, and every format's range with the value."""
    bits, start = [], 0
    for name, width in figures.layout:
        for i in range(width):
            bits.append({"x": start + i, "x2": start + i + 1, "part": name, "bit": r.bits[start + i],
                         "label": f"{name} bit: {r.bits[start + i]}"})
        start += width
    row = NUMBER_FORMATS[fmt]
    parts = [f"{units.integer(width)} {name}" for name, width in figures.layout]
    if row.block_values and row.kind == "float":  # the shared scale's bits, spread over the values of its block
        share = figures.bits_per_value - row.bits
        bits.append({"x": start, "x2": start + share, "part": "shared scale", "bit": "",
                     "label": f"shared scale: {units.number(share)} bits per value"})
        parts.append(f"{units.number(share)} scale")
    # At the largest value a saturating format holds, nothing is held above it.
    held = [("held", "held below", r.below), ("stored", "stored as", r.rounded)]
    held += [("held", "held above", r.above)] if r.above != r.rounded else []
    # Drawn with every digit that tells it from the value; read out (its label) at the policy's digits.
    near = [{"at": at, "kind": kind, "text": units.apart(at, value), "label": f"{name}: {units.number(at)}"}
            for kind, name, at in held]
    near.append({"at": value, "kind": "value", "text": _as_typed(value), "label": f"your value: {units.number(value)}"})
    error = [{"from": value, "to": r.rounded, "label": _error_note(r, figures, share=False)}]
    formats = []
    for order, (key, other) in enumerate(NUMBER_FORMATS.items()):
        f = estimators.number_format_figures(key)
        rounded = _round(value, key, block_others)
        scale = rounded.scale if rounded else 1.0
        if rounded is None:
            said = f"{other.label}: overflows to infinity past {units.number(f.largest)}"
        else:
            said = f"{other.label}: {units.number(rounded.rounded)}, {_error_note(rounded, f, share=False)}"
        formats.append({"format": other.label, "order": order, "low": f.smallest_subnormal * scale,
                        "high": f.largest * scale, "picked": key == fmt, "value": value, "label": said,
                        "pick": f"format={key}"})
    caption = [{"text": " · ".join(parts) + " bits"}]
    return {"bits": bits, "caption": caption, "near": near, "error": error, "formats": formats}
