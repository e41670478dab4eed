"""A page without what a browser reads the same without (site_build.compact, minify-html): fewer bytes,
the same elements with the same attribute values and text; pre, code, textarea, script and style
as written; a space between two inline elements inside a span kept."""

from harness import markup
from site_build import compact

PAGE = ('<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8">\n    <script>\n  if (a > b) {}\n</script>\n'
        '<style>a { color: red }</style>\n  </head>\n<body>\n'
        '<nav>\n    <a href="#" title="a\n    b">\n      Training\n    </a>\n  </nav>\n'
        '<p>It&#39;s <b>x</b>\n   y</p><hr />\n<pre>  a\n    b</pre><code class="x">k\n  v</code><textarea>  t\n u</textarea>\n'
        '<div data-card="a > b&#39;\n  c" style="--card-x:\'\\A  two\'"><svg xmlns="http://www.w3.org/2000/svg" width="1"></svg></div>\n'
        '<div class="widget__field"><span><select><option>a</option></select> <button>Play</button></span></div>\n'
        '<table><tbody><tr><td>1</td><td>2</td></tr></tbody></table>\n<details><summary>s</summary></details>\n</body>\n</html>\n')


def elements(html: str) -> list:
    """Every element with its attributes and own text, whitespace runs read as one space (as a browser draws text)."""
    return [(e.tag, e.attrs, " ".join("".join(c for c in e.children if isinstance(c, str)).split()))
            for e in markup.parse(html).iter()]


def test_a_compacted_page_has_the_same_elements_attribute_values_and_text_in_fewer_bytes():
    compacted = compact.page(PAGE)
    assert len(compacted) < len(PAGE)
    before, after = elements(PAGE), elements(compacted)
    # The same elements in the same order, each with the same text and attribute values (the
    # inline SVG's namespace aside, which HTML's parser gives it).
    assert [(tag, {k: v for k, v in attrs.items() if k != "xmlns"}, text) for tag, attrs, text in before] == after
    assert "xmlns" not in compacted


def test_what_shows_whitespace_as_written_or_is_not_html_keeps_its_text():
    compacted = markup.parse(compact.page(PAGE))
    assert compacted.find("pre").text() == "  a\n    b"
    assert compacted.find("code").text() == "k\n  v"
    assert compacted.find("textarea").text() == "  t\n u"
    assert compacted.find("style").text() == "a { color: red }"
    assert compacted.find("script").text().strip() == "if (a > b) {}"  # its hash is taken after (site_build.csp)


def test_a_space_between_two_inline_elements_inside_a_span_stays():
    span = markup.parse(compact.page(PAGE)).find("div", class_="widget__field").find("span")
    assert [c if isinstance(c, str) else c.tag for c in span.children] == ["select", " ", "button"]
