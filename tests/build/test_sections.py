"""A page is cut at its h2 headings into sections that a browser lays out only near the
viewport (site_build.sections; site.css)."""

from site_build import sections


def test_a_page_is_cut_at_its_h2_headings():
    html = '<h1>T</h1><p>a</p><h2 id="b">B</h2><p>b</p><h2>C</h2><h3>S</h3>'
    found = sections.parts(html)
    assert found == ['<h1>T</h1><p>a</p>', '<h2 id="b">B</h2><p>b</p>', '<h2>C</h2><h3>S</h3>']
    assert sections.wrapped(found) == ('<h1>T</h1><p>a</p><section class="page-section"><h2 id="b">B</h2><p>b</p></section>'
                                       '<section class="page-section"><h2>C</h2><h3>S</h3></section>')
