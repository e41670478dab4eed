"""A page's content cut at its second-level headings, each part wrapped in a `<section>`, and
the content between a section's headings in blocks that a browser skips while far away.

A browser lays out and styles a block far from the viewport only when it comes near
(site.css: `content-visibility: auto` on `.page-section__part`), so a long article costs
in proportion to what is on screen. The headings stay outside those blocks: the theme's
table of contents reads every heading's position at load, and reading one inside a skipped
block makes the browser lay that whole block out (on a phone with the CPU slowed 4×, the
training page's headings cost 650 ms of forced layout so). The same parts are the sections
in which the glossary marks a term's first use (`glossary.marked_once`).

What comes before the first heading (the title, the introduction) stays as it
is, and so does the list of derivations a page ends with (site_build/cards.py),
a section of its own whose heading is not the start of another.
"""

import re

CLASS = "page-section"
PART = "page-section__part"
_START = re.compile(r"<h2[\s>]")
# A tag, its attributes' quoted values allowed to hold ">".
_TAG = re.compile(r"""<(/?)([a-zA-Z][\w:-]*)(?:"[^"]*"|'[^']*'|[^'">])*?(/?)>""")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_HEADING = re.compile(r"h[2-6]")
# A skipped block's height before it is first drawn, in rem: its text in lines at a phone's
# column, and a block of this much for each table, figure or widget in it. `auto` in site.css
# then remembers the real height.
_CHARS_PER_REM = 40
_REM_PER_BLOCK = 15
_BLOCKS = re.compile(r"<table\b|<figure\b|<svg\b|\sdata-widget=")


def parts(html: str) -> list[str]:
    """The content before the first h2, then one part per h2."""
    starts = [0]
    for match in _START.finditer(html):
        if match.start():
            starts.append(match.start())
    return [html[a:b] for a, b in zip(starts, [*starts[1:], len(html)])]


def headings(part: str) -> list[tuple[int, int]]:
    """(start, end) of each heading at the part's top level, none nested in another element."""
    found, depth, opened = [], 0, None
    for tag in _TAG.finditer(part):
        closing, name, self_closing = tag.group(1), tag.group(2).lower(), tag.group(3)
        if name in _VOID or self_closing:
            continue
        if closing:
            depth -= 1
            if depth == 0 and opened is not None:
                found.append((opened, tag.end()))
                opened = None
        else:
            if depth == 0 and _HEADING.fullmatch(name):
                opened = tag.start()
            depth += 1
    return found


def estimated_rem(block: str) -> int:
    text = re.sub(r"<[^>]*>", "", block)
    return round(len(text.strip()) / _CHARS_PER_REM + _REM_PER_BLOCK * len(_BLOCKS.findall(block)))


def contained(part: str) -> str:
    """The part with the content between its headings in skippable blocks."""
    pieces, at = [], 0
    for start, end in [*headings(part), (len(part), len(part))]:
        between = part[at:start]
        if between.strip():
            pieces.append(f'<div class="{PART}" style="contain-intrinsic-size: auto {estimated_rem(between)}rem">{between}</div>')
        else:
            pieces.append(between)
        pieces.append(part[start:end])
        at = end
    return "".join(pieces)


def wrapped(parts: list[str]) -> str:
    """The parts joined again, each that starts at an h2 inside a section of its own."""
    return "".join(
        f'<section class="{CLASS}">{contained(part)}</section>' if part.startswith("<h2") else part for part in parts
    )
