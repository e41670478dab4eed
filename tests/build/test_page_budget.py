"""Every page the build writes is within the site's per-page budget of HTML, the articles, the lists
of numbers and every part of What changed alike: the pages are found in the built site, never listed."""

import gzip

from site_build.checks import PAGE_BUDGET_BYTES


def test_every_built_page_is_within_the_per_page_budget(built_site):
    pages = sorted(built_site.rglob("*.html"))
    sizes = {str(page.relative_to(built_site)): len(page.read_bytes()) for page in pages}
    assert "training/index.html" in sizes and "what-changed/index.html" in sizes
    # Each page over the budget, with its raw and gzip bytes, for whoever trims it.
    over = {name: (raw, len(gzip.compress((built_site / name).read_bytes()))) for name, raw in sizes.items() if raw > PAGE_BUDGET_BYTES}
    assert over == {}
