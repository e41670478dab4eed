"""A failed `mkdocs build` leaves in the site folder only a BUILD-FAILED file
that says what failed, so no previous site passes for a fresh one."""

from pathlib import Path

from mkdocs.utils import clean_directory

# Left in the site folder by a failed build, in place of the pages.
FAILED_MARKER = "BUILD-FAILED"


def leave_marker(site_dir: str, error: BaseException):
    """Empty `site_dir` (as mkdocs --clean does) and write the marker naming `error`."""
    clean_directory(site_dir)
    Path(site_dir, FAILED_MARKER).write_text(f"The build failed: {error}\n", "utf-8")
