"""mkdocs hook: name mkdocs-material's search dialog for assistive technology.

The theme renders the search overlay as `role="dialog"` with no accessible
name, which axe-core reports (aria-dialog-name). Overriding the partial would
mean copying it; one attribute added to the rendered page is less to keep.
If a theme upgrade changes the markup, the build fails here instead of the
fix going silently missing.
"""

from mkdocs.exceptions import PluginError

SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
NAMED = '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'


def on_post_page(output, page, config):
    if SEARCH_DIALOG not in output:
        raise PluginError(f"{page.file.src_path}: the theme's search dialog markup changed; update {__file__}")
    return output.replace(SEARCH_DIALOG, NAMED, 1)
