"""Fixtures shared by the build and browser tests: one strict build per session,
served on 127.0.0.1."""

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def mkdocs_build(config_file: Path, site_dir: Path, site_url: str | None = None) -> subprocess.CompletedProcess:
    """Run `mkdocs build --strict` in a subprocess, as an author would."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if site_url:
        env["SITE_URL"] = site_url
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config_file), "--site-dir", str(site_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )


class ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml for its nav and hooks, taking an `!ENV [NAME, default]` tag as its default."""


ConfigLoader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node)[-1])


def throwaway_project(folder: Path, pages: dict, with_docs: bool = True) -> Path:
    """A project in `folder` with the real config and the extra `pages` ({file name: Markdown}),
    beside a copy of the real docs (or of their assets only); returns its mkdocs.yml."""
    docs = folder / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=None if with_docs else shutil.ignore_patterns("*.md"))
    for name, markdown in pages.items():
        (docs / name).write_text(markdown, "utf-8")
    real = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)
    extra_nav = [{Path(name).stem: name} for name in pages]
    # INHERIT keeps every setting (and its !ENV tags) of the real config; paths are made absolute.
    config = {
        "INHERIT": str(ROOT / "mkdocs.yml"),
        "docs_dir": str(docs),
        "hooks": [str(ROOT / hook) for hook in real["hooks"]],
        "nav": (real["nav"] if with_docs else []) + extra_nav,
    }
    # mkdocs-macros looks for its module beside the config file.
    (folder / "macros").symlink_to(ROOT / "macros")
    config_file = folder / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config), "utf-8")
    return config_file


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle(self):
        # A browser that aborts a download it no longer needs is not a server error.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass


@contextlib.contextmanager
def built_and_served(config_file: Path, site: Path):
    """Build `config_file` with --strict into `site` and serve it on an ephemeral port; yields the URL.

    The port is known before the build because mkdocs-material's instant
    navigation only follows links that match `site_url`, port included.
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    url = f"http://127.0.0.1:{server.server_address[1]}"
    done = mkdocs_build(config_file, site, site_url=url + "/")
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield url
    finally:
        server.shutdown()


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """(folder, url): the real docs built with --strict, served on 127.0.0.1."""
    site = tmp_path_factory.mktemp("site")
    with built_and_served(ROOT / "mkdocs.yml", site) as url:
        yield site, url


@pytest.fixture(scope="session")
def built_site(served_site) -> Path:
    return served_site[0]


@pytest.fixture(scope="session")
def site_url(served_site) -> str:
    return served_site[1]
