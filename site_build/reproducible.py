"""Two builds of one commit make the same site: mkdocs dates the sitemap by
SOURCE_DATE_EPOCH, and when it is unset the last commit's time stands for the
build's. The pages that print a date (a citation's, a change's) print it as
`day` writes it."""

import datetime
import os
import time

from site_build import history


def last_commit_time() -> str | None:
    """The last commit's time, seconds since the epoch, or None outside a git checkout."""
    commit = history.head()
    return str(commit.time) if commit else None


def date_by_last_commit():
    """SOURCE_DATE_EPOCH as the last commit's time, unless it is set already."""
    if "SOURCE_DATE_EPOCH" not in os.environ and (epoch := last_commit_time()):
        os.environ["SOURCE_DATE_EPOCH"] = epoch


def build_epoch() -> int:
    """The build's date, seconds since the epoch: SOURCE_DATE_EPOCH, as mkdocs reads it, else now
    (a build from sources without git, and without the variable set, has no other)."""
    return int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())


def day(epoch: int) -> str:
    """A date as the pages write it: `1 December 2026` (UTC)."""
    when = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
    return f"{when.day} {when:%B %Y}"
