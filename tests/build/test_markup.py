"""The project's own markup is valid HTML as html-validate reads it: no XHTML-style void element,
no inline style (a custom property a stylesheet reads is data, not a style), no `for` on a label
that wraps its control, no form without a submit control (WCAG technique H32), no two controls of
a form sharing a name but radio buttons and buttons (html-validate's form-dup-name: a checkbox is
named on its own), no id given twice."""

from html.parser import HTMLParser

import pytest

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# The theme's forms (its palette switch, its search box) are mkdocs-material's, not the project's:
# their classes are the theme's, `md-`.
THEMES = "md-"
# The controls html-validate lets a form's controls share a name among (form-dup-name's `shared`).
SHARED_NAMES = {"radio", "button", "reset", "submit"}


class Markup(HTMLParser):
    """What the page's markup breaks, one line each."""

    def __init__(self):
        super().__init__()
        self.problems, self.svg, self.labels, self.forms, self.ids = [], 0, [], [], set()

    def handle_starttag(self, tag, attrs, closed=False):
        a = dict(attrs)
        where = f"line {self.getpos()[0]}: <{tag}>"
        if tag == "svg":
            self.svg += 1
        if closed and tag in VOID and not self.svg:
            self.problems.append(f"{where} written as XHTML (' />')")
        style = a.get("style")
        if style and any(not d.strip().startswith("--") for d in style.split(";") if d.strip()):
            self.problems.append(f"{where} has an inline style: {style!r}")
        if tag == "label":
            self.labels.append(a.get("for"))
        if tag in ("input", "select", "textarea") and a.get("id") and a.get("id") in self.labels:
            self.problems.append(f"{where} is wrapped by a label that also names it with for={a['id']!r}")
        if a.get("id") and not self.svg:
            if a["id"] in self.ids:
                self.problems.append(f"{where} repeats id={a['id']!r}")
            self.ids.add(a["id"])
        if tag == "form":
            self.forms.append([a.get("class", ""), False, where, set()])
        if self.forms and tag in ("input", "select", "textarea") and a.get("name") and a.get("type") not in SHARED_NAMES:
            if a["name"] in self.forms[-1][3]:
                self.problems.append(f"{where} shares name={a['name']!r} with another control of its form")
            self.forms[-1][3].add(a["name"])
        if self.forms and (tag == "button" and a.get("type", "submit") == "submit"
                           or tag == "input" and a.get("type") in ("submit", "image")):
            self.forms[-1][1] = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs, closed=True)
        if tag == "svg":
            self.svg -= 1

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg -= 1
        elif tag == "label" and self.labels:
            self.labels.pop()
        elif tag == "form" and self.forms:
            css, submits, where, _ = self.forms.pop()
            if not submits and not css.startswith(THEMES):
                self.problems.append(f"{where} has no submit control")


def pages(built_site):
    return sorted(built_site.rglob("*.html"))


def test_every_page_is_free_of_the_markup_html_validate_refuses(built_site):
    found = {}
    for page in pages(built_site):
        markup = Markup()
        markup.feed(page.read_text("utf-8"))
        if markup.problems:
            found[str(page.relative_to(built_site))] = markup.problems[:5]
    assert found == {}


@pytest.mark.parametrize("html, problem", [
    ('<div class="footnote"><hr /></div>', "XHTML"),
    ('<svg role="img" style="font-family:serif"><title>t</title></svg>', "inline style"),
    ('<label for="a"><input id="a" type="checkbox"> on</label>', "wrapped by a label"),
    ('<form><input name="n"></form>', "no submit control"),
    ('<form><input type="checkbox" name="m" value="a"><input type="checkbox" name="m" value="b"><button>Go</button></form>',
     "shares name"),
    ('<p id="a"></p><p id="a"></p>', "repeats id"),
])
def test_the_check_sees_each_kind_of_mistake(html, problem):
    markup = Markup()
    markup.feed(html)
    assert any(problem in line for line in markup.problems), markup.problems


def test_a_custom_property_and_a_self_closed_svg_element_are_fine():
    markup = Markup()
    markup.feed('<div style="--card-n:\'x\'"><svg><path d="M0 0"/><rect/></svg><hr></div>'
                '<form><input type="radio" name="r" value="a"><input type="radio" name="r" value="b"><button>Go</button></form>')
    assert markup.problems == []
