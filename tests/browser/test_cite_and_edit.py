"""Each article says how to cite it, as text and as BibTeX, and links to its
source for editing, at the address mkdocs.yml's repo_url and edit_uri make; the What changed
page reads on a phone without scrolling sideways."""

import pytest
import yaml

from harness.site import ROOT, ConfigLoader
from site_build import history


# Edit links and citations: nothing here needs the live calculator.
pytestmark = pytest.mark.without_python

ARTICLES = {"/training/": "training.md", "/ten-steps/": "ten-steps.md"}
CONFIG = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)


@pytest.mark.parametrize("path", ARTICLES)
def test_an_article_links_to_its_source_for_editing(page, site_url, repo_url, path):
    page.goto(f"{site_url}{path}")
    edit = page.locator("a[rel=edit]")
    assert edit.is_visible()
    assert edit.get_attribute("href") == f"{repo_url}/{CONFIG['edit_uri']}{ARTICLES[path]}"


@pytest.mark.parametrize("path", ARTICLES)
def test_an_article_says_how_to_cite_it(page, site_url, path):
    page.goto(f"{site_url}{path}")
    page.locator("#cite-this-page").scroll_into_view_if_needed()
    for form in ("cite__plain", "cite__bibtex"):
        block = page.locator(f"pre.{form}")
        block.scroll_into_view_if_needed()
        assert block.is_visible()
        assert f"{site_url}{path}" in block.inner_text()
    # In the table of contents, a reader finds it from the top of the page.
    assert page.locator('.md-sidebar--secondary a[href$="#cite-this-page"]').count() == 1


def test_the_what_changed_page_fits_a_phone(browser, site_url):
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(f"{site_url}/what-changed/")
    if history.lock_history(ROOT).changes:  # none in a shallow clone's history
        assert page.locator("h2[id^=change-]").count() > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    context.close()
