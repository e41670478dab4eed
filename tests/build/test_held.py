"""Raw HTML held out of Python-Markdown's way (site_build.held) reads on the page exactly as it
would had Markdown carried it through: a rendered widget, converted with the site's own extensions
between two paragraphs, gives the same HTML either way."""

import markdown
import pytest
import yaml

from harness.site import ConfigLoader
from site_build import held, render
from site_build.history import ROOT


def site_extensions() -> list:
    config = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)
    return [next(iter(e)) if isinstance(e, dict) else e for e in config["markdown_extensions"]]


def page(block: str) -> str:
    return f"A paragraph with *emphasis* and a [link](#there).\n\n{block}\n\n## A heading after it\n\nThe end.\n"


@pytest.mark.parametrize("widget", ["training_time", "planner"])
def test_a_held_widget_reads_as_markdown_would_have_written_it(widget):
    html = render.render(widget)
    extensions = site_extensions()
    direct = markdown.markdown(page(html), extensions=extensions)
    stand_in = held.hold(html)
    assert stand_in.count("\n") == 0 and len(stand_in) < len(html)
    assert held.put_back(markdown.markdown(page(stand_in), extensions=extensions)) == direct
