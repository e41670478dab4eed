"""The pinned state drawn beside the live one.

A reader who pins a state compares it with the live one (runtime.js's Pin): the chart draws the pinned
state's rows too, from datasets named `pinned_<dataset>` that the runtime fills with the pinned state's
rows and empties on unpin. The build draws none (the page has no pinned state), so a page without
JavaScript shows nothing of it. A pinned mark is the live layer's mark again, from the same encoding,
told apart by more than colour: outlined, not filled, dashed, in one neutral colour, its text alternative
starting "Pinned", and a word on the chart, "pinned", while any pinned mark is drawn.
"""

import altair as alt

from . import PINNED as PREFIX

# The marks' name, by which widgets.css draws their outline in the palette's text colour; this grey
# where no stylesheet reaches (a chart saved as SVG): over 3:1 against both palettes' backgrounds.
NAME = "pinned"
COLOUR = "#808080"
DASH = [3, 2]
STROKE_WIDTH = 1.5
# Channels that colour a mark: a pinned mark is one colour; a line's colour groups its rows, so a
# field it holds still does, as a detail.
_COLOUR_CHANNELS = ("color", "fill", "stroke", "opacity", "fillOpacity", "strokeDash", "strokeWidth")
_FILLED = ("bar", "rect", "area", "arc")
LABEL = "pinned_label"


def rows(dataset: str) -> alt.NamedData:
    return alt.NamedData(name=PREFIX + dataset)


def _mark(mark) -> dict:
    """The live mark's definition, outlined and dashed."""
    definition = mark.to_dict() if hasattr(mark, "to_dict") else {"type": mark}
    definition = {key: value for key, value in definition.items()
                  if key not in ("color", "fill", "stroke", "filled", "opacity", "fillOpacity", "strokeDash", "cursor")}
    outline = {"stroke": COLOUR, "strokeDash": DASH, "strokeWidth": max(STROKE_WIDTH, definition.get("strokeWidth", 0)),
               "opacity": 1}
    if definition["type"] in _FILLED:
        outline["fill"] = None
    elif definition["type"] == "point":
        outline["filled"] = False
    return {**definition, **outline}


def beside(layer: alt.Chart, dataset: str, keep: str | None = None) -> alt.Chart:
    """`layer`, drawn from the rows of `dataset`, drawn again from the pinned state's: outlined and dashed,
    each mark read as "Pinned: " and its label. `keep`, a Vega expression, picks the rows drawn (the picked
    marker of a ruler whose every marker is drawn)."""
    pinned = layer.copy(deep=True)
    pinned.data = rows(dataset)
    pinned.mark = _mark(layer.mark)
    encoding = pinned.encoding.to_dict() if pinned.encoding is not alt.Undefined else {}
    colour = encoding.get("color", {})
    for channel in _COLOUR_CHANNELS:
        encoding.pop(channel, None)
    if isinstance(colour, dict) and "field" in colour and "detail" not in encoding:
        encoding["detail"] = {"field": colour["field"], "type": colour.get("type", "nominal")}
    tooltip = encoding.get("tooltip")
    label = (tooltip[0] if isinstance(tooltip, list) else tooltip or {}).get("field", "label")
    encoding["tooltip"] = [{"field": LABEL, "type": "nominal", "title": "pinned"}]
    pinned.encoding = alt.FacetedEncoding.from_dict(encoding)
    transforms = list(pinned.transform) if pinned.transform is not alt.Undefined else []
    if keep:
        transforms.append(alt.FilterTransform(filter=keep))
    transforms.append(alt.CalculateTransform(calculate=f"'Pinned: ' + datum['{label}']", **{"as": LABEL}))
    pinned.transform = transforms
    pinned.name = f"{NAME}_{dataset}"
    return pinned


def word(layer: alt.Chart, dataset: str, keep: str | None = None, bottom: bool = False) -> alt.Chart:
    """"pinned" beside the first pinned mark of a layer of points, or else in the plot's top right corner
    ("dashed: pinned"; its bottom right corner if `bottom`, for a plot whose marks fill the top one), while
    the pinned state has a row of `dataset` to draw."""
    # The live layer's own transforms first: they make the fields its encoding reads.
    said = alt.Chart(rows(dataset), transform=list(layer.transform) if layer.transform is not alt.Undefined else [])
    said = said.transform_filter(keep) if keep else said
    said = said.transform_window(n="row_number()").transform_filter("datum.n == 1")
    text = {"align": "right", "baseline": "top", "fontSize": 10, "fontWeight": "bold", "color": COLOUR}
    encoding = layer.encoding.to_dict() if layer.encoding is not alt.Undefined else {}
    if _type(layer.mark) == "point" and "x" in encoding and "y" in encoding:
        at = {"x": alt.X(**encoding["x"]), "y": alt.Y(**encoding["y"])}
        return (said.mark_text(**{**text, "align": "center", "baseline": "bottom", "dy": -9})
                .encode(**at, text=alt.value("pinned")).properties(name=f"{NAME}_word_{dataset}"))
    if bottom:
        return (said.mark_text(**{**text, "baseline": "bottom"}, dy=-2, dx=-2)
                .encode(x=alt.value({"expr": "width"}), y=alt.value({"expr": "height"}), text=alt.value("dashed: pinned"))
                .properties(name=f"{NAME}_word_{dataset}"))
    return (said.mark_text(**text, dy=2, dx=-2).encode(x=alt.value({"expr": "width"}), y=alt.value(0), text=alt.value("dashed: pinned"))
            .properties(name=f"{NAME}_word_{dataset}"))


def _type(mark) -> str:
    return mark.to_dict()["type"] if hasattr(mark, "to_dict") else mark


def drawn(layer: alt.Chart, dataset: str, keep: str | None = None, bottom: bool = False) -> tuple:
    """The pinned marks and their word, to add to `layer`'s chart."""
    return beside(layer, dataset, keep), word(layer, dataset, keep, bottom)
