"""Widget runtime benchmark: headless Chromium on the built site, one figure per row.

Builds the site (`mkdocs build --strict`) into a temporary folder, serves it on
127.0.0.1 with gzip as a CDN would, drives Debian's Chromium with Playwright
and runs Lighthouse (npm, pinned in bench/package.json) on the article page. Prints
a table (figure | measured | target | pass/miss) and writes it as JSON to
bench/results/runtime.json, with Lighthouse's report beside it.

Exit code 0 whether or not a target is met (this is a benchmark, not a test);
1 if a measurement itself failed. Every wait has a timeout.

Run it as `make bench`.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

import pyodide_widgets
from estimators import EstimatorError
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, LIVE_TIMEOUT_MS
from tests.conftest import QuietHandler

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
LIGHTHOUSE = ROOT / "bench" / "node_modules" / ".bin" / "lighthouse"
ARTICLE = "/training/"
# Two pages that hold widgets, as titled in the primary navigation of mkdocs.yml.
NAV_ARTICLE, NAV_TEN_STEPS = "Training & Fine-Tuning", "AI training at scale, in ten steps"

BUILD_TIMEOUT_S = 300
LIGHTHOUSE_TIMEOUT_S = 300
# One in-page wait for an answer or a redraw; an answer takes milliseconds.
ANSWER_TIMEOUT_MS = 10_000
# Fresh page loads (empty cache each) for the boot figures; the median is reported.
FRESH_LOADS = 5
# Input changes per latency figure, after a few unmeasured ones that load Vega and make its view.
CHANGES, WARMUP_CHANGES = 200, 5
# Lighthouse's own guidance: its performance score varies run to run, so take the median of a few.
LIGHTHOUSE_RUNS = 3
LIGHTHOUSE_CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking"

# What a CDN compresses, by extension: text formats and WebAssembly (binary, but
# pyodide.asm.wasm gzips to about a third, and CDNs compress application/wasm).
# Zip archives (python_stdlib.zip, the wheel) and images are already compressed,
# so a CDN sends them as they are, and so does this server.
COMPRESSED_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".wasm": "application/wasm",
}
# Files the runtime must fetch only after the load event (Pyodide, the wheel, the worker, Vega).
LAZY_FILES = ("/assets/widgets/pyodide/", ".whl", "/assets/widgets/worker.js", "/assets/widgets/vega.min.js")


class MeasurementError(Exception):
    """A figure could not be measured (as opposed to measured and missing its target)."""


@dataclass
class Row:
    """One figure of the table: what was measured, against which target."""

    figure: str
    measured: str
    target: str
    passed: bool
    values: dict  # the raw numbers behind `measured`
    detail: str = ""


# --- the site, served as a CDN would ------------------------------------------


class CdnHandler(QuietHandler):
    """Static files, gzip-compressed (from a cache made once) when the client accepts gzip."""

    def __init__(self, *args, compressed: dict[Path, bytes], **kwargs):
        self.compressed = compressed  # set before the base class handles the request
        super().__init__(*args, **kwargs)

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        body = self.compressed.get(path)
        if body is None or "gzip" not in self.headers.get("Accept-Encoding", ""):
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", COMPRESSED_TYPES[path.suffix])
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        self.wfile.write(body)


def compress_site(site: Path) -> dict[Path, bytes]:
    """Every compressible file, gzipped once at level 6 (a CDN's usual), so serving costs no CPU while measuring."""
    return {
        path: gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        for path in site.rglob("*")
        if path.suffix in COMPRESSED_TYPES and path.is_file()
    }


def build_site(site: Path, url: str):
    """`mkdocs build --strict` into `site`, for pages served at `url`.

    mkdocs-material's instant navigation only follows links that match
    site_url, port included, so the build needs the server's address.
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SITE_URL": url + "/"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise MeasurementError(f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}")


@contextlib.contextmanager
def served_site():
    """The site, freshly built into a temporary folder and served on an ephemeral port of 127.0.0.1."""
    compressed: dict[Path, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="bench-site-") as folder:
        handler = functools.partial(CdnHandler, directory=folder, compressed=compressed)
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        url = f"http://127.0.0.1:{server.server_address[1]}"
        build_site(Path(folder), url)
        compressed.update(compress_site(Path(folder)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield url
        finally:
            server.shutdown()
            server.server_close()


# --- the browser ----------------------------------------------------------------


@contextlib.contextmanager
def chromium():
    """Debian's Chromium, headless, with the browser tests' flags."""
    if not CHROMIUM.exists():
        raise MeasurementError("the benchmark needs Debian's Chromium: apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def first_visit(browser):
    """A page in a new browser context: empty cache, no state, as a reader's first visit."""
    context = browser.new_context()
    context.set_default_timeout(LIVE_TIMEOUT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


def wait_live(page):
    """Wait until the runtime says Pyodide is live; its failing to start fails the measurement."""
    page.wait_for_function("() => ['live', 'error'].includes(window.widgetRuntime?.status)")
    if page.evaluate("window.widgetRuntime.status") == "error":
        raise MeasurementError("Pyodide did not start: the runtime reports status 'error'")


# --- fresh page loads: transfer, boot, long tasks ----------------------------------

# Installed before any page script: every long task of the main thread, from the start.
LONG_TASK_OBSERVER = """
window.__benchLongTasks = [];
window.__benchLongTaskObserver = new PerformanceObserver((list) => window.__benchLongTasks.push(...list.getEntries()));
window.__benchLongTaskObserver.observe({ type: "longtask", buffered: true });
"""

# Every response finished before the load event began, from Resource Timing (the
# document's own entry included). transferSize is the encoded body plus headers.
RESPONSES_BEFORE_LOAD = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  return [nav, ...performance.getEntriesByType("resource")]
    .filter((entry) => entry.responseEnd <= nav.loadEventStart)
    .map((entry) => ({ url: entry.name, transferSize: entry.transferSize }));
}"""

# The runtime's boot measure, and the main-thread long tasks that overlap it.
BOOT_FIGURES = """() => {
  const [boot] = performance.getEntriesByName("widgets:boot", "mark");
  const [ready] = performance.getEntriesByName("widgets:ready", "mark");
  const [measure] = performance.getEntriesByName("widgets:boot-to-ready", "measure");
  const tasks = window.__benchLongTasks.concat(window.__benchLongTaskObserver.takeRecords());
  const during = tasks.filter((t) => t.startTime + t.duration > boot.startTime && t.startTime < ready.startTime);
  return { bootToReadyMs: measure.duration, longTasksMs: during.map((t) => t.duration) };
}"""


@dataclass
class FreshLoad:
    """What one first visit of the article measured."""

    transfer_bytes: int  # compressed bytes of every response finished before the load event
    responses: int  # how many responses that was
    lazy_before_load: list[str]  # LAZY_FILES requested before the load event
    boot_to_ready_ms: float
    long_tasks_ms: list[float] = field(default_factory=list)  # main-thread tasks over 50 ms during the boot


def fresh_load(browser, url: str) -> FreshLoad:
    """Load the article in an empty context, then wait until Pyodide is live.

    The request log holds the page's and its worker's requests in the order the
    browser reported them, with the load event marked, so "requested before
    load" needs no clock comparison.
    """
    with first_visit(browser) as page:
        log: list[str | None] = []  # request URLs; None marks the load event
        page.context.on("request", lambda request: log.append(request.url))
        page.on("load", lambda _: log.append(None))
        page.add_init_script(LONG_TASK_OBSERVER)
        page.goto(url, wait_until="load")
        responses = page.evaluate(RESPONSES_BEFORE_LOAD)
        wait_live(page)
        boot = page.evaluate(BOOT_FIGURES)
    blind = [r["url"] for r in responses if r["transferSize"] == 0]
    if blind:
        # A first visit has no cache, so 0 means Resource Timing cannot see the size and the sum would lie.
        raise MeasurementError(f"Resource Timing reports no transfer size for {blind}")
    before_load = log[: log.index(None)]
    return FreshLoad(
        transfer_bytes=sum(r["transferSize"] for r in responses),
        responses=len(responses),
        lazy_before_load=[u for u in before_load if any(part in u for part in LAZY_FILES)],
        boot_to_ready_ms=boot["bootToReadyMs"],
        long_tasks_ms=boot["longTasksMs"],
    )


def transfer_row(loads: list[FreshLoad]) -> Row:
    """Compressed bytes transferred before the load event (the largest of the loads), and any lazy file among them."""
    worst = max(loads, key=lambda load: load.transfer_bytes)
    lazy = sorted({url for load in loads for url in load.lazy_before_load})
    kb = worst.transfer_bytes / 1000
    return Row(
        figure="bytes before load (gzip), lazy files among them",
        measured=f"{kb:.0f} KB, {len(lazy) or 'none'}",
        target="≤ 500 KB, none",
        passed=kb <= 500 and not lazy,
        values={"bytes": worst.transfer_bytes, "responses": worst.responses, "lazy_before_load": lazy},
        detail=f"{worst.responses} responses" + (f"; requested before load: {', '.join(lazy)}" if lazy else ""),
    )


def boot_row(loads: list[FreshLoad]) -> Row:
    """Median of the runtime's "widgets:boot-to-ready" measure over the fresh loads."""
    runs = [load.boot_to_ready_ms for load in loads]
    median = statistics.median(runs)
    return Row(
        figure=f"Pyodide boot to ready (median of {len(runs)} loads)",
        measured=f"{median / 1000:.2f} s",
        target="≤ 3.5 s",
        passed=median <= 3500,
        values={"median_ms": median, "runs_ms": runs},
        detail="runs: " + ", ".join(f"{ms / 1000:.2f} s" for ms in runs),
    )


def long_task_row(loads: list[FreshLoad]) -> Row:
    """Main-thread long tasks (over 50 ms) between the boot and ready marks, in the worst of the loads."""
    counts = [len(load.long_tasks_ms) for load in loads]
    worst = max(loads, key=lambda load: len(load.long_tasks_ms))
    return Row(
        figure="long tasks > 50 ms during the boot (worst load)",
        measured=str(max(counts)),
        target="0",
        passed=max(counts) == 0,
        values={"per_load": counts, "worst_ms": worst.long_tasks_ms},
        detail="per load: " + ", ".join(map(str, counts))
        + (f"; worst load's tasks: {', '.join(f'{ms:.0f} ms' for ms in worst.long_tasks_ms)}" if worst.long_tasks_ms else ""),
    )


# --- input latency, Pyodide live ------------------------------------------------------

# Types each value into the field in turn and times, with performance.now(), from
# just before the input event to the runtime's widget:updated event (numbers
# written) or to the first change of the chart's SVG. Vega's SVG renderer writes
# a redraw in one synchronous pass, so the first batch of mutations is the whole
# redraw. The runtime has no event for "chart drawn" yet, hence the observer.
# Each input waits for the page to be idle first: the previous change's chart
# redraw runs after its widget:updated event, and would otherwise be timed as
# part of the next change's answer.
TIME_CHANGES = """async ({ widget, field, values, chart, timeoutMs }) => {
  const root = document.querySelector(`[data-widget="${widget}"]`);
  const control = root.querySelector(`[name="${field}"]`);
  const times = [];
  for (const value of values) {
    await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 1000 }));
    const answered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(
        `${widget}: nothing ${chart ? "redrawn" : "updated"} ${timeoutMs} ms after ${field}=${value}`)), timeoutMs);
      const done = () => { clearTimeout(timer); resolve(performance.now()); };
      if (chart) {
        const observer = new MutationObserver(() => { observer.disconnect(); done(); });
        observer.observe(root.querySelector("[data-chart]"), { subtree: true, childList: true, attributes: true, characterData: true });
      } else {
        root.addEventListener("widget:updated", done, { once: true });
      }
    });
    control.value = value;
    const start = performance.now();
    control.dispatchEvent(new Event("input", { bubbles: true }));
    times.push((await answered) - start);
  }
  return times;
}"""

# The form's state as the runtime reads it: a toggle is "true"/"false", a multi-choice its ticked values joined by ",".
FORM_STATE = """form => {
  const state = {};
  for (const c of form.elements) {
    if (!c.name) continue;
    if (c.dataset.kind === "toggle") state[c.name] = String(c.checked);
    else if (c.dataset.kind === "multi") state[c.name] = [state[c.name], c.checked ? c.value : ""].filter(Boolean).join(",");
    else state[c.name] = c.value;
  }
  return state;
}"""


@dataclass
class Probe:
    """A numeric field of a widget and the valid values to type into it in turn."""

    widget: str
    field: str
    values: list[str]


def stepped_values(field, raw: str, count: int) -> list[str]:
    """`count` values 1 % to 40 % above the current one, cycling, so each differs from the one before."""
    base = float(raw)
    values = [base * (1 + (k % 40 + 1) / 100) for k in range(count)]
    return [str(round(v)) if field.kind == "whole" else f"{v:.6g}" for v in values]


def option_values(field, raw: str, count: int) -> list[str]:
    """`count` options in turn, from the one after the current, so each differs from the one before."""
    options = [value for value, _ in field.options]
    return [options[(options.index(raw) + 1 + k) % len(options)] for k in range(count)]


def probes(widget: str, state: dict, count: int) -> tuple[Probe | None, Probe | None]:
    """(numbers, chart): fields to type into, chosen by running the widget's update() in CPython.

    A field qualifies when every value is valid and unlike the one before
    (a small whole number rounds to repeats). For the numbers, prefer a field
    whose change leaves the chart's rows as they are (W8's GPU count), so no
    redraw runs between two measured changes; for the chart, a field each of
    whose changes moves the chart's rows, so each one redraws the SVG. A widget
    with no numeric field (a pick-one widget) is measured on its choices.
    """
    module = pyodide_widgets.module(widget)
    numbers_only = any_field = chart = None
    numeric = any(f.kind in ("number", "whole") for f in module.FIELDS)
    for f in module.FIELDS:
        if f.kind in ("number", "whole"):
            values = stepped_values(f, state[f.name], count)
        else:
            values = option_values(f, state[f.name], count) if f.kind == "choice" and not numeric else []
        if not values or any(a == b for a, b in zip(values, values[1:])):
            continue
        try:
            rows = [module.update({**state, f.name: value})["data"] for value in [state[f.name], *values]]
        except EstimatorError:
            continue  # the steps leave this field's valid range
        probe = Probe(widget, f.name, values)
        any_field = any_field or probe
        if all(a == b for a, b in zip(rows, rows[1:])):
            numbers_only = numbers_only or probe
        elif all(a != b for a, b in zip(rows, rows[1:])):
            chart = chart or probe
    return numbers_only or any_field, chart


def time_changes(page, probe: Probe, chart: bool) -> list[float]:
    """Milliseconds from each input to the widget's answer (or its chart's redraw), after unmeasured warm-up changes."""
    arg = {"widget": probe.widget, "field": probe.field, "chart": chart, "timeoutMs": ANSWER_TIMEOUT_MS}
    page.evaluate(TIME_CHANGES, {**arg, "values": probe.values[:WARMUP_CHANGES]})
    return page.evaluate(TIME_CHANGES, {**arg, "values": probe.values[WARMUP_CHANGES:]})


def percentiles(times: list[float]) -> tuple[float, float]:
    """(p50, p95)."""
    return statistics.median(times), statistics.quantiles(times, n=20, method="inclusive")[18]


def numbers_latency_row(page, probe: Probe) -> Row:
    """Input to updated outputs (the widget:updated event), Pyodide live, p50/p95 over CHANGES changes of one field."""
    p50, p95 = percentiles(time_changes(page, probe, chart=False))
    return Row(
        figure=f"input → outputs, {probe.widget} ({probe.field}), p50 / p95",
        measured=f"{p50:.1f} / {p95:.1f} ms",
        target="≤ 8 / ≤ 16 ms",
        passed=p50 <= 8 and p95 <= 16,
        values={"p50_ms": p50, "p95_ms": p95, "changes": CHANGES},
    )


def chart_latency_row(page, probe: Probe) -> Row:
    """Input to the chart's SVG redrawn by Vega, Pyodide live, p95 over CHANGES changes of a field that moves the chart."""
    p50, p95 = percentiles(time_changes(page, probe, chart=True))
    return Row(
        figure=f"input → chart redrawn, {probe.widget} ({probe.field}), p95",
        measured=f"{p95:.1f} ms",
        target="≤ 50 ms",
        passed=p95 <= 50,
        values={"p50_ms": p50, "p95_ms": p95, "changes": CHANGES},
        detail=f"p50 {p50:.1f} ms; until the first change of the chart's SVG",
    )


def latency_rows(browser, url: str) -> list[Row]:
    """The two latency figures for every [data-widget] on the page, in one page with Pyodide live."""
    rows = []
    with first_visit(browser) as page:
        page.goto(url)
        wait_live(page)
        for widget in page.eval_on_selector_all("[data-widget]", "els => els.map(el => el.dataset.widget)"):
            state = page.eval_on_selector(f'[data-widget="{widget}"] form', FORM_STATE)
            numbers, chart = probes(widget, state, WARMUP_CHANGES + CHANGES)
            if numbers is None:
                raise MeasurementError(f"{widget}: no field takes {CHANGES} changes in turn")
            rows.append(numbers_latency_row(page, numbers))
            if chart and page.locator(f'[data-widget="{widget}"] [data-chart]').count():
                rows.append(chart_latency_row(page, chart))
    return rows


# --- instant navigation ------------------------------------------------------------------

# Counts mkdocs-material's page swaps; document$ replays the current page on subscribe.
COUNT_SWAPS = "() => { window.__benchSwaps = 0; window.document$.subscribe(() => { window.__benchSwaps += 1; }); }"


def navigation_boots_row(browser, url: str) -> Row:
    """Pyodide boots over training → ten steps → training → ten steps (pages with widgets), by the primary navigation.

    Reads window.widgetRuntime.boots at the end and counts requests of
    pyodide.asm.wasm (the page's and its worker's): a boot that the counter
    missed, in a window that a full page load replaced, still fetches it.
    """
    with first_visit(browser) as page:
        wasm = []
        page.context.on("request", lambda r: r.url.endswith("/pyodide.asm.wasm") and wasm.append(r.url))
        page.goto(url + ARTICLE)
        wait_live(page)
        page.evaluate(COUNT_SWAPS)
        for swaps, title in enumerate([NAV_TEN_STEPS, NAV_ARTICLE, NAV_TEN_STEPS], start=2):
            page.locator(".md-sidebar--primary").get_by_role("link", name=title, exact=True).click()
            try:
                page.wait_for_function(f"() => window.__benchSwaps === {swaps}")
            except PlaywrightError as error:
                raise MeasurementError(f"instant navigation did not swap the page for {title!r}: {error}") from error
            # Each page's widgets bind to the worker that is already running.
            page.wait_for_selector('[data-widget][data-state="live"]')
        boots = page.evaluate("window.widgetRuntime.boots")
    measured = max(boots, len(wasm))
    return Row(
        figure="Pyodide boots over 3 instant page changes",
        measured=str(measured),
        target="1",
        passed=measured == 1,
        values={"runtime_boots": boots, "wasm_requests": len(wasm)},
        detail=f"widgetRuntime.boots {boots}, pyodide.asm.wasm requests {len(wasm)}",
    )


# --- Lighthouse -----------------------------------------------------------------------------


def lighthouse_report(url: str, out: Path) -> dict:
    """One Lighthouse run (its default, the mobile preset) against Debian's Chromium, offline."""
    done = subprocess.run(
        [str(LIGHTHOUSE), url, "--output=json", f"--output-path={out}", f"--chrome-flags={LIGHTHOUSE_CHROME_FLAGS}", "--quiet"],
        env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
        capture_output=True, text=True, timeout=LIGHTHOUSE_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise MeasurementError(f"lighthouse failed ({done.returncode}):\n{done.stderr[-2000:]}")
    report = json.loads(out.read_text())
    if report.get("runtimeError"):
        raise MeasurementError(f"lighthouse: {report['runtimeError']}")
    return report


def failed_audits(report: dict, category: str) -> list[str]:
    """The audits that cost a category points: weighted, scored below 1."""
    audits = report["audits"]
    return [
        ref["id"]
        for ref in report["categories"][category]["auditRefs"]
        if ref["weight"] > 0 and audits[ref["id"]]["score"] is not None and audits[ref["id"]]["score"] < 1
    ]


def lighthouse_row(url: str) -> Row:
    """Lighthouse's four category scores on the article: the run with the median performance of LIGHTHOUSE_RUNS.

    The chosen report is kept as bench/results/lighthouse.json.
    """
    with tempfile.TemporaryDirectory(prefix="bench-lighthouse-") as folder:
        reports = [lighthouse_report(url, Path(folder) / f"run{i}.json") for i in range(LIGHTHOUSE_RUNS)]
    reports.sort(key=lambda r: r["categories"]["performance"]["score"])
    report = reports[len(reports) // 2]
    (RESULTS / "lighthouse.json").write_text(json.dumps(report))
    names = ("performance", "accessibility", "best-practices", "seo")
    scores = {name: round(report["categories"][name]["score"] * 100) for name in names}
    metrics = {
        key: report["audits"][key]["displayValue"]
        for key in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index")
    }
    failed = {name: failed_audits(report, name) for name in names}
    return Row(
        figure="Lighthouse mobile: perf / a11y / best practices / SEO",
        measured=" / ".join(str(scores[name]) for name in names),
        target="≥ 95 / 100 / 100 / 100",
        passed=scores["performance"] >= 95 and all(scores[name] == 100 for name in names[1:]),
        values={
            "scores": scores,
            "performance_runs": [round(r["categories"]["performance"]["score"] * 100) for r in reports],
            "metrics": metrics,
            "failed_audits": failed,
            "lighthouse": report["lighthouseVersion"],
        },
        detail="performance over runs: " + ", ".join(str(round(r["categories"]["performance"]["score"] * 100)) for r in reports)
        + "; " + ", ".join(f"{k} {v}" for k, v in metrics.items())
        + "".join(f"; {name} loses on {', '.join(ids)}" for name, ids in failed.items() if ids),
    )


# --- the table ----------------------------------------------------------------------------------


def measure() -> tuple[list[Row], dict]:
    """Every figure, in the order of the issue's table, and what they were measured on.

    The load average is recorded because other work on this 2-core machine
    (a test run, a build) stretches the boot and the tail latencies.
    """
    load_before = os.getloadavg()[0]
    with served_site() as site, chromium() as browser:
        url = site + ARTICLE
        loads = [fresh_load(browser, url) for _ in range(FRESH_LOADS)]
        rows = [transfer_row(loads), boot_row(loads)]
        rows += latency_rows(browser, url)
        rows += [long_task_row(loads), navigation_boots_row(browser, site), lighthouse_row(url)]
        about = {"page": ARTICLE, "chromium": browser.version, "load_average_1min": [load_before, os.getloadavg()[0]]}
        return rows, about


def print_table(rows: list[Row]):
    """The table, then each row's detail."""
    header = ("figure", "measured", "target", "pass/miss")
    cells = [header] + [(r.figure, r.measured, r.target, "pass" if r.passed else "MISS") for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    for i, line in enumerate(cells):
        print(" | ".join(cell.ljust(width) for cell, width in zip(line, widths)))
        if i == 0:
            print("-+-".join("-" * width for width in widths))
    print()
    for r in rows:
        if r.detail:
            print(f"- {r.figure}: {r.detail}")


def main() -> int:
    RESULTS.mkdir(parents=True, exist_ok=True)
    try:
        rows, about = measure()
    except (MeasurementError, PlaywrightError, subprocess.TimeoutExpired) as error:
        print(f"bench: the measurement failed: {error}", file=sys.stderr)
        return 1
    print_table(rows)
    print("\n1-minute load average before / after: " + " / ".join(f"{x:.1f}" for x in about["load_average_1min"]))
    (RESULTS / "runtime.json").write_text(json.dumps({**about, "rows": [asdict(r) for r in rows]}, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwritten: {(RESULTS / 'runtime.json').relative_to(ROOT)}, {(RESULTS / 'lighthouse.json').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
