"""Browser fixtures: the built site on 127.0.0.1 and Debian's Chromium via Playwright.

`browser` lends pages from contexts shared across the session (harness.browser.SharedContexts):
their caches make Pyodide restore its snapshot instead of booting cold in every test. A test that
needs a browser that has never seen the site asks for `fresh_page`, or overrides `page` with it.
"""

import pytest

import pyodide_widgets
from harness.browser import MISSING, SharedContexts, chromium
from harness.site import build_for
from harness.widgets import one_page_per_widget
from tests.conftest import BROWSERS, session_site


@pytest.fixture(scope="session")
def chromium_browser():
    try:
        with chromium() as browser:
            yield browser
    except FileNotFoundError:
        pytest.fail(MISSING)


@pytest.fixture(scope="session")
def widget_site(request, tmp_path_factory):
    """A throwaway site of every widget alone on a page, `/<name>/`, and twice on one, `/<name>-twice/`."""
    with session_site(request.config, tmp_path_factory, "widgets",
                      lambda folder, url: build_for(one_page_per_widget(folder, pyodide_widgets.WIDGETS), folder / "site", url)) as (_, url):
        yield url


@pytest.fixture(scope="session")
def browser(chromium_browser, request):
    contexts = SharedContexts(chromium_browser)
    request.config.stash[BROWSERS].append(contexts)  # its page loads, counted at the session's end
    yield contexts
    contexts.close()


@pytest.fixture(autouse=True)
def pages_given_back(request):
    """Every page a test opened in a shared context is closed when it ends, whatever it closed itself."""
    yield
    if "browser" in request.fixturenames:
        request.getfixturevalue("browser").give_back()


class PageLog:
    """Everything a page asked for and complained about, while its test runs."""

    def __init__(self, page):
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.context = page.context
        # The context sees the page's requests and those of its Web Worker too; a shared context
        # serves one test at a time, so what it sees until the test ends is this page's.
        self.context.on("request", self.on_request)
        page.on("console", lambda message: message.type == "error" and self.console_errors.append(message.text))
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def on_request(self, request):
        self.requests.append(request.url)

    def stop(self):
        self.context.remove_listener("request", self.on_request)


@pytest.fixture
def page(browser, request):
    """A page lent from the shared context. A test marked `without_python` (what a page shows whatever
    its live calculator does: prose, cards, containment) gets one whose widgets never start Python:
    the worker's script is refused, as a network that drops it would refuse it, where booting
    Pyodide once the page is idle would only compete with the test for the processor."""
    page = browser.new_page()
    page.log = PageLog(page)
    if request.node.get_closest_marker("without_python"):
        page.route("**/assets/widgets/worker.js", lambda route: route.abort())
    yield page
    page.log.stop()


@pytest.fixture
def fresh_page(browser):
    """A page in a context of its own, which has never seen the site: nothing cached, nothing stored."""
    context = browser.own_context()
    page = context.new_page()
    page.log = PageLog(page)
    yield page
    context.close()

