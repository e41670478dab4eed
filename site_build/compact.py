"""A page's HTML without what a browser reads the same without.

- The theme's templates indent their markup for their authors; a browser
  renders a run of whitespace in text as one space at most, so a line break
  alone draws the same.
- Text escapes only `&` and `<`: an apostrophe needs no `&#39;`.
- An `<svg>` inline in HTML is in SVG's namespace without an `xmlns` (a file of
  its own would need one).
- A void element (`<hr>`, `<br>`, `<img>`) has no end tag: the XHTML-style
  ` />` that Python-Markdown writes after one means nothing in HTML (the
  footnotes' `<hr />`). No element of SVG bears one of these names.

Attribute values keep every other character, and everything inside an element
that may show whitespace as written (`pre`, `code`, `textarea`) or whose text
is not HTML (`script`, `style`) stays as it is.
"""

import re

_KEPT = re.compile(r"<(pre|code|textarea|script|style)\b.*?</\1>", re.S | re.I)
# A tag (its quoted values may hold ">"), a run of whitespace that holds a line break, or an apostrophe.
_TAG_OR_TEXT = re.compile(r"""(<(?:[^>"']|"[^"]*"|'[^']*')*>)|([ \t\r]*\n[ \t\r\n]*)|&#39;""")
_SVG_NAMESPACE = ' xmlns="http://www.w3.org/2000/svg"'
# HTML's void elements, whose start tag is the whole element.
_VOID = re.compile(r"<(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)\s*/>", re.I)


def _outside(text: str) -> str:
    def lean(found: re.Match) -> str:
        tag = found.group(1)
        if tag:
            return tag.replace(_SVG_NAMESPACE, "", 1) if tag.startswith("<svg") else _VOID.sub(r"<\1\2>", tag)
        return "\n" if found.group(2) else "'"
    return _TAG_OR_TEXT.sub(lean, text)


def page(html: str) -> str:
    """The page `html` as a browser reads it, in fewer bytes."""
    out, at = [], 0
    for kept in _KEPT.finditer(html):
        out.append(_outside(html[at:kept.start()]) + kept.group())
        at = kept.end()
    return "".join(out) + _outside(html[at:])
