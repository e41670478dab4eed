"""A pinned state beside the live one: each output's pinned text and how the live output differs.

The difference is taken between the figures `update` printed, never between
texts: while a state is computed, every call of a `units` formatter is
recorded with the value it was given, and an output's figures are the
recorded texts that stand in it as whole figures. Of an output whose text
moved, the first of its figures that prints otherwise is compared with the
pinned text's figure at the same place: two figures of one kind of quantity
(`units.kind_of`) by `units.difference`; otherwise, or without figures, the
output has only "changed".
"""

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

from estimators import units

from . import module

SAME, CHANGED = "same", "changed"
# A figure's text stands whole where no digit, or point or comma with a digit after it, continues it.
_BEFORE = re.compile(r"[\w.,]$")
_AFTER = re.compile(r"^(?:\d|[.,]\d)")


@dataclass(frozen=True)
class Figure:
    """One number as a formatter printed it: `formatter(value, *args, **dict(kwargs)) == text`."""

    text: str
    value: float
    formatter: object
    args: tuple
    kwargs: tuple

    @property
    def kind(self) -> str:
        return units.kind_of(self.formatter, *self.args, **dict(self.kwargs))


@contextmanager
def _recording():
    """Every units formatter called in the block, recorded as a Figure in the list it yields."""
    figures = []

    def recorded(formatter):
        def call(value, *args, **kwargs):
            text = formatter(value, *args, **kwargs)
            figures.append(Figure(text, value, formatter, args, kwargs=tuple(sorted(kwargs.items()))))
            return text
        return call

    originals = {fn.__name__: fn for fn in units.FORMATTERS.values()}
    for name, formatter in originals.items():
        setattr(units, name, recorded(formatter))
    try:
        yield figures
    finally:
        for name, formatter in originals.items():
            setattr(units, name, formatter)


def _standing(text: str, figure: str):
    """Each place where `figure` stands in `text` as a whole figure (not part of a longer one)."""
    at = text.find(figure)
    while at >= 0:
        if not _BEFORE.search(text[:at]) and not _AFTER.search(text[at + len(figure):]):
            yield at
        at = text.find(figure, at + 1)


def figures_in(text: str, figures) -> list:
    """The recorded figures that stand in `text`, in its order; of two starting alike, the longer."""
    found = sorted((at, -len(f.text), i, f) for i, f in enumerate(figures) if f.text for at in _standing(text, f.text))
    kept, end = [], 0
    for at, length, _, figure in found:
        if at >= end:
            kept.append(figure)
            end = at - length
    return kept


def printed(widget, state: dict) -> tuple:
    """(update's result, {output key: the figures its text holds, in order}) for `state`."""
    with _recording() as figures:
        result = widget.update(state)
    return result, {key: figures_in(text, figures) for key, text in result["outputs"].items()}


@lru_cache(maxsize=16)
def _pinned(name: str, state_json: str) -> tuple:
    # A pinned state stays put while the live one moves: computed once, not once per keystroke.
    return printed(module(name), json.loads(state_json))


def differences(pinned: tuple, live: tuple) -> dict:
    """{output key: how the live output reads against the pinned one}, from two `printed` answers:
    the difference of the first figure that prints otherwise (the text's figures paired in order)."""
    (pinned_result, pinned_figures), (live_result, live_figures) = pinned, live
    found = {}
    for key, text in live_result["outputs"].items():
        if text == pinned_result["outputs"].get(key):
            found[key] = SAME
            continue
        pairs = zip(pinned_figures.get(key, ()), live_figures[key])
        before, after = next(((b, a) for b, a in pairs if b.text != a.text), (None, None))
        moved = before and before.kind == after.kind and units.difference(before.value, after.value, after.formatter, *after.args)
        found[key] = moved if moved and moved != SAME else CHANGED
    return found


def against(name: str, pinned_state: dict, live: tuple) -> dict:
    """{"outputs": the pinned state's, "differences": the live ones' against them, "data": the pinned
    state's chart rows, which its chart draws beside the live ones}; a bad pinned state raises
    EstimatorError naming its field, as a live one does."""
    pinned = _pinned(name, json.dumps(pinned_state, sort_keys=True))
    return {"outputs": pinned[0]["outputs"], "differences": differences(pinned, live), "data": pinned[0]["data"]}
