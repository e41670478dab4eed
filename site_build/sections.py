"""A page's content cut at its second-level headings, each part wrapped in a `<section>`, and
within each section the content between its headings in blocks the browser may skip.

A browser styles and lays out a block far from the viewport only when it comes near (site.css:
`content-visibility: auto` on a section's `<div>` children, its blocks), so a long article costs
in proportion to what is on screen. The headings stand outside the blocks: the theme's table of contents reads every
heading's position at load and again whenever the page's height changes, and reading the position
of an element inside a skipped block makes the browser lay out that whole block there and then
(on /training/ under a 4× slowed phone, over a second of forced layout at load). A heading outside
the blocks is placed by the blocks' estimated or remembered sizes alone.

A widget's controls (its presets and form, between the markers widget.html writes) in a section
that is not drawn from the first frame stand in a `<noscript>`: without JavaScript they read as they
are; with it they are text, no element, until the widget's block comes near and runtime.js makes
them. Chromium's form autofill reads every form control of a page once it is parsed, and asking
whether a control inside a skipped block can take focus lays that whole block out: with its widgets'
controls in place, /training/ spent over half a second so on a 4x slowed phone at every load. A
widget that runtime.js has not mounted two seconds in (its script blocked, or failed) gets its
controls from site.js, so its inputs are in the page whatever happens to the runtime.

The glossary marks a term's first use over the parts in order (`glossary.marked_once`). What comes before the first h2 (the title, the introduction) stays as it
is.
"""

import re

CLASS = "page-section"
_START = re.compile(r"<h2[\s>]")
# A tag, opening or closing, or a comment; enough to know how deep a heading stands. Markdown
# writes `>` inside an attribute's value as `&gt;`, so the first `>` ends the tag.
_TAG = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][\w:-]*)[^>]*?(/?)>", re.S)
_HEADING = {"h2", "h3"}
# Elements without a closing tag, which leave the depth as it was.
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def parts(html: str) -> list[str]:
    """The content before the first h2, then one part per h2."""
    starts = [0]
    for match in _START.finditer(html):
        if match.start():
            starts.append(match.start())
    return [html[a:b] for a, b in zip(starts, [*starts[1:], len(html)])]


# The sections drawn from the first frame, whatever their distance from the viewport (site.css:
# `section.page-section:nth-of-type(-n+2)`).
DRAWN_SECTIONS = 2
CONTROLS = ("<!--controls-->", "<!--/controls-->")
DEFERRED_CONTROLS = ("<noscript data-controls>", "</noscript>")


def wrapped(parts: list[str]) -> str:
    """The parts joined again, each that starts at an h2 inside a section of its own, its content
    between headings in blocks; the widgets' controls in the sections after the drawn ones deferred."""
    out, sections = [], 0
    for part in parts:
        if not part.startswith("<h2"):
            out.append(deferred_controls(part, defer=False))
            continue
        sections += 1
        out.append(f'<section class="{CLASS}">{_blocks(deferred_controls(part, defer=sections > DRAWN_SECTIONS))}</section>')
    return "".join(out)


def deferred_controls(html: str, defer: bool) -> str:
    """`html` with each widget's controls in a `<noscript>` (`defer`) or as they are."""
    for marker, replacement in zip(CONTROLS, DEFERRED_CONTROLS if defer else ("", "")):
        html = html.replace(marker, replacement)
    return html


def _blocks(part: str) -> str:
    """The part with its top-level h2 and h3 headings as they are and each run of content between
    them in a block; a heading inside a container (an admonition, a list) stays in its block."""
    out, start = [], 0
    for heading_start, heading_end in _headings(part):
        out += [_block(part[start:heading_start]), part[heading_start:heading_end]]
        start = heading_end
    return "".join([*out, _block(part[start:])])


def _headings(html: str) -> list[tuple[int, int]]:
    """(start, end) of each h2 or h3 that no other element holds; none if the tags do not balance,
    so that a part the count cannot follow stays one block rather than be cut inside an element."""
    found, depth, opened = [], 0, 0
    for tag in _TAG.finditer(html):
        closing, name, self_closing = tag.groups()
        if name is None or self_closing or name.lower() in _VOID:
            continue
        depth += -1 if closing else 1
        if depth < 0:
            return []
        if name.lower() in _HEADING:
            if not closing and depth == 1:
                opened = tag.start()
            elif closing and depth == 0:
                found.append((opened, tag.end()))
    return found if depth == 0 else []


def _block(html: str) -> str:
    # No class: a section's only children are its headings and its blocks, so `.page-section > div`
    # is exactly the blocks, in fewer bytes on every page.
    return f"<div>{html}</div>" if html.strip() else html
