"""mkdocs hook: name mkdocs-material's search dialog for assistive technology.

The theme renders the search overlay as `role="dialog"` with no accessible
name, which axe-core reports (aria-dialog-name). Overriding the partial would
mean copying it; one attribute added to the rendered page is less to keep.
The dialog is found by parsing the page, so the order and quoting of its
attributes do not matter; if a theme upgrade drops it, the build fails here
instead of the fix going silently missing.
"""

from html.parser import HTMLParser

from mkdocs.exceptions import PluginError


class _Found(Exception):
    """Raised by the parser at the dialog's start tag: the rest of the page need not be read."""


class _SearchDialog(HTMLParser):
    """Finds the start tag of the theme's search dialog: (its line, its column, its text)."""

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if found.get("data-md-component") == "search" and found.get("role") == "dialog":
            raise _Found(*self.getpos(), self.get_starttag_text())


def _named(html: str) -> str | None:
    """`html` with the search dialog's start tag given `aria-label="Search"`, or None if it has none."""
    try:
        _SearchDialog(convert_charrefs=False).feed(html)
    except _Found as found:
        line, column, tag = found.args
        start = 0  # of the tag's line: the parser counts lines by "\n" alone
        for _ in range(line - 1):
            start = html.index("\n", start) + 1
        end = start + column + len(tag) - 1  # before its ">"
        return html[:end] + ' aria-label="Search"' + html[end:]
    return None


def on_post_page(output, page, config):
    named = _named(output)
    if named is None:
        raise PluginError(f"{page.file.src_path}: the theme's search dialog markup changed; update {__file__}")
    return named
