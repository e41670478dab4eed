"""A page's content cut at its second-level headings, each part wrapped in a `<section>`.

A browser lays out and styles a section far from the viewport only when it
comes near (site.css: `content-visibility: auto` on `.page-section`), so a
long article costs in proportion to what is on screen. The same parts are the
sections in which the glossary marks a term's first use (`glossary.marked_once`).

What comes before the first heading (the title, the introduction) stays as it
is.
"""

import re

CLASS = "page-section"
_START = re.compile(r"<h2[\s>]")


def parts(html: str) -> list[str]:
    """The content before the first h2, then one part per h2."""
    starts = [0]
    for match in _START.finditer(html):
        if match.start():
            starts.append(match.start())
    return [html[a:b] for a, b in zip(starts, [*starts[1:], len(html)])]


def wrapped(parts: list[str]) -> str:
    """The parts joined again, each that starts at an h2 inside a section of its own."""
    return "".join(
        f'<section class="{CLASS}">{part}</section>' if part.startswith("<h2") else part for part in parts
    )
