"""Each page's "Cite this page": the build's date (SOURCE_DATE_EPOCH, else the last commit's time,
as the sitemap's) and the commit built, as text and as BibTeX; BibTeX's markup escaped."""

import datetime
import os
import re
import subprocess

import pytest

from harness import markup
from harness.site import nav_sources
from site_build import citation
from site_build.history import ROOT
from site_build.reproducible import day, last_commit_time

PAGES = nav_sources()


def cited(built_site, source: str) -> tuple:
    """(plain text, BibTeX) of the page built from `source`."""
    folder = built_site / ("" if source == "index.md" else source.removesuffix(".md"))
    page = markup.parse((folder / "index.html").read_text("utf-8"))
    plain, bibtex = (page.find("pre", class_=kind).find("code").text() for kind in ("cite__plain", "cite__bibtex"))
    return plain, bibtex


def sitemap_dates(built_site) -> set:
    return set(re.findall(r"<lastmod>([^<]+)</lastmod>", (built_site / "sitemap.xml").read_text("utf-8")))


@pytest.mark.parametrize("source", PAGES)
def test_every_page_cites_its_address_the_builds_date_and_commit(built_site, site_url, source):
    plain, bibtex = cited(built_site, source)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or last_commit_time())
    built = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%d")
    address = f"{site_url}/" + ("" if source == "index.md" else source.removesuffix(".md") + "/")
    assert sitemap_dates(built_site) == {built}  # the date the sitemap gives the build
    assert f"url = {{{address}}}" in bibtex and plain.endswith(address)
    assert f"from commit {commit}" in bibtex and f"from commit {commit[:7]}" in plain
    assert f"Built {built}" in bibtex and day(epoch) in plain


def test_bibtex_escapes_what_it_reads_as_markup():
    c = citation.Citation("A_site", "Costs & 50% {off} #1", "https://example.invalid/a_b/", 0, None)
    bibtex = citation.bibtex(c)
    assert r"title = {{Costs \& 50\% \{off\} \#1}}" in bibtex
    assert r"author = {{A\_site}}" in bibtex
    assert "commit" not in bibtex and "commit" not in citation.plain(c)  # built without git
    assert re.fullmatch(r"@misc\{[a-z0-9:-]+,", bibtex.splitlines()[0])
