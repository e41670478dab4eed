"""Raw HTML held out of Python-Markdown's way (site_build.held) reads on the page exactly as it
would had Markdown carried it through: a rendered widget between two paragraphs, and the What
changed page's body, converted with the site's own extensions, give the same HTML either way."""

import markdown
import pytest
import yaml

from harness.site import ConfigLoader
from site_build import corrections, held, history, render
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


def test_the_what_changed_body_held_reads_as_markdown_would_have_written_it():
    body = corrections.markdown(history.lock_history(ROOT))
    extensions = site_extensions()
    kept = held.hold_blocks(body)
    assert len(kept) < len(body)
    assert held.put_back(markdown.markdown(kept, extensions=extensions)) == markdown.markdown(body, extensions=extensions)


def test_a_paragraph_that_opens_with_inline_html_is_left_to_markdown():
    # Markdown reads this as a paragraph (its emphasis becomes <em>), so it must not be held as it is.
    text = "## A heading\n\n<code>x</code> and *this*\n\n<p>raw</p>\n"
    kept = held.hold_blocks(text)
    assert kept.startswith("## A heading\n\n<code>x</code> and *this*\n\n") and "<p>raw</p>" not in kept
