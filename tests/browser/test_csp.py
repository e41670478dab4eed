"""The site ships a strict Content-Security-Policy and passes it.

Every page carries its policy in a <meta> (what any static host enforces), and
the site's `_headers` file carries it for hosts that read one. Under it, on
every page, every widget goes live and every chart redraws, with no violation
reported, no console error and no uncaught error, through instant navigation
too; served with the headers file applied, the Pyodide worker runs under it.
"""

import functools
import re
import threading
from http.server import ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from harness import markup
from harness.site import QuietHandler, nav_paths

from .test_narrow import PHONE, assert_live_charts_are_legible
from .test_widget_contract import a_change
from harness.widgets import set_field, wait_for_cpython_outputs, wait_live

PAGES = nav_paths()
DESKTOP = {"width": 1280, "height": 900}
RECORD_VIOLATIONS = """window.cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
window.chartsDrawn = {};  // widget id -> charts drawn (widget:drawn does not bubble: caught on its way down)
document.addEventListener("widget:drawn", (e) => {
  window.chartsDrawn[e.target.id] = (window.chartsDrawn[e.target.id] || 0) + 1;
}, true);"""


def watch(page):
    page.add_init_script(RECORD_VIOLATIONS)
    page.on("worker", lambda worker: worker.on(
        "console", lambda message: message.type == "error" and page.log.console_errors.append(message.text)))


def quiet(page) -> dict:
    return {
        "violations": page.evaluate("window.cspViolations"),
        "console errors": page.log.console_errors,
        "uncaught errors": page.log.page_errors,
    }


NOTHING = {"violations": [], "console errors": [], "uncaught errors": []}


def every_widget_goes_live_and_redraws(page, first_only: bool = False):
    for element in page.locator("[data-widget]").all()[: 1 if first_only else None]:
        widget = f"#{element.get_attribute('id')}"
        wait_live(page, widget)
        drawn = page.evaluate("id => window.chartsDrawn[id] || 0", widget[1:])
        field, text = a_change(element.get_attribute("data-widget"))
        set_field(page, widget, field, text)
        wait_for_cpython_outputs(page, widget)
        if page.locator(f"{widget} [data-chart-spec]").count():  # a chart Vega redraws; a diagram stays as built
            page.wait_for_function("([id, drawn]) => (window.chartsDrawn[id] || 0) > drawn", arg=[widget[1:], drawn])
        assert page.inner_text(f"{widget} [data-status]").strip() == "", "a chart could not be redrawn"


@pytest.mark.parametrize("name", ["index.html", "training/index.html", "404.html"])
def test_every_page_carries_a_strict_policy(built_site, name):
    policy = markup.parse((built_site / name).read_text("utf-8")).find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    script_src = next(d for d in policy.split("; ") if d.startswith("script-src "))
    assert "'unsafe-eval'" not in script_src and "'unsafe-inline'" not in script_src
    assert "'wasm-unsafe-eval'" in script_src and "'sha256-" in script_src
    assert "onsubmit=" not in (built_site / name).read_text("utf-8")


def test_the_headers_file_carries_the_policy_types_and_cache_rules(built_site):
    headers = (built_site / "_headers").read_text("utf-8")
    assert headers.startswith("/*\n  Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval' 'sha256-")
    assert "/assets/widgets/pyodide/pyodide.asm.wasm\n  Content-Type: application/wasm" in headers
    assert "/assets/widgets/pyodide/pyodide.mjs\n  Content-Type: text/javascript" in headers
    assert re.search(r"/assets/javascripts/bundle\.[0-9a-f]{8}\.min\.js\n  Cache-Control: [^\n]*immutable", headers)
    assert "/assets/widgets/runtime.js" not in headers  # not hashed: revalidated, never cached for a year


def test_under_the_policy_every_widget_goes_live_every_chart_redraws_and_nothing_is_violated(page, site_url):
    """On a phone, where every chart, redrawn live, must stay legible too (test_narrow)."""
    watch(page)
    page.set_viewport_size(PHONE)
    for path in PAGES:
        page.goto(f"{site_url}{path}")
        every_widget_goes_live_and_redraws(page)
        assert quiet(page) == NOTHING, path
        if page.locator("[data-chart]").count():
            assert_live_charts_are_legible(page)
    # Instant navigation swaps the content and re-runs its scripts under the first page's policy: each page's
    # first widget goes live and redraws (every widget already did above, under the same policy). Its links
    # are the side navigation's, shown at a desktop's width.
    page.set_viewport_size(DESKTOP)
    for link_text, path in [("Training & Fine-Tuning", "/training/"), ("AI training at scale, in ten steps", "/ten-steps/"),
                            ("Methods & sources", "/methods/"), ("Home", "/")]:
        page.evaluate("() => { window.articleBefore = document.querySelector('article'); }")
        page.click(f'.md-nav__link:has-text("{link_text}")')
        page.wait_for_url(lambda url: urlsplit(url).path == path)
        # The address changes before the content is swapped: wait for the new page's article.
        page.wait_for_function("() => document.querySelector('article') !== window.articleBefore")
        every_widget_goes_live_and_redraws(page, first_only=True)
        assert quiet(page) == NOTHING, path


class HeadersFileHandler(QuietHandler):
    """A static host that reads `_headers`: its rules for "/*" and for exact paths."""

    def rule_headers(self):
        return [header for path, headers in self.server.rules if path in ("/*", urlsplit(self.path).path) for header in headers]

    def guess_type(self, path):
        return next((value for name, value in self.rule_headers() if name == "Content-Type"), super().guess_type(path))

    def end_headers(self):
        for name, value in self.rule_headers():
            if name != "Content-Type":  # sent once, by guess_type
                self.send_header(name, value)
        super().end_headers()


def read_headers_file(text: str) -> list:
    rules = []
    for line in text.splitlines():
        if line.startswith("/"):
            rules.append((line, []))
        elif line.strip():
            name, value = line.strip().split(": ", 1)
            rules[-1][1].append((name, value))
    return rules


@pytest.fixture(scope="module")
def headers_site(built_site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(HeadersFileHandler, directory=str(built_site)))
    server.rules = read_headers_file((built_site / "_headers").read_text("utf-8"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_served_with_its_headers_file_the_worker_runs_under_the_policy_too(page, headers_site):
    """The worker's script gets the policy from its own response's headers, not from the page: its boot
    on a page of two widgets, one of them a chart, shows it runs under it (the pages' own policies are the
    visit of every page above)."""
    watch(page)
    response = page.goto(f"{headers_site}/ten-steps/")
    assert "script-src 'self' 'wasm-unsafe-eval'" in response.headers["content-security-policy"]
    every_widget_goes_live_and_redraws(page)
    assert quiet(page) == NOTHING
