"""Browser fixtures: the built site on 127.0.0.1 and Debian's Chromium via Playwright."""

import pytest

from harness.browser import MISSING, chromium


@pytest.fixture(scope="session")
def browser():
    try:
        with chromium() as browser:
            yield browser
    except FileNotFoundError:
        pytest.fail(MISSING)


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
