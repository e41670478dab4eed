"""A built page read as a browser's parser reads it, not as text: tests ask for elements by tag and
attributes and read their text and attribute values unescaped, whatever order, quoting or escaping
the build wrote them in (site_build/compact.py's minifier may unquote and reorder attributes and
drop the end tags HTML leaves optional).

The standard library's `html.parser` tokenizes; this module only nests the tokens into elements,
with the end tags HTML implies (a `<li>` ends the open `<li>`, a block ends an open `<p>`)."""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

# HTML's void elements: a start tag that is the whole element.
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
# Start tags that end an open element whose end tag was left out (HTML's "optional end tags").
_BLOCKS = frozenset("address article aside blockquote details dialog div dl fieldset figcaption figure footer form "
                    "h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre search section table ul".split())
_ROWS = {"thead", "tbody", "tfoot", "tr", "td", "th", "p"}
_ENDED_BY = {**{block: {"p"} for block in _BLOCKS}, "li": {"li", "p"}, "dt": {"dt", "dd", "p"}, "dd": {"dt", "dd", "p"},
             "tr": {"tr", "td", "th", "p"}, "td": {"td", "th", "p"}, "th": {"td", "th", "p"}, "option": {"option"},
             "tbody": _ROWS, "thead": _ROWS, "tfoot": _ROWS, "body": {"head"}}


@dataclass
class Element:
    """One element: its tag, its attributes (values unescaped; a bare attribute is ""), its children
    in order, elements and text (text unescaped), and where it stands in the source: `outer` from its
    start tag's "<" to its end tag's ">" (or where an implied end falls), `inner` its content."""

    tag: str
    attrs: dict[str, str]
    children: list = field(default_factory=list)
    outer: tuple[int, int] = (0, 0)
    inner: tuple[int, int] = (0, 0)

    def text(self) -> str:
        """The text of every descendant, in order, as written (whitespace kept)."""
        return "".join(child if isinstance(child, str) else child.text() for child in self.children)

    def spaced(self, leave_out=lambda element: False) -> str:
        """The text of every descendant with a space at each element's bounds, as a page's text with
        its tags replaced by spaces reads, less the elements `leave_out` is true of."""
        return "".join(child if isinstance(child, str) else "" if leave_out(child) else f" {child.spaced(leave_out)} "
                       for child in self.children)

    def iter(self, tag: str | None = None, **attrs) -> Iterator["Element"]:
        """Every descendant element, in document order, of tag `tag` (any if None) whose attributes
        hold `attrs` (`data_widget="x"` is `data-widget="x"`; `class_="x"` asks for the class x among
        others; True asks only that the attribute is there)."""
        wanted = {name.rstrip("_").replace("_", "-"): value for name, value in attrs.items()}
        for child in self.children:
            if isinstance(child, Element):
                if (tag is None or child.tag == tag) and all(child.has(name, value) for name, value in wanted.items()):
                    yield child
                yield from child.iter(tag, **attrs)

    def find(self, tag: str | None = None, **attrs) -> "Element | None":
        """The first element `iter` gives, or None."""
        return next(self.iter(tag, **attrs), None)

    def has(self, name: str, value: str | bool = True) -> bool:
        """Whether the attribute `name` is there and, unless `value` is True, reads `value` (for
        `class`, holds it among its classes)."""
        if name not in self.attrs:
            return False
        if value is True:
            return True
        return value in self.attrs[name].split() if name == "class" else self.attrs[name] == value


class _Tree(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.html = html
        self.root = Element("#document", {}, outer=(0, len(html)), inner=(0, len(html)))
        self.open = [self.root]
        self.lines = [0] + [line.end() for line in re.finditer("\n", html)]

    def at(self) -> int:
        """The offset in the source of the tag being handled (the parser counts lines and columns)."""
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def end_innermost(self, at: int, end: int):
        """Ends the innermost open element: its content up to `at`, itself up to `end`."""
        element = self.open.pop()
        element.inner, element.outer = (element.inner[0], at), (element.outer[0], end)

    def handle_starttag(self, tag, attrs):
        start = self.at()
        while self.open[-1].tag in _ENDED_BY.get(tag, ()):
            self.end_innermost(start, start)
        opened = start + len(self.get_starttag_text())
        element = Element(tag, {name: value or "" for name, value in attrs}, outer=(start, opened), inner=(opened, opened))
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag, attrs):  # `<x/>`: SVG's empty elements
        start = self.at()
        end = start + len(self.get_starttag_text())
        self.open[-1].children.append(Element(tag, {name: value or "" for name, value in attrs}, outer=(start, end), inner=(end, end)))

    def handle_endtag(self, tag):
        if any(element.tag == tag for element in self.open[1:]):
            start = self.at()
            end = self.html.index(">", start) + 1  # an end tag holds no quoted value
            while self.open[-1].tag != tag:
                self.end_innermost(start, start)
            self.end_innermost(start, end)

    def handle_data(self, data):
        self.open[-1].children.append(data)


def well_formed(html: str) -> str:
    """The document `html` written again with every end tag HTML implies, for a reader that needs them
    (a parser that nests by end tags): attribute values quoted, text escaped, scripts and styles as written."""
    def written(element: Element) -> str:
        inner = "".join(child if element.tag in ("script", "style") and isinstance(child, str)
                        else escape(child, quote=False) if isinstance(child, str) else written(child) for child in element.children)
        if element.tag == "#document":
            return inner
        attributes = "".join(f' {name}="{escape(value)}"' for name, value in element.attrs.items())
        return f"<{element.tag}{attributes}>" + ("" if element.tag in VOID else f"{inner}</{element.tag}>")
    return written(parse(html))


def parse(html: str) -> Element:
    """The document `html` as a tree of elements under a root named "#document"."""
    tree = _Tree(html)
    tree.feed(html)
    tree.close()
    return tree.root
