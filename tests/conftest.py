"""Fixtures shared by the build and browser tests: one strict build per session."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def mkdocs_build(config_file: Path, site_dir: Path) -> subprocess.CompletedProcess:
    """Run `mkdocs build --strict` in a subprocess, as an author would."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config_file), "--site-dir", str(site_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built once per test session with --strict from the real docs."""
    site = tmp_path_factory.mktemp("site")
    done = mkdocs_build(ROOT / "mkdocs.yml", site)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return site
