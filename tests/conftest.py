"""Fixtures shared by the build and browser tests: one strict build per session,
served on 127.0.0.1; and the count of pages the browser tests loaded, printed at the end."""

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


# The browser fixtures of this process (tests/browser/conftest.py), whose page loads are summed at the end.
BROWSERS = pytest.StashKey[list]()
PAGE_LOADS = "page_loads"


def pytest_configure(config):
    config.stash[BROWSERS] = []
    config.stash[PAGE_LOADS] = 0


def pytest_sessionfinish(session):
    loads = sum(contexts.page_loads for contexts in session.config.stash[BROWSERS])
    session.config.stash[PAGE_LOADS] += loads
    if hasattr(session.config, "workeroutput"):  # a pytest-xdist worker: its controller adds it up
        session.config.workeroutput[PAGE_LOADS] = loads


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    node.config.stash[PAGE_LOADS] += node.workeroutput.get(PAGE_LOADS, 0)


def pytest_terminal_summary(terminalreporter, config):
    if config.stash[PAGE_LOADS]:
        terminalreporter.write_line(f"browser page loads: {config.stash[PAGE_LOADS]}")
