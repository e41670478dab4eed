"""A boot you can see and trust.

Whatever file fails to arrive, the widget ends in one line that names it and
says the network failed (or that the browser did), with no uncaught error and
no console error, and never shows the page's numbers as the answer to other
inputs; a download in progress shows its bytes; a stalled one gives up.
"""

import re

import pytest

from harness.browser import LIVE_TIMEOUT_MS
from harness.site import ROOT
from .test_runtime import GARBAGE, PAGE, widget_text
from harness.widgets import look_at, root, shown_outputs, type_into, wait_for_cpython_outputs, wait_live

WIDGET = "training_time"
RUNTIME = (ROOT / "site_build" / "browser" / "runtime.js").read_text("utf-8")
# How long a boot may download nothing before it gives up, as the runtime declares it.
STALL_MS = int(re.search(r"const STALL_MS = ([\d_]+);", RUNTIME).group(1).replace("_", ""))
# Long enough for the page's idle callback, which starts the boot, to have run on the page's clock.
IDLE_BOOT_MS = 1_000
# The other files' bytes restart the stall timer: each try runs it out once more, until one sticks.
STALL_TRIES = 50
ERROR = f'{root(WIDGET)}[data-state="error"]'


@pytest.fixture
def page(fresh_page):
    """A browser that has never seen the site: a boot from nothing, with routes on the whole context."""
    return fresh_page


def watch_workers(page):
    """Console errors of the page's workers too (Pyodide prints its own failures)."""
    page.on("worker", lambda worker: worker.on(
        "console", lambda message: message.type == "error" and page.log.console_errors.append(message.text)))


def status(page) -> str:
    look_at(page, WIDGET)
    return page.inner_text(f"{root(WIDGET)} [data-status]").strip()


def pending_label(page) -> str:
    return page.eval_on_selector(f"{root(WIDGET)} .widget__outputs", "el => getComputedStyle(el, '::before').content")


@pytest.mark.parametrize(
    "blocked, named",
    [
        ("pyodide.asm.wasm", "pyodide.asm.wasm"),
        ("python_stdlib.zip", "python_stdlib.zip"),
        ("pyodide-lock.json", "pyodide-lock.json"),
        ("pyodide.asm.mjs", "pyodide.asm.mjs"),
        ("pyodide.mjs", "pyodide.mjs"),
        ("worker.js", "worker.js"),
        (".whl", ".whl"),
    ],
)
def test_a_file_that_does_not_download_ends_the_boot_in_one_line_naming_it(page, site_url, blocked, named):
    watch_workers(page)
    page.context.route(lambda url: blocked in url.split("?")[0].rsplit("/", 1)[-1] or url.split("?")[0].endswith(blocked),
                       lambda route: route.abort())
    page.goto(f"{site_url}{PAGE}")
    built = shown_outputs(page, WIDGET)
    page.wait_for_selector(ERROR, timeout=LIVE_TIMEOUT_MS)
    line = status(page)
    assert "\n" not in line and named in line and "network" in line, line
    type_into(page, WIDGET, "gpus", "3")
    # The page's numbers stay, said to be for its own inputs, not for GPUs = 3 (the page's run has one GPU).
    assert shown_outputs(page, WIDGET) == built
    assert "widget--pending" in page.get_attribute(root(WIDGET), "class")
    assert "page's own inputs" in pending_label(page)
    assert not GARBAGE.search(widget_text(page))
    assert page.log.page_errors == [] and page.log.console_errors == []


def test_a_webassembly_that_does_not_compile_blames_the_browser(page, site_url):
    watch_workers(page)
    page.context.route("**/pyodide.asm.wasm", lambda route: route.fulfill(
        status=200, content_type="application/wasm", body=b"\0asm but not really"))
    page.goto(f"{site_url}{PAGE}")
    page.wait_for_selector(ERROR, timeout=LIVE_TIMEOUT_MS)
    assert "this browser could not start" in status(page)
    assert page.log.page_errors == [] and page.log.console_errors == []


def test_a_download_that_stalls_gives_up_with_one_line(page, site_url):
    held = []
    page.context.route("**/pyodide.asm.wasm", lambda route: held.append(route))  # asked for, never answered
    # The page's clock, run on by the test rather than waited out: the stall timer starts again with
    # every byte that arrives, so it is run past the limit until the other downloads are over.
    page.clock.install()
    page.goto(f"{site_url}{PAGE}")
    page.clock.run_for(IDLE_BOOT_MS)  # the boot waits for an idle moment after the load event
    while not held:
        page.wait_for_timeout(50)
    for _ in range(STALL_TRIES):
        page.clock.fast_forward(STALL_MS)
        if page.query_selector(ERROR):
            break
        page.wait_for_timeout(200)
    page.wait_for_selector(ERROR, timeout=LIVE_TIMEOUT_MS)
    assert "download stopped" in status(page) and "network" in status(page)
    assert page.log.page_errors == []


def test_the_download_shows_its_bytes_of_the_known_total(page, site_url):
    held = []
    page.context.route("**/python_stdlib.zip", lambda route: held.append(route))  # the wasm arrives; the stdlib waits
    page.goto(f"{site_url}{PAGE}")
    bar = f"{root(WIDGET)} .widget__download progress"
    page.wait_for_function("sel => document.querySelector(sel).value > 9e6", arg=bar, timeout=LIVE_TIMEOUT_MS)
    look_at(page, WIDGET)
    assert page.is_visible(bar)
    assert page.get_attribute(bar, "aria-label")
    value, maximum = page.eval_on_selector(bar, "el => [el.value, el.max]")
    assert 0 < value < maximum
    text = page.inner_text(f"{root(WIDGET)} .widget__download")
    assert re.fullmatch(r"\d+\.\d MB of \d+\.\d MB", text.strip()), text
    assert page.get_attribute(bar, "aria-valuetext") == text.strip()
    held[0].continue_()
    wait_live(page, WIDGET)
    assert not page.is_visible(bar)


def test_outputs_are_pending_from_the_input_until_an_answer_slower_than_a_glance(page, site_url):
    page.goto(f"{site_url}{PAGE}")
    wait_live(page, WIDGET)
    look_at(page, WIDGET)
    # Live, the input event itself leaves the outputs unmarked: an answer may come before anyone could read them.
    marked = page.eval_on_selector(
        f'{root(WIDGET)} [name="gpus"]',
        """el => { el.value = "2"; el.dispatchEvent(new Event("input", {bubbles: true}));
                   return el.closest("[data-widget]").classList.contains("widget--pending"); }""",
    )
    assert not marked
    wait_for_cpython_outputs(page, WIDGET)
    # An answer held up (each request reaches Python half a second late) is marked until it comes.
    page.eval_on_selector(root(WIDGET), """el => {
        const worker = window.widgetRuntime.worker;
        const post = worker.postMessage.bind(worker);
        worker.postMessage = (message) => setTimeout(() => post(message), 500);
        window.markedWhileWaiting = false;
        new MutationObserver(() => { window.markedWhileWaiting ||= el.classList.contains("widget--pending"); })
          .observe(el, { attributes: true, attributeFilter: ["class"] });
    }""")
    type_into(page, WIDGET, "gpus", "1")
    wait_for_cpython_outputs(page, WIDGET)
    page.wait_for_selector(f"{root(WIDGET)}:not(.widget--pending)")
    assert page.evaluate("window.markedWhileWaiting") is True
    # Back to the page's own inputs: the answer is for them, nothing is pending.
    type_into(page, WIDGET, "gpus", "1")
    type_into(page, WIDGET, "gpus", "x")  # an error keeps the last answer, marked as such
    page.locator(f'{root(WIDGET)} [data-error-for="gpus"]').filter(has_text="Must be").wait_for()
    assert pending_label(page) == '"Last valid result"'
