"""Fixtures shared by the build and browser tests: one strict build per session,
served on 127.0.0.1."""

import functools
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

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


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle(self):
        # A browser that aborts a download it no longer needs is not a server error.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="session")
def served_site(tmp_path_factory):
    """(folder, url): the real docs built with --strict, served on an ephemeral port.

    The port is known before the build because mkdocs-material's instant
    navigation only follows links that match `site_url`, port included.
    """
    site = tmp_path_factory.mktemp("site")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    url = f"http://127.0.0.1:{server.server_address[1]}"
    done = mkdocs_build(ROOT / "mkdocs.yml", site, site_url=url + "/")
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield site, url
    server.shutdown()


@pytest.fixture(scope="session")
def built_site(served_site) -> Path:
    return served_site[0]


@pytest.fixture(scope="session")
def site_url(served_site) -> str:
    return served_site[1]
