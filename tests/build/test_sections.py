"""A page is cut at its h2 headings into sections, and within each the content between its
headings into blocks that a browser lays out only near the viewport (site_build.sections;
site.css), the headings outside them."""

from site_build import sections


def test_a_page_is_cut_at_its_h2_headings():
    html = '<h1>T</h1><p>a</p><h2 id="b">B</h2><p>b</p><h2>C</h2><h3>S</h3>'
    found = sections.parts(html)
    assert found == ['<h1>T</h1><p>a</p>', '<h2 id="b">B</h2><p>b</p>', '<h2>C</h2><h3>S</h3>']
    assert sections.wrapped(found) == ('<h1>T</h1><p>a</p><section class="page-section"><h2 id="b">B</h2><div><p>b</p></div></section>'
                                       '<section class="page-section"><h2>C</h2><h3>S</h3></section>')


def test_headings_stand_outside_the_blocks_between_them():
    part = '<h2 id="a">A <a href="#a">¶</a></h2><p>x<br>y</p><h3 id="b">B</h3><svg><path d="M0"/></svg><p>z</p>'
    assert sections.wrapped([part]) == (
        '<section class="page-section"><h2 id="a">A <a href="#a">¶</a></h2><div><p>x<br>y</p></div>'
        '<h3 id="b">B</h3><div><svg><path d="M0"/></svg><p>z</p></div></section>')


def test_a_heading_inside_an_element_stays_in_its_block():
    part = '<h2>A</h2><div class="admonition"><h3>In</h3><p>x</p></div><h3>Out</h3><p>y</p>'
    assert sections.wrapped([part]) == (
        '<section class="page-section"><h2>A</h2><div><div class="admonition"><h3>In</h3><p>x</p></div></div>'
        '<h3>Out</h3><div><p>y</p></div></section>')


def test_a_part_whose_tags_do_not_balance_stays_one_block():
    part = '<h2>A</h2></div><div><h3>In</h3><p>x</p>'
    assert sections.wrapped([part]) == f'<section class="page-section"><div>{part}</div></section>'


def test_a_widgets_controls_wait_in_a_noscript_after_the_drawn_sections():
    widget = '<div class="widget"><!--controls--><form><input name="n"></form><!--/controls--><p>out</p></div>'
    parts = ["<h1>T</h1>" + widget, *[f"<h2>{i}</h2>{widget}" for i in range(sections.DRAWN_SECTIONS + 1)]]
    html = sections.wrapped(parts)
    deferred = '<div class="widget"><noscript data-controls><form><input name="n"></form></noscript><p>out</p></div>'
    as_is = '<div class="widget"><form><input name="n"></form><p>out</p></div>'
    # The introduction and the drawn sections keep them as they are; the next section defers them.
    assert html.count(as_is) == 1 + sections.DRAWN_SECTIONS
    assert html.count(deferred) == 1
    assert html.index(deferred) > html.rindex(as_is)
    assert "<!--" not in html
