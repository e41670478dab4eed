"""Debian's Chromium, driven by Playwright's Python package (never a downloaded browser)."""

import contextlib
import json
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError, sync_playwright

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



# What a page can set for itself; everything else (JavaScript, a phone's touch and pixel ratio,
# permissions) only a context can, so it keys the context a page is opened in.
PAGE_OPTIONS = ("viewport", "color_scheme", "reduced_motion")
# Run before a lent page's first document of each origin (the tab's session storage remembers it):
# the local storage an earlier test left there (a palette chosen, say) is gone, and the page starts
# as a first visit's would, its caches aside.
FORGET_EARLIER_TESTS = """(() => { try {
  if (!sessionStorage.getItem("shared-context-fresh")) { localStorage.clear(); sessionStorage.setItem("shared-context-fresh", "1"); }
} catch (error) {} })();"""
# Context options a context has anyway: asked for or not, a test gets the same shared context (and its caches).
CONTEXT_DEFAULTS = {"java_script_enabled": True}
# Whether a page's worker is done with its snapshot: it booted from one, never booted (no widget, no
# JavaScript, a boot that failed or is still under way), or has said whether it kept the one it made.
SNAPSHOT_SETTLED = """() => { const runtime = window.widgetRuntime;
  return !runtime || runtime.status !== "live" || runtime.snapshot !== "none" || runtime.snapshotSaved !== undefined; }"""
# The worker keeps its snapshot once it has been idle a second (worker.js, SNAPSHOT_AFTER_IDLE_MS); a
# page given back waits this long at most for it.
SNAPSHOT_WAIT_MS = 10_000


class SharedContexts:
    """Browser contexts that tests share, one per set of context-only options.

    A context keeps its HTTP cache and its Cache API across the pages opened in it, so after the
    first page of a site Pyodide restores the worker's memory snapshot and the browser reuses its
    compiled WebAssembly instead of booting cold in every test. Nothing else carries over: a page
    is lent with its viewport and media set, starts with its origin's local storage empty
    (FORGET_EARLIER_TESTS), and is closed, with the context's cookies and permissions cleared, when
    its test ends (`give_back`). A test that needs a browser that has never seen the site (the boot, the
    snapshot, a route on the whole context) opens a context of its own.
    """

    def __init__(self, browser):
        self.browser = browser
        self._contexts: dict[str, object] = {}
        self._lent: list = []
        # Documents loaded in any context made here: the browser tier's cost is mostly page loads, so the
        # suite prints their number (tests/conftest.py) and a change that adds visits shows.
        self.page_loads = 0

    def _counted(self, context):
        context.on("page", lambda page: page.on("load", self._loaded))
        return context

    def _loaded(self, _page):
        self.page_loads += 1

    def own_context(self, **options):
        """A context of the caller's own, shared with no other test (it has never seen the site); its
        loads counted with the rest. The caller closes it."""
        return self._counted(self.browser.new_context(**options))

    def new_context(self, **options) -> "BorrowedContext":
        """The pages of one context's options, lent from the shared context for them; `viewport`,
        `color_scheme` and `reduced_motion` are set on each page instead, `permissions` granted until
        the test gives its pages back."""
        page_options = {name: options.pop(name) for name in PAGE_OPTIONS if name in options}
        # Permissions (the clipboard's, say) are granted on the shared context for the test that asks for them
        # and taken back when it gives its pages back: a context of their own would boot Pyodide cold once more.
        permissions = options.pop("permissions", [])
        options = {name: value for name, value in options.items() if name not in CONTEXT_DEFAULTS or CONTEXT_DEFAULTS[name] != value}
        key = json.dumps(options, sort_keys=True)
        if key not in self._contexts:
            self._contexts[key] = self.own_context(**options)
            # A test that closes its page's context (page.context.close()) closes it for every test
            # after it: forgotten, the next test that asks for one like it gets a new one.
            self._contexts[key].on("close", lambda _, key=key: self._contexts.pop(key, None))
        if permissions:
            self._contexts[key].grant_permissions(permissions)
        return BorrowedContext(self, self._contexts[key], page_options)

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def lend(self, context, page_options: dict):
        page = context.new_page()
        page.add_init_script(FORGET_EARLIER_TESTS)
        if "viewport" in page_options:
            page.set_viewport_size(page_options["viewport"])
        media = {name: value for name, value in page_options.items() if name != "viewport"}
        if media:
            page.emulate_media(**media)
        self._lent.append(page)
        return page

    def give_back(self):
        """Close every page lent since the last call and clear the cookies they left. A page whose
        worker booted without a snapshot is closed once the worker has kept the one it made, so the
        next test's page of that site, in that context, restores it instead of booting cold too."""
        for page in self._lent:
            if not page.is_closed():
                keep_snapshot(page)
        close_open(self._lent)
        for context in self._contexts.values():
            context.clear_cookies()
            context.clear_permissions()
        self._lent.clear()

    def close(self):
        self.give_back()
        for context in list(self._contexts.values()):  # each close forgets its context (on "close")
            context.close()
        self._contexts.clear()


class BorrowedContext:
    """What a test holds of a shared context: `new_page` and `close`, as a context's own."""

    def __init__(self, shared: SharedContexts, context, page_options: dict):
        self.shared = shared
        self.context = context
        self.page_options = page_options
        self.pages: list = []

    def new_page(self):
        page = self.shared.lend(self.context, self.page_options)
        self.pages.append(page)
        return page

    def close(self):
        close_open(self.pages)


def keep_snapshot(page):
    """Wait until the page's worker is done with its snapshot (SNAPSHOT_SETTLED), or SNAPSHOT_WAIT_MS."""
    try:
        page.wait_for_function(SNAPSHOT_SETTLED, timeout=SNAPSHOT_WAIT_MS)
    except PlaywrightError:  # a page that no longer answers, or a worker still busy: no snapshot from it
        pass


def close_open(pages: list):
    """Close those of `pages` that a test has not closed itself."""
    for page in pages:
        if not page.is_closed():
            page.close()
