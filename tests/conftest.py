"""Fixtures shared by the build and browser tests: one strict build per session,
served on 127.0.0.1."""

from pathlib import Path

import pytest

from harness.site import ROOT, QuietHandler, mkdocs_build, serving


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """(folder, url): the real docs built with --strict, served on an ephemeral port.

    The port is known before the build because mkdocs-material's instant
    navigation only follows links that match `site_url`, port included.
    """
    site = tmp_path_factory.mktemp("site")
    with serving(QuietHandler, site) as (_, url):
        done = mkdocs_build(ROOT / "mkdocs.yml", site, site_url=url + "/")
        assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
        yield site, url


@pytest.fixture(scope="session")
def built_site(served_site) -> Path:
    return served_site[0]


@pytest.fixture(scope="session")
def site_url(served_site) -> str:
    return served_site[1]
