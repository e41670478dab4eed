"""A page's content cut at its second-level headings, each part wrapped in a `<section>`.

A browser lays out and styles a section far from the viewport only when it
comes near (site.css: `content-visibility: auto` on `.page-section`), so a
long article costs in proportion to what is on screen. The same parts are the
sections in which the glossary marks a term's first use (`glossary.marked_once`).

What comes before the first heading (the title, the introduction) stays as it
is, and so does the list of derivations a page ends with (site_build/cards.py),
a section of its own whose heading is not the start of another.
"""

import re

CLASS = "page-section"
# Where a part starts: an h2 of the page's own Markdown, or the derivations' list (its h2 is inside it).
_START = re.compile(r'<h2[\s>]|<section class="provenance"')


def parts(html: str) -> list[str]:
    """The content before the first h2, then one part per h2 (and the derivations' list)."""
    starts, inside_list = [0], False
    for match in _START.finditer(html):
        if inside_list:
            break  # every later h2 is the list's own
        inside_list = match.group().startswith("<section")
        if match.start():
            starts.append(match.start())
    return [html[a:b] for a, b in zip(starts, [*starts[1:], len(html)])]


def wrapped(parts: list[str]) -> str:
    """The parts joined again, each that starts at an h2 inside a section of its own."""
    return "".join(
        f'<section class="{CLASS}">{part}</section>' if part.startswith("<h2") else part for part in parts
    )
