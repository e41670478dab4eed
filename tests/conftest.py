"""Fixtures shared by the build and browser tests: one strict build per run, served on 127.0.0.1; and
the count of pages the browser tests loaded, printed at the end."""

import contextlib
import tempfile
from pathlib import Path

import pytest

from harness.site import ROOT, QuietHandler, build_for, built_once, serving

# The repository the test build's edit links open: an address of no host, which no test follows.
REPO_URL = "https://git.example.invalid/how-llms-are-trained"

# The sites a run builds once (the real docs; every widget alone, tests/browser/conftest.py), and where
# pytest-xdist's controller serves them for its workers: {name: (folder, url)}.
SESSION_SITES = ("site", "widgets")
SHARED_SITES = "shared_sites"
SERVERS = pytest.StashKey[tuple]()


@contextlib.contextmanager
def session_site(config, tmp_path_factory, name: str, build):
    """(folder, url) of the site `name`, which `build(folder, url)` writes into `folder`/site: under
    pytest-xdist, built by the first worker that needs it into a folder the controller serves at one
    address for all of them (a build bakes its address into its pages), the others waiting for it;
    else built here and served on an ephemeral port."""
    shared = getattr(config, "workerinput", {}).get(SHARED_SITES, {}).get(name)
    if shared:
        folder, url = Path(shared[0]), shared[1]
        built_once(folder, lambda: build(folder, url))
        yield folder / "site", url
        return
    folder = tmp_path_factory.mktemp(name)
    with serving(QuietHandler, folder / "site") as (_, url):
        build(folder, url)
        yield folder / "site", url


@pytest.fixture(scope="session")
def served_site(request, tmp_path_factory):
    """(folder, url): the real docs built with --strict, served on an ephemeral port."""
    with session_site(request.config, tmp_path_factory, "site",
                      lambda folder, url: build_for(ROOT / "mkdocs.yml", folder / "site", url, repo_url=REPO_URL)) as served:
        yield served


@pytest.fixture(scope="session")
def filled_cache(served_site):
    """The checkout's build cache (build/cache/) once the run's build has filled it: a test that copies it
    (copy_project with_cache) rebuilds only what it changes, wherever the run scheduled it."""


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist's controller: the address and folder of each site its workers share (session_site),
    served from here, where they stay up until the last worker is done."""
    config = node.config
    if SERVERS not in config.stash:
        stack = contextlib.ExitStack()
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="test-sites-")))
        sites = {name: (str(root / name), stack.enter_context(serving(QuietHandler, root / name / "site"))[1]) for name in SESSION_SITES}
        config.stash[SERVERS] = (stack, sites)
    node.workerinput[SHARED_SITES] = config.stash[SERVERS][1]


def pytest_unconfigure(config):
    if SERVERS in config.stash:
        config.stash[SERVERS][0].close()


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
