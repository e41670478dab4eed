"""The theme's search dialog gets its accessible name (site_build.accessibility) however the page
writes its attributes, and a page without the dialog stops the build."""

import pytest
from mkdocs.exceptions import PluginError

from harness import markup
from site_build import accessibility


class _Page:
    class file:  # what the hook reads of mkdocs' page: its source, for the error
        src_path = "x.md"


@pytest.mark.parametrize("dialog", [
    '<div class="md-search" data-md-component="search" role="dialog">',
    '<div class=md-search data-md-component=search role=dialog>',  # as the minifier writes it
    "<div role='dialog'\n     data-md-component='search' class=\"md-search\">",
])
def test_the_search_dialog_is_named_whatever_the_order_and_quoting_of_its_attributes(dialog):
    page = f'<!doctype html>\n<html><body>\n<header><div role="dialog"></div></header>\n{dialog}<p>x</p></div>\n</body></html>'
    named = markup.parse(accessibility.on_post_page(page, _Page, None))
    assert [d.attrs.get("aria-label") for d in named.iter(role="dialog")] == [None, "Search"]


def test_a_page_without_the_dialog_stops_the_build():
    with pytest.raises(PluginError, match="x.md"):
        accessibility.on_post_page("<p>no search</p>", _Page, None)
