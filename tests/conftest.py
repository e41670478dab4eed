"""Fixtures shared by the build and browser tests: one strict build per session,
served on 127.0.0.1."""

from pathlib import Path

import pytest

from harness.site import ROOT, built_and_served

# The repository the test build's edit links open: an address of no host, which no test follows.
REPO_URL = "https://git.example.invalid/how-llms-are-trained"


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """(folder, url): the real docs built with --strict, served on an ephemeral port."""
    site = tmp_path_factory.mktemp("site")
    with built_and_served(ROOT / "mkdocs.yml", site, repo_url=REPO_URL) as url:
        yield site, url


@pytest.fixture(scope="session")
def built_site(served_site) -> Path:
    return served_site[0]


@pytest.fixture(scope="session")
def site_url(served_site) -> str:
    return served_site[1]


@pytest.fixture(scope="session")
def repo_url() -> str:
    return REPO_URL
