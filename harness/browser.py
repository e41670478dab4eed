"""Debian's Chromium, driven by Playwright's Python package (never a downloaded browser)."""

import contextlib
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# Headless Chromium here as root, with nothing reaching out to Google's services.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Pyodide boots in about three seconds here; allow for a loaded machine.
LIVE_TIMEOUT_MS = 60_000
MISSING = "Debian's Chromium is needed: apt-get install chromium"


@contextlib.contextmanager
def chromium():
    """Headless Chromium with the flags above; FileNotFoundError if it is not installed."""
    if not CHROMIUM.exists():
        raise FileNotFoundError(MISSING)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
