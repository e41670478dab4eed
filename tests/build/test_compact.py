"""A page without what a browser reads the same without (site_build.compact): indentation, `&#39;` in
text, an inline SVG's namespace; attribute values and pre, code, textarea, script and style untouched."""

from site_build import compact


def test_indentation_goes_and_what_shows_whitespace_or_is_not_html_stays():
    page = ('<nav>\n    <a href="#" title="a\n    b">\n      Training\n    </a>\n  </nav>\n'
            '<p>It&#39;s <b>x</b>\n   y</p><pre>  a\n    b</pre><code class="x">k\n  v</code>'
            '<script>\n  if (a > b) {}\n</script><div data-card="a > b&#39;\n  c"><svg xmlns="http://www.w3.org/2000/svg" width="1"></svg></div>')
    assert compact.page(page) == (
        '<nav>\n<a href="#" title="a\n    b">\nTraining\n</a>\n</nav>\n'
        "<p>It's <b>x</b>\ny</p><pre>  a\n    b</pre><code class=\"x\">k\n  v</code>"
        '<script>\n  if (a > b) {}\n</script><div data-card="a > b&#39;\n  c"><svg width="1"></svg></div>')
