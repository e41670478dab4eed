"""Browser fixtures: the built site on 127.0.0.1 and Debian's Chromium via Playwright."""

from pathlib import Path

import pytest
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


@pytest.fixture(scope="session")
def browser():
    assert CHROMIUM.exists(), "the browser tests need Debian's Chromium: apt-get install chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageLog:
    """Everything a page asked for and complained about."""

    def __init__(self, page):
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        # The context sees the page's requests and those of its Web Worker too.
        page.context.on("request", lambda request: self.requests.append(request.url))
        page.on("console", lambda message: message.type == "error" and self.console_errors.append(message.text))
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.log = PageLog(page)
    yield page
    context.close()
