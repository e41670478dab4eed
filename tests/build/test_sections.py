"""A page is cut at its h2 headings into sections, the content between a section's headings in
blocks that a browser lays out only near the viewport (site_build.sections; site.css)."""

from site_build import sections


def test_a_page_is_cut_at_its_h2_headings():
    html = '<h1>T</h1><p>a</p><h2 id="b">B</h2><p>b</p><h2>C</h2><h3>S</h3>'
    found = sections.parts(html)
    assert found == ['<h1>T</h1><p>a</p>', '<h2 id="b">B</h2><p>b</p>', '<h2>C</h2><h3>S</h3>']
    block = sections.contained('<p>b</p>')
    assert sections.wrapped(found) == (f'<h1>T</h1><p>a</p><section class="page-section"><h2 id="b">B</h2>{block}</section>'
                                       '<section class="page-section"><h2>C</h2><h3>S</h3></section>')


def test_the_headings_of_a_section_stay_outside_its_blocks_and_a_nested_one_stays_inside():
    part = ('<h2 id="a">A <a href="#a">¶</a></h2><p title="x > y">one</p><br>'
            '<div class="widget"><h3>Inside</h3><img src="i.png"></div>'
            '<h3 id="b">B</h3><table><tr><td>two</td></tr></table>')
    html = sections.contained(part)
    blocks = html.split(f'<div class="{sections.PART}"')
    assert len(blocks) == 3, "one block between h2 and h3, one after the h3"
    assert blocks[0] == '<h2 id="a">A <a href="#a">¶</a></h2>'
    assert '<h3>Inside</h3>' in blocks[1] and blocks[1].endswith('</div></div><h3 id="b">B</h3>')
    assert blocks[2].endswith('<table><tr><td>two</td></tr></table></div>')


def test_a_block_is_estimated_taller_for_more_text_and_for_each_table_figure_or_widget():
    short, long = sections.estimated_rem("<p>" + "w" * 80 + "</p>"), sections.estimated_rem("<p>" + "w" * 800 + "</p>")
    assert 0 < short < long
    assert sections.estimated_rem("<p>" + "w" * 80 + "</p><table></table>") > short
