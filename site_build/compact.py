"""A page's HTML without what a browser reads the same without, by minify-html (pinned in
requirements.txt): it parses the page and drops what HTML's rules make surplus (indentation,
whitespace between blocks, quotes an attribute value does not need, optional end tags, `&#39;` in
text, the ` />` Python-Markdown writes after a void element).

Configured so that what the site relies on stays as written: scripts and styles are not minified
(`minify_js`, `minify_css` off: the theme's inline scripts are its own, and the CSP hashes are
taken of the page this returns), `<pre>`, `<code>` and `<textarea>` keep their text, and every
attribute value keeps its meaning (only its quotes and a class list's spacing may change). The
`<html>` and `<head>` start tags stay: csp.py puts the policy right after `<head>`.

minify-html needs every end tag in what it reads (it does not end an open `<td>` at `</tbody>`):
the build writes them all, and it leaves out those HTML allows. Whitespace between two elements
inside a block is dropped, so a space a reader sees between two inline elements stands inside an
inline element (a `<span>`), where it is text (templates/_field.html).
"""

import minify_html

# An <svg> inline in HTML is in SVG's namespace without an `xmlns` (a file of its own would need
# one); minify-html keeps it, 35 bytes on each figure and icon.
_SVG_NAMESPACE = '<svg xmlns="http://www.w3.org/2000/svg"'


def page(html: str) -> str:
    """The page `html` as a browser reads it, in fewer bytes."""
    return minify_html.minify(html.replace(_SVG_NAMESPACE, "<svg"), keep_closing_tags=False,
                              keep_html_and_head_opening_tags=True, minify_css=False, minify_js=False)
