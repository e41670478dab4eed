"""Two builds of one commit make the same site: mkdocs dates the sitemap by
SOURCE_DATE_EPOCH, and when it is unset the last commit's time stands for the
build's."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def last_commit_time() -> str | None:
    """The last commit's time, seconds since the epoch, or None outside a git checkout."""
    try:
        done = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def date_by_last_commit():
    """SOURCE_DATE_EPOCH as the last commit's time, unless it is set already."""
    if "SOURCE_DATE_EPOCH" not in os.environ and (epoch := last_commit_time()):
        os.environ["SOURCE_DATE_EPOCH"] = epoch
