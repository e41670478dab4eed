"""Raw HTML a page's Markdown carries through unchanged, held out of Python-Markdown's way.

Python-Markdown passes a raw HTML block through as written, but only after its HTML parser has read
every tag of it; a page's widgets (their forms, cards and inline SVG) and its list of derivation
cards were most of what converting a page cost. Each stands in the Markdown as one empty element,
which `put_back` replaces by the HTML once the page is HTML. `make serve` may keep this module from
one build to the next (site_build.project), so each build starts by dropping what the last held.
"""

import re

_HELD: list = []
_STAND_IN = re.compile(r'<div data-held="(\d+)"></div>')
# A line that opens an element Markdown takes as the start of a raw HTML block.
_BLOCK_OPENS = re.compile(r"<(p|div|section|table|details|ul|ol|dl|pre)[\s>]")


def forget() -> None:
    """Drop what the last build held."""
    _HELD.clear()


def hold(html: str) -> str:
    """The one-line stand-in for the raw HTML block `html` in a page's Markdown."""
    _HELD.append(html)
    return f'<div data-held="{len(_HELD) - 1}"></div>'


def put_back(html: str) -> str:
    """The page's HTML with each stand-in replaced by the HTML it holds."""
    return _STAND_IN.sub(lambda match: _HELD[int(match[1])], html)


def hold_blocks(markdown: str) -> str:
    """`markdown` with each of its blocks (between blank lines) that is raw HTML held: a block whose
    first line opens a block-level element and whose every line is a tag's (the What changed page's
    reasons and tables, between its Markdown headings)."""
    body = markdown.rstrip("\n")
    blocks = [
        hold(block) if _BLOCK_OPENS.match(block) and all(line.startswith("<") for line in block.split("\n")) else block
        for block in body.split("\n\n")
    ]
    return "\n\n".join(blocks) + markdown[len(body):]
