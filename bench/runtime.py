"""The site's benchmark: every page and every widget on it, in headless Chromium
on the built site, and the build an author waits for; one figure per row.

Builds the site (`mkdocs build --strict`) into a temporary folder and serves it
on 127.0.0.1 gzip-compressed as a CDN would, twice: as built, and with the
worker's snapshot storage taken away (the "snapshot off" origin). Pages and
widgets are discovered in the built pages ([data-widget] elements), never
listed by hand. Then:

- every page: its HTML's bytes, raw and gzip; compressed bytes before the load
  event and whether any lazy file (Pyodide, the wheel, the worker, Vega) was
  among them; total blocking time and the theme bundle's longest task;
  main-thread long tasks during the widgets' boot; Lighthouse's four scores
  (mobile, median of runs); on a phone (390 px, the CPU slowed 4× as Lighthouse's mobile
  profile slows it), the longest main-thread task until the widgets are live;
- every widget on every page: input → outputs and input → chart redrawn (its chart, and each
  further chart it redraws from the same answer: the run's cost under the run-time widget), p50/p95,
  against the site's budget or the one its module declares (ANSWER_BUDGET_MS); a widget
  that declares one (a search) also from each of its other examples, its budget held at
  the slowest; for a widget with Play, the long tasks while it plays;
  and the same input on a page holding only that widget (written beside the
  built pages: the same head and scripts, the article reduced to the widget),
  whose ratio to its own page's is what the rest of the page costs;
- the page with the most widgets: Pyodide's boot to ready on a first visit and
  on a return visit (warm HTTP cache), snapshot on and off, side by side; and a
  reader typing one second after the load event: keystroke → first live answer;
- Pyodide boots across instant page changes between the pages with widgets;
- the build (bench/build.py): cold and warm `mkdocs build` and `make serve`'s
  save-to-reload, against plain mkdocs-material on the same pages.

Prints a table (figure | page | measured | anchor | ratio | target | pass/miss)
and writes it as JSON to bench/results/runtime.json, with Lighthouse's reports
beside it. Timings move with other work on the machine: the load average is
printed and recorded. Exit code 0 whether or not a target is met (a benchmark,
not a test); 1 if a measurement itself failed. Every wait has a timeout.

`make bench` runs it in full; `--smoke` runs every measuring path once, small
(one page cut down to one widget, a site of that page alone, a few changes, no Lighthouse, the build's
figures in one pass on that site, its cache filled by its first build), which `make test` does so that this code cannot rot unseen; it asserts
nothing about time.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

import pyodide_widgets
from pyodide_widgets.contract import parse_number
from bench import build as build_bench
from harness import markup
from harness.browser import CHROMIUM, LIVE_TIMEOUT_MS, chromium
from harness.site import ROOT, QuietHandler, copy_project, mkdocs_build, nav_pages, nav_paths, only_pages, pages, serving
from harness.widgets import NO_SNAPSHOT_STORAGE, look_at, snapshot_saved
from site_build.checks import PAGE_BUDGET_BYTES

RESULTS = ROOT / "bench" / "results"
LIGHTHOUSE = ROOT / "bench" / "node_modules" / ".bin" / "lighthouse"
WORKER = "assets/widgets/worker.js"

BUILD_TIMEOUT_S = 300
LIGHTHOUSE_TIMEOUT_S = 300
# One in-page wait for an answer or a redraw; an answer takes milliseconds.
ANSWER_TIMEOUT_MS = 10_000
# A field on trial must answer (or redraw its chart) within this, or another field is tried.
TRIAL_TIMEOUT_MS = 2_000
# How long after the load event the benchmark's reader types into a widget.
TYPE_AFTER_LOAD_MS = 1_000
LIGHTHOUSE_CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking"


# Lighthouse's mobile profile slows the CPU 4×: the phone's figure is measured so.
PHONE_CPU_SLOWDOWN = 4


@dataclass(frozen=True)
class Plan:
    """How much to measure."""

    fresh_loads: int  # first visits per page: bytes before load, long tasks
    boot_rounds: int  # first + return visit pairs, snapshot on and off each
    typing_runs: int  # first visits with a keystroke one second after load
    changes: int  # measured input changes per latency figure
    warmup: int  # unmeasured changes before them (they load Vega and make its view)
    lighthouse_runs: int  # per page; 0 for none
    build_repeats: int
    phone_loads: int  # first visits per page on the throttled phone
    phone_cpu_slowdown: int  # how much slower the phone's CPU runs: PHONE_CPU_SLOWDOWN, or 1 where the figure means nothing
    play_steps: int  # Play steps watched per widget that plays
    max_widget_pages: int | None  # None: every page
    max_alone: int | None  # widgets also timed on a page of their own; None: every widget measured
    only: tuple[str, ...] = ()  # the pages to measure (URL paths); () for every page
    # Each measured page cut down to one widget, its first with Play (else its first): every measuring path
    # still runs, on a short page, for a run that proves the paths work rather than what they measure.
    short_pages: bool = False
    # The cold build from an empty cache; False: from the checkout's cache, the build's paths run in one
    # pass that re-renders nothing (bench/build.py, measure).
    empty_cache: bool = True
    # Every page built (and the theme's anchor); True: the pages measured (`only`) whole, every other page its
    # title alone (harness.site.nav_pages, only_pages), so that a smoke run builds no page it does not look at.
    build_only_measured: bool = False


FULL = Plan(fresh_loads=3, boot_rounds=5, typing_runs=5, changes=200, warmup=5, lighthouse_runs=3, build_repeats=3, phone_loads=2, phone_cpu_slowdown=PHONE_CPU_SLOWDOWN, play_steps=4, max_widget_pages=None, max_alone=None)
SMOKE = Plan(fresh_loads=1, boot_rounds=1, typing_runs=1, changes=3, warmup=2, lighthouse_runs=0, build_repeats=1, phone_loads=1, phone_cpu_slowdown=1, play_steps=1, max_widget_pages=1, max_alone=1, short_pages=True, empty_cache=False,
             build_only_measured=True)

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
# How long a page without widgets is watched after its load event for the theme's work to end.
SETTLE_MS = 2_000
# The theme's bundle (mkdocs-material), as a script's URL names it.
THEME_BUNDLE = "/assets/javascripts/bundle."
# Files the runtime must fetch only after the load event (Pyodide, the wheel, the worker, Vega).
LAZY_FILES = ("/assets/widgets/pyodide/", ".whl", "/assets/widgets/worker.js", "/assets/widgets/vega.min.js")


class MeasurementError(Exception):
    """A figure could not be measured (as opposed to measured and missing its target)."""


@dataclass
class Row:
    """One figure of the table: what was measured, on which page, against which target (and anchor)."""

    figure: str
    page: str
    measured: str
    target: str
    passed: bool | None  # None: reported, with no target
    values: dict  # the raw numbers behind `measured`
    anchor: str = ""
    ratio: str = ""
    detail: str = ""


# --- the site, served as a CDN would ------------------------------------------


class CdnHandler(QuietHandler):
    """Static files, gzip-compressed (from bodies made once) when the client accepts gzip."""

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


def gzipped(data: bytes) -> bytes:
    """Level 6, a CDN's usual."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def compress_site(site: Path) -> dict[Path, bytes]:
    """Every compressible file, gzipped once, so serving costs no CPU while measuring."""
    return {path: gzipped(path.read_bytes()) for path in site.rglob("*") if path.suffix in COMPRESSED_TYPES and path.is_file()}


@dataclass
class Site:
    folder: Path
    url: str  # as built
    url_no_snapshot: str  # the worker finds no snapshot storage, as in private browsing
    widgets: dict[str, list[str]]  # page path -> the widget names on it, in order (pages without widgets too)
    alone: dict[tuple[str, int], str] = field(default_factory=dict)  # (page, widget index) -> its one-widget page


def one_widget_page(page_html: str, index: int) -> str:
    """The page with its article reduced to its index-th widget: the same head, scripts and theme,
    so that what the same input costs there against the full page is what the rest of the page costs."""
    page = markup.parse(page_html)
    widget = list(page.iter("div", class_="widget", data_widget=True))[index]
    article = page.find("article", class_="md-content__inner")
    return page_html[:article.inner[0]] + page_html[slice(*widget.outer)] + page_html[article.inner[1]:]


def shorten_pages(folder: Path, widgets: dict[str, list[str]], paths: list[str]) -> dict[str, list[str]]:
    """Each of `paths` rewritten in place as its one-widget page, of its first widget with Play (else its
    first); the widgets on every page afterwards."""
    shortened = dict(widgets)
    for path in paths:
        built = folder / path.strip("/") / "index.html"
        page_html = built.read_text("utf-8")
        cut = [one_widget_page(page_html, index) for index in range(len(widgets[path]))]
        index = next((i for i, html in enumerate(cut) if "data-play" in html), 0)
        built.write_text(cut[index], "utf-8")
        shortened[path] = [widgets[path][index]]
    return shortened


def write_one_widget_pages(folder: Path, widgets: dict[str, list[str]], widget_pages: list[str], limit: int | None) -> dict:
    """A one-widget page beside the site's pages (one folder deep, as theirs are, so that relative
    URLs hold) for each widget of `widget_pages`, the first `limit` of them; {(page, index): its path}."""
    alone = {}
    for path in widget_pages:
        page_html = (folder / path.strip("/") / "index.html").read_text("utf-8")
        for index in range(len(widgets[path])):
            if limit is not None and len(alone) >= limit:
                return alone
            own = f"/bench-alone-{path.strip('/')}-{index}/"
            (folder / own.strip("/")).mkdir()
            (folder / own.strip("/") / "index.html").write_text(one_widget_page(page_html, index), "utf-8")
            alone[(path, index)] = own
    return alone


def discover_widgets(folder: Path) -> dict[str, list[str]]:
    """Every page of the built site and the [data-widget] elements on it."""
    return {path: [e.attrs["data-widget"] for e in markup.parse((folder / path.lstrip("/") / "index.html").read_text("utf-8")).iter(data_widget=True)]
            for path in pages(folder)}


def check_pages(plan: Plan):
    """A page the plan names that the site has not (its pages are mkdocs.yml's nav) fails the run, before
    anything is built."""
    unknown = [path for path in plan.only if path not in nav_paths()]
    if unknown:
        raise MeasurementError(f"no page {', '.join(unknown)}; the site's pages: {', '.join(nav_paths())}")


def pages_measured(widgets: dict[str, list[str]], plan: Plan) -> list[str]:
    """The pages the plan measures (check_pages has made sure the site has them)."""
    return [path for path in widgets if path in plan.only] if plan.only else list(widgets)


def pages_with_widgets(widgets: dict[str, list[str]], plan: Plan) -> list[str]:
    """The measured pages holding widgets, the busiest first (a smoke run's one page is the one with
    every kind of widget), as many as the plan measures."""
    held = [path for path in pages_measured(widgets, plan) if widgets[path]]
    return sorted(held, key=lambda path: -len(widgets[path]))[: plan.max_widget_pages]


@contextlib.contextmanager
def served_site(plan: Plan, config: Path | None):
    """The site (of `config`, else the checkout's), freshly built into a temporary folder and served twice
    on 127.0.0.1 (see Site)."""
    compressed: dict[Path, bytes] = {}
    without_storage: dict[Path, bytes] = {}
    with (
        tempfile.TemporaryDirectory(prefix="bench-site-") as folder,
        serving(functools.partial(CdnHandler, compressed=compressed), Path(folder)) as (_, url),
        serving(functools.partial(CdnHandler, compressed=without_storage), Path(folder)) as (_, url_no_snapshot),
    ):
        # mkdocs-material's instant navigation follows only links under site_url, port included.
        done = mkdocs_build(config or ROOT / "mkdocs.yml", Path(folder), site_url=url + "/", timeout=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise MeasurementError(f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}")
        widgets = discover_widgets(Path(folder))
        widget_pages = pages_with_widgets(widgets, plan)
        if plan.short_pages:
            widgets = shorten_pages(Path(folder), widgets, widget_pages)
        alone = write_one_widget_pages(Path(folder), widgets, widget_pages, plan.max_alone)
        compressed.update(compress_site(Path(folder)))
        worker = Path(folder) / WORKER
        without_storage.update(compressed)
        without_storage[worker] = gzipped(NO_SNAPSHOT_STORAGE.encode() + worker.read_bytes())
        yield Site(Path(folder), url, url_no_snapshot, widgets, alone)


@contextlib.contextmanager
def cut_project(plan: Plan):
    """The config of a copy of the project, with the checkout's cache, cut to the pages the plan measures
    (`build_only_measured`), which every build of the run builds; None where the run builds the checkout."""
    if not (plan.build_only_measured and plan.only):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="bench-project-") as folder:
        yield only_pages(copy_project(Path(folder) / "project", with_cache=True), nav_pages(plan.only))


@contextlib.contextmanager
def anchor_site(config: Path | None):
    """(url, its pages): the same pages built by mkdocs-material alone (bench.build's anchor: the
    macros plugin and the project's hooks off), served as the site is: what the theme itself costs a
    page, measured in the same run; of `config`'s project, else of a copy of the checkout."""
    compressed: dict[Path, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="bench-anchor-") as folder:
        project = config.parent if config else copy_project(Path(folder) / "project")
        site = Path(folder) / "site"
        with serving(functools.partial(CdnHandler, compressed=compressed), site) as (_, url):
            build_bench.timed_build(build_bench.anchor_config(project), site)
            if not (site / "index.html").is_file():
                raise MeasurementError("the anchor (mkdocs-material alone) built no home page")
            compressed.update(compress_site(site))
            yield url, set(pages(site))


# --- the browser ----------------------------------------------------------------


@contextlib.contextmanager
def first_visit(browser):
    """A page in a new browser context: empty cache, no storage, as a reader's first visit."""
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
        raise MeasurementError(f"{page.url}: Pyodide did not start: the runtime reports status 'error'")


# --- fresh page loads: transfer, long tasks ----------------------------------

# Installed before any page script: every long task of the main thread, from the start.
LONG_TASK_OBSERVER = """
window.__benchLongTasks = [];
window.__benchLongTaskObserver = new PerformanceObserver((list) => window.__benchLongTasks.push(...list.getEntries()));
window.__benchLongTaskObserver.observe({ type: "longtask", buffered: true });
window.__benchFrames = [];
new PerformanceObserver((list) => window.__benchFrames.push(...list.getEntries()))
  .observe({ type: "long-animation-frame", buffered: true });
"""

# Total blocking time as Lighthouse counts it (each long task's time beyond 50 ms, from the first
# contentful paint on), until now; and the longest piece of work of the theme's bundle, from the
# long animation frames' script attribution (a long task does not say whose script it ran).
BLOCKING = """(bundle) => {
  const [paint] = performance.getEntriesByName("first-contentful-paint");
  const from = paint ? paint.startTime : 0;
  const tasks = window.__benchLongTasks.concat(window.__benchLongTaskObserver.takeRecords());
  const blocking = tasks.filter((t) => t.startTime >= from).reduce((sum, t) => sum + Math.max(0, t.duration - 50), 0);
  const theme = window.__benchFrames.flatMap((frame) => frame.scripts || []).filter((s) => (s.sourceURL || "").includes(bundle));
  return { blockingMs: blocking, themeLongestMs: Math.max(0, ...theme.map((s) => s.duration)) };
}"""

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
  return { bootToReadyMs: measure.duration, longTasksMs: during.map((t) => t.duration), snapshot: window.widgetRuntime.snapshot };
}"""


@dataclass
class FreshLoad:
    """What one first visit of a page measured."""

    transfer_bytes: int  # compressed bytes of every response finished before the load event
    responses: int  # how many responses that was
    lazy_before_load: list[str]  # LAZY_FILES requested before the load event
    long_tasks_ms: list[float] = field(default_factory=list)  # main-thread tasks over 50 ms during the boot
    blocking_ms: float = 0  # total blocking time from the first contentful paint until live (or settled)
    theme_longest_ms: float = 0  # the theme bundle's longest script run in a long animation frame


def fresh_load(browser, url: str, has_widgets: bool) -> FreshLoad:
    """Load a page in an empty context and, if it holds widgets, wait until Pyodide is live.

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
        if has_widgets:
            wait_live(page)
        else:
            page.wait_for_timeout(SETTLE_MS)
        long_tasks = page.evaluate(BOOT_FIGURES)["longTasksMs"] if has_widgets else []
        blocking = page.evaluate(BLOCKING, THEME_BUNDLE)
    blind = [r["url"] for r in responses if r["transferSize"] == 0]
    if blind:
        # A first visit has no cache, so 0 means Resource Timing cannot see the size and the sum would lie.
        raise MeasurementError(f"Resource Timing reports no transfer size for {blind}")
    before_load = log[: log.index(None)]
    return FreshLoad(
        transfer_bytes=sum(r["transferSize"] for r in responses),
        responses=len(responses),
        lazy_before_load=[u for u in before_load if any(part in u for part in LAZY_FILES)],
        long_tasks_ms=long_tasks,
        blocking_ms=blocking["blockingMs"],
        theme_longest_ms=blocking["themeLongestMs"],
    )


def transfer_row(path: str, loads: list[FreshLoad]) -> Row:
    """Compressed bytes transferred before the load event (the largest of the loads), and any lazy file among them."""
    worst = max(loads, key=lambda load: load.transfer_bytes)
    lazy = sorted({url for load in loads for url in load.lazy_before_load})
    kb = worst.transfer_bytes / 1000
    return Row(
        figure="bytes before load (gzip), lazy files among them",
        page=path,
        measured=f"{kb:.0f} KB, {len(lazy) or 'none'}",
        target="≤ 500 KB, none",
        passed=kb <= 500 and not lazy,
        values={"bytes": worst.transfer_bytes, "responses": worst.responses, "lazy_before_load": lazy},
        detail=f"{worst.responses} responses" + (f"; requested before load: {', '.join(lazy)}" if lazy else ""),
    )


def html_row(site: Path, path: str) -> Row:
    """The page's HTML as built and as this server sends it (gzip, a CDN's level)."""
    raw = (site / path.strip("/") / "index.html").read_bytes()
    size, packed = len(raw), len(gzipped(raw))
    return Row(
        figure="HTML bytes, raw / gzip",
        page=path,
        measured=f"{size / 1000:.0f} / {packed / 1000:.0f} KB",
        target=f"≤ {PAGE_BUDGET_BYTES / 1000:.0f} KB raw",
        passed=size <= PAGE_BUDGET_BYTES,
        values={"raw_bytes": size, "gzip_bytes": packed},
    )


def blocking_row(path: str, loads: list[FreshLoad]) -> Row:
    """Total blocking time and the theme bundle's longest piece of work, in the worst of the loads."""
    worst = max(loads, key=lambda load: load.blocking_ms)
    theme = max(load.theme_longest_ms for load in loads)
    return Row(
        figure="total blocking time (worst load); the theme's longest task",
        page=path,
        measured=f"{worst.blocking_ms:.0f} ms; {theme:.0f} ms",
        target="≤ 200 ms; ≤ 200 ms",
        passed=worst.blocking_ms <= 200 and theme <= 200,
        values={"blocking_ms": [load.blocking_ms for load in loads], "theme_longest_ms": [load.theme_longest_ms for load in loads]},
        detail="from the first contentful paint until the widgets are live (or "
        f"{SETTLE_MS / 1000:g} s after load); unthrottled, unlike Lighthouse's mobile profile",
    )


def long_task_row(path: str, loads: list[FreshLoad]) -> Row:
    """Main-thread long tasks (over 50 ms) between the boot and ready marks, in the worst of the loads."""
    counts = [len(load.long_tasks_ms) for load in loads]
    worst = max(loads, key=lambda load: len(load.long_tasks_ms))
    return Row(
        figure="long tasks > 50 ms during the boot (worst load)",
        page=path,
        measured=str(max(counts)),
        target="0",
        passed=max(counts) == 0,
        values={"per_load": counts, "worst_ms": worst.long_tasks_ms},
        detail="per load: " + ", ".join(map(str, counts))
        + (f"; worst load's tasks: {', '.join(f'{ms:.0f} ms' for ms in worst.long_tasks_ms)}" if worst.long_tasks_ms else ""),
    )


# --- a phone: a first visit at 390 px with the CPU slowed 4× ----------------------------

# The phone of the figures: an iPhone-sized viewport, touch, and the CPU slowed as
# Lighthouse's mobile profile slows it (Plan.phone_cpu_slowdown); the network is not throttled (a local server).
PHONE_VIEWPORT = {"width": 390, "height": 844}
# A main-thread task longer than this delays a tap past what reads as at once on a phone.
PHONE_TASK_BUDGET_MS = 200

# Every long task so far: [start, duration] in ms.
LONG_TASKS = """() => window.__benchLongTasks.concat(window.__benchLongTaskObserver.takeRecords())
  .map((t) => [t.startTime, t.duration])"""


def phone_load(browser, url: str, has_widgets: bool, slowdown: int) -> list[list[float]]:
    """One first visit on the phone, its CPU `slowdown` times slower, until the widgets are live (or the
    page has settled): every main-thread long task, [start, duration] in ms."""
    context = browser.new_context(viewport=PHONE_VIEWPORT, device_scale_factor=3, is_mobile=True, has_touch=True)
    context.set_default_timeout(LIVE_TIMEOUT_MS * slowdown)
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": slowdown})
        page.add_init_script(LONG_TASK_OBSERVER)
        page.goto(url, wait_until="load")
        if has_widgets:
            wait_live(page)
        page.wait_for_timeout(SETTLE_MS)
        return page.evaluate(LONG_TASKS)
    finally:
        context.close()


def phone_row(path: str, loads: list[list[list[float]]], theme_alone: list[list[list[float]]], slowdown: int) -> Row:
    """The longest main-thread task of any load on the throttled phone, against the same page built
    by the theme alone (`anchor_site`; none for a page only the project's hook writes)."""
    longest = [max((duration for _, duration in tasks), default=0) for tasks in loads]
    worst = loads[longest.index(max(longest))]
    alone = [max((duration for _, duration in tasks), default=0) for tasks in theme_alone]
    return Row(
        figure=f"phone (390 px, CPU {slowdown}× slower): longest task during load (worst of {len(loads)})",
        page=path,
        measured=f"{max(longest):.0f} ms",
        anchor=f"theme alone {max(alone):.0f} ms" if alone else "",
        ratio=f"{max(longest) / max(alone):.2f}×" if alone and max(alone) else "",
        target=f"≤ {PHONE_TASK_BUDGET_MS} ms",
        passed=max(longest) <= PHONE_TASK_BUDGET_MS,
        values={"longest_ms": longest, "worst_tasks_ms": worst, "theme_alone_longest_ms": alone},
        detail="worst load's tasks over 50 ms: " + (", ".join(f"{d:.0f} ms at {t / 1000:.1f} s" for t, d in worst) or "none")
        + f"; until live, then {SETTLE_MS / 1000:g} s",
    )


# --- boot: first and return visits, snapshot on and off --------------------------


def booted(page, url: str) -> dict:
    """Load `url` in `page`, wait until live; the boot figures ({bootToReadyMs, longTasksMs, snapshot})."""
    page.add_init_script(LONG_TASK_OBSERVER)
    page.goto(url)
    wait_live(page)
    return page.evaluate(BOOT_FIGURES)


def visit_pair(browser, url: str, snapshot: bool) -> tuple[dict, dict]:
    """A first visit and a return visit (same context: warm HTTP cache and storage); their boot figures.

    With the snapshot on, the return visit waits for the first visit's worker to
    have kept its snapshot, and must then restore it.
    """
    with first_visit(browser) as page:
        first = booted(page, url)
        if snapshot and snapshot_saved(page) is not True:
            raise MeasurementError(f"{url}: the worker kept no snapshot after the first visit")
        again = page.context.new_page()
        page.close()
        back = booted(again, url)
    expected = ("none", "restored") if snapshot else ("unavailable", "unavailable")
    if (first["snapshot"], back["snapshot"]) != expected:
        raise MeasurementError(f"{url}: snapshot status {first['snapshot']!r}, then {back['snapshot']!r}; expected {expected}")
    return first, back


def seconds(ms: float) -> str:
    return f"{ms / 1000:.2f} s"


def boot_rows(browser, site: Site, path: str, rounds: int) -> list[Row]:
    """Boot to ready, first and return visits, snapshot on and off, alternated round by round so drift hits both."""
    runs = {key: [] for key in ("first_on", "return_on", "first_off", "return_off")}
    for _ in range(rounds):
        for snapshot, url in ((True, site.url), (False, site.url_no_snapshot)):
            first, back = visit_pair(browser, url + path, snapshot)
            suffix = "on" if snapshot else "off"
            runs[f"first_{suffix}"].append(first["bootToReadyMs"])
            runs[f"return_{suffix}"].append(back["bootToReadyMs"])
    median = {key: statistics.median(values) for key, values in runs.items()}
    first_ratio = median["first_on"] / median["first_off"]
    return_ratio = median["return_on"] / median["first_on"]
    detail = "; ".join(f"{key.replace('_', ' ')}: " + ", ".join(seconds(ms) for ms in values) for key, values in runs.items())
    return [
        Row(
            figure=f"first visit: boot → ready, snapshot on (median of {rounds})",
            page=path,
            measured=seconds(median["first_on"]),
            anchor=f"off {seconds(median['first_off'])}",
            ratio=f"{first_ratio:.2f}× off",
            target="≤ 3.5 s, ≤ 1.10× off",  # 10 %: the run-to-run spread of a boot here
            passed=median["first_on"] <= 3500 and first_ratio <= 1.10,
            values={"median_ms": median, "runs_ms": runs},
            detail=detail,
        ),
        Row(
            figure=f"return visit: boot → ready, snapshot on (median of {rounds})",
            page=path,
            measured=seconds(median["return_on"]),
            anchor=f"off {seconds(median['return_off'])}",
            ratio=f"{return_ratio:.2f}× first",
            target="≤ 1.0 s, ≤ 0.40× first",
            passed=median["return_on"] <= 1000 and return_ratio <= 0.40,
            values={"median_ms": median},
        ),
    ]


# --- input latency, Pyodide live ------------------------------------------------------

# Types each value into a field of the index-th widget of the page in turn, and
# times, with performance.now(), from just before the input event to the
# runtime's widget:updated event (numbers written) or to the first change of
# a chart's SVG (`chart`: null, or [selector, n], the widget's n-th element the
# selector finds, CHART or FIGURES). Vega's SVG renderer writes a redraw in one synchronous pass,
# so the first batch of mutations is the whole redraw. Each input waits for the
# page to be idle first: the previous change's chart redraw runs after its
# widget:updated event, and would otherwise be timed as part of the next
# change's answer. If a change is not answered in time, the field gets its
# first value back, so the widget is left valid for the next field tried.
TIME_CHANGES = """async ({ index, field, values, chart, timeoutMs }) => {
  const root = document.querySelectorAll("[data-widget]")[index];
  const control = root.querySelector(`[name="${field}"]`);
  const original = control.value;
  const times = [];
  for (const value of values) {
    await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 1000 }));
    const answered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(
        `${root.dataset.widget}: nothing ${chart ? "redrawn" : "updated"} ${timeoutMs} ms after ${field}=${value}`)), timeoutMs);
      const done = () => { clearTimeout(timer); resolve(performance.now()); };
      if (chart) {
        const observer = new MutationObserver(() => { observer.disconnect(); done(); });
        observer.observe(root.querySelectorAll(chart[0])[chart[1]], { subtree: true, childList: true, attributes: true, characterData: true });
      } else {
        root.addEventListener("widget:updated", done, { once: true });
      }
    });
    control.value = value;
    const start = performance.now();
    control.dispatchEvent(new Event("input", { bubbles: true }));
    try {
      times.push((await answered) - start);
    } catch (error) {
      control.value = original;
      control.dispatchEvent(new Event("input", { bubbles: true }));
      throw error;
    }
  }
  return times;
}"""


def bring_near(page, index: int):
    """Look at the index-th widget, as a reader does before typing into it, and wait for its form: far
    down a page its controls are made only when it comes near (runtime.js, showControls)."""
    widget = "#" + page.evaluate("(i) => document.querySelectorAll('[data-widget]')[i].id", index)
    look_at(page, widget)
    page.wait_for_selector(f"{widget} form", state="attached")


# A widget's chart, and the further figures Vega redraws from the same answer (the run's cost under the
# training-time widget's plane, runtime.js).
CHART, FIGURES = "[data-chart]", "[data-chart-spec]:not([data-chart])"

# The index-th widget's form controls, name -> value, whether it has a chart Vega redraws, and the
# names of its further figures (their labels for a screen reader).
WIDGET_FORM = """(index) => {
  const root = document.querySelectorAll("[data-widget]")[index];
  const values = Object.fromEntries([...root.querySelector(".widget__inputs").elements].filter((c) => c.name).map((c) => [c.name, c.value]));
  const figures = [...root.querySelectorAll('%s')].map((el) => el.getAttribute("aria-label").replace(/^Chart: /, ""));
  return { values, chart: root.querySelector("[data-chart][data-chart-spec]") !== null, figures }; // a diagram is never redrawn
}""" % FIGURES


# Presses the index-th widget's nth example (its preset buttons, in order) and waits for its answer: the
# example's label.
PRESS_PRESET = """async ({ index, nth, timeoutMs }) => {
  const root = document.querySelectorAll("[data-widget]")[index];
  const button = root.querySelectorAll("[data-preset]")[nth];
  const answered = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${root.dataset.widget}: example ${nth} not answered in ${timeoutMs} ms`)), timeoutMs);
    root.addEventListener("widget:updated", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
  button.click();
  await answered;
  return button.textContent.trim();
}"""
PRESET_COUNT = """(index) => document.querySelectorAll("[data-widget]")[index].querySelectorAll("[data-preset]").length"""


# Presses the index-th widget's Play and watches the main thread until `steps` steps have been
# answered (and drawn, for a chart) and the page is idle again, then presses it again to stop:
# every long task meanwhile, in ms, and how long the steps took.
WATCH_PLAY = """async ({ index, steps, timeoutMs }) => {
  const root = document.querySelectorAll("[data-widget]")[index];
  const button = root.querySelector("[data-play]");
  const chart = root.querySelector("[data-chart-spec]") !== null;
  const tasks = [];
  const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries()));
  observer.observe({ type: "longtask" });
  const start = performance.now();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${root.dataset.widget}: ${steps} Play steps not shown in ${timeoutMs} ms`)), timeoutMs);
    let shown = 0;
    root.addEventListener(chart ? "widget:drawn" : "widget:updated", function count() {
      if (++shown < steps) return;
      root.removeEventListener(chart ? "widget:drawn" : "widget:updated", count);
      clearTimeout(timer);
      resolve();
    });
    button.click();
  });
  const took = performance.now() - start;
  await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 1000 }));
  button.click();
  observer.disconnect();
  return { tasksMs: tasks.concat(observer.takeRecords()).map((t) => t.duration), tookMs: took };
}"""


def play_row(page, path: str, widgets: list[str], index: int, steps: int) -> Row | None:
    """Long tasks while the widget's Play runs `steps` steps; None for a widget without Play."""
    if not page.evaluate("(i) => document.querySelectorAll('[data-widget]')[i].querySelector('[data-play]') !== null", index):
        return None
    # A step every couple of seconds: allow each one its budget on a loaded machine.
    watched = page.evaluate(WATCH_PLAY, {"index": index, "steps": steps, "timeoutMs": steps * ANSWER_TIMEOUT_MS})
    tasks = watched["tasksMs"]
    return Row(
        figure=f"long tasks > 50 ms while Play runs, {label(widgets, index)} ({steps} steps)",
        page=path,
        measured=str(len(tasks)),
        target="0",
        passed=not tasks,
        values={"tasks_ms": tasks, "steps": steps, "took_ms": watched["tookMs"]},
        detail=f"{steps} steps in {seconds(watched['tookMs'])}" + (f"; tasks: {', '.join(f'{ms:.0f} ms' for ms in tasks)}" if tasks else ""),
    )


@dataclass
class Probe:
    """A field of the index-th widget of a page and the values to type or pick in it in turn."""

    index: int
    widget: str
    field: str
    values: list[str]


def stepped_values(field, raw: str, count: int) -> list[str]:
    """`count` values 1 % to 40 % away from the current one, cycling, so each differs from the one before.

    Upwards, unless that would pass the field's maximum (if it has one).
    """
    base = parse_number(field.name, raw)  # the form shows a field as a person types it ("8,192")
    sign = -1 if field.max is not None and base * 1.4 > field.max else 1
    values = [base * (1 + sign * (k % 40 + 1) / 100) for k in range(count)]
    return [str(round(v)) if field.kind == "whole" else f"{v:.6g}" for v in values]


def numeric_probes(index: int, widget: str, form: dict, count: int) -> list[Probe]:
    """A probe for each number or whole field the widget declares and its form holds, whose steps all differ.

    Fields are read through the platform's declaration (FIELDS: name, kind, max) only.
    """
    probes = []
    for f in pyodide_widgets.module(widget).FIELDS:
        if f.kind not in ("number", "whole") or f.name not in form:
            continue
        values = stepped_values(f, form[f.name], count)
        if all(a != b for a, b in zip([form[f.name], *values], values)):  # a small whole number rounds to repeats
            probes.append(Probe(index, widget, f.name, values))
    return probes


def choice_probes(index: int, widget: str, form: dict, count: int) -> list[Probe]:
    """A probe for each choice the widget declares and its form holds: its other options in turn, cycling.

    For a widget with no number to type (a pick-one widget), or whose numbers all leave their range.
    """
    probes = []
    for f in pyodide_widgets.module(widget).FIELDS:
        options = [value for value, _ in f.options]
        if f.kind != "choice" or f.name not in form or len(options) < 2:
            continue
        start = options.index(form[f.name]) if form[f.name] in options else 0
        probes.append(Probe(index, widget, f.name, [options[(start + 1 + k) % len(options)] for k in range(count)]))
    return probes


def time_changes(page, probe: Probe, values: list[str], chart: tuple | None, timeout_ms: int) -> list[float]:
    """Each change's time to the answer, or with `chart` (a selector and which of its elements) to that chart's redraw."""
    arg = {"index": probe.index, "field": probe.field, "chart": chart, "timeoutMs": timeout_ms, "values": values}
    return page.evaluate(TIME_CHANGES, arg)


def first_working(page, probes: list[Probe], warmup: int, chart: tuple | None) -> Probe | None:
    """The first probe whose unmeasured warm-up changes are all answered (or all redraw the chart) in time."""
    for probe in probes:
        try:
            time_changes(page, probe, probe.values[:warmup], chart, TRIAL_TIMEOUT_MS)
            return probe
        except PlaywrightError:
            continue  # invalid in this state, or it leaves the chart as it is: try the next field
    return None


def percentiles(times: list[float]) -> tuple[float, float]:
    """(p50, p95)."""
    return statistics.median(times), statistics.quantiles(times, n=20, method="inclusive")[18]


def label(widgets: list[str], index: int) -> str:
    """The widget's name, numbered when its page holds it more than once."""
    name = widgets[index]
    return name if widgets.count(name) == 1 else f"{name} #{widgets[:index + 1].count(name)}"


@dataclass(frozen=True)
class AnswerBudget:
    p50_ms: float
    p95_ms: float


# An answer within a frame at 60 Hz (p95), half of one typically: what reads as at once.
ANSWER_BUDGET = AnswerBudget(p50_ms=8, p95_ms=16)


def answer_budget(widget: str) -> AnswerBudget:
    """The widget's own p95 budget if its module declares one (ANSWER_BUDGET_MS, a search rather
    than a formula), with no p50 target beyond it; the site's otherwise."""
    own = getattr(pyodide_widgets.module(widget), "ANSWER_BUDGET_MS", None)
    return ANSWER_BUDGET if own is None else AnswerBudget(p50_ms=own, p95_ms=own)


def latency_row(page, path: str, widgets: list[str], index: int, plan: Plan, example: str = "") -> tuple[Row, Probe, tuple]:
    """Input → outputs of the index-th widget in its present state, on the first field that answers: its row, the
    probe and its (p50, p95). `example` names the preset the state was started from, when it is not the default."""
    widget = widgets[index]
    form = page.evaluate(WIDGET_FORM, index)
    count = plan.warmup + plan.changes
    probes = numeric_probes(index, widget, form["values"], count) + choice_probes(index, widget, form["values"], count)
    numbers = first_working(page, probes, plan.warmup, chart=None)
    if numbers is None:
        raise MeasurementError(f"{path}: {label(widgets, index)}{example}: no field answers {plan.changes} changes")
    p50, p95 = percentiles(time_changes(page, numbers, numbers.values[plan.warmup:], None, ANSWER_TIMEOUT_MS))
    budget = answer_budget(widget)
    row = Row(
        figure=f"input → outputs, {label(widgets, index)}{example} ({numbers.field}), p50 / p95",
        page=path,
        measured=f"{p50:.1f} / {p95:.1f} ms",
        target=f"≤ {budget.p50_ms:g} / ≤ {budget.p95_ms:g} ms",
        passed=p50 <= budget.p50_ms and p95 <= budget.p95_ms,
        values={"p50_ms": p50, "p95_ms": p95, "changes": plan.changes},
    )
    return row, numbers, (p50, p95)


def example_rows(page, path: str, widgets: list[str], index: int, plan: Plan) -> list[Row]:
    """Input → outputs from each of the widget's examples in turn, for a widget whose answer is a search
    (ANSWER_BUDGET_MS): its time moves with the example (a larger model, a mixture of experts), and its
    budget holds at the slowest. Measured last on the widget: the last example stays in its form."""
    if getattr(pyodide_widgets.module(widgets[index]), "ANSWER_BUDGET_MS", None) is None:
        return []
    rows = []
    for nth in range(page.evaluate(PRESET_COUNT, index)):
        example = page.evaluate(PRESS_PRESET, {"index": index, "nth": nth, "timeoutMs": ANSWER_TIMEOUT_MS})
        rows.append(latency_row(page, path, widgets, index, plan, example=f" from «{example}»")[0])
    return rows


def redrawn_row(page, path: str, widgets: list[str], index: int, probes: list[Probe], chart: tuple, name: str, plan: Plan) -> Row | None:
    """Input → `chart` redrawn (a selector and which of its elements) on the first field that redraws it; None if none does."""
    probe = first_working(page, probes, plan.warmup, chart=chart)
    if probe is None:
        return None
    p50, p95 = percentiles(time_changes(page, probe, probe.values[plan.warmup:], chart, ANSWER_TIMEOUT_MS))
    return Row(
        figure=f"input → {name} redrawn, {label(widgets, index)} ({probe.field}), p95",
        page=path,
        measured=f"{p95:.1f} ms",
        target="≤ 50 ms",
        passed=p95 <= 50,
        values={"p50_ms": p50, "p95_ms": p95, "changes": plan.changes},
        detail=f"p50 {p50:.1f} ms; until the first change of the {name}'s SVG",
    )


def latency_rows(browser, url: str, path: str, widgets: list[str], plan: Plan) -> tuple[list[Row], list[Probe], list[tuple]]:
    """Input → outputs and input → chart redrawn (its chart, and each further figure) for every widget on the page, in
    one page with Pyodide live.

    Also returns the outputs probe of each widget, for the typing figure and the one-widget page,
    and its (p50, p95).
    """
    rows, chosen, timed = [], [], []
    with first_visit(browser) as page:
        page.goto(url)
        wait_live(page)
        for index, widget in enumerate(widgets):
            bring_near(page, index)
            form = page.evaluate(WIDGET_FORM, index)
            count = plan.warmup + plan.changes
            probes = numeric_probes(index, widget, form["values"], count) + choice_probes(index, widget, form["values"], count)
            row, numbers, answered = latency_row(page, path, widgets, index, plan)
            rows.append(row)
            chosen.append(numbers)
            timed.append(answered)
            charts = [((CHART, 0), "chart")] if form["chart"] else []
            charts += [((FIGURES, nth), f"further chart «{name}»") for nth, name in enumerate(form["figures"])]
            for chart, name in charts:
                if (redrawn := redrawn_row(page, path, widgets, index, probes=probes, chart=chart, name=name, plan=plan)) is not None:
                    rows.append(redrawn)
            if (played := play_row(page, path, widgets, index, plan.play_steps)) is not None:
                rows.append(played)
            rows += example_rows(page, path, widgets, index, plan)
    return rows, chosen, timed


def alone_row(browser, url: str, path: str, widgets: list[str], probe: Probe, on_page: tuple[float, float], plan: Plan) -> Row:
    """The same input's latency on a page holding only this widget, against the widget's own page:
    the ratio is what the rest of the page costs each change."""
    with first_visit(browser) as page:
        page.goto(url)
        wait_live(page)
        alone = Probe(0, probe.widget, probe.field, probe.values)
        time_changes(page, alone, alone.values[:plan.warmup], False, ANSWER_TIMEOUT_MS)
        p50, p95 = percentiles(time_changes(page, alone, alone.values[plan.warmup:], False, ANSWER_TIMEOUT_MS))
    ratio = on_page[1] / p95 if p95 else float("inf")
    return Row(
        figure=f"own page against alone: input → outputs, {label(widgets, probe.index)} ({probe.field}), p95",
        page=path,
        measured=f"{on_page[1]:.1f} ms",
        anchor=f"alone {p95:.1f} ms",
        ratio=f"{ratio:.2f}×",
        target="≤ 1.3×",
        passed=ratio <= 1.3,
        values={"own_page_ms": {"p50": on_page[0], "p95": on_page[1]}, "alone_ms": {"p50": p50, "p95": p95}, "alone_page": url},
        detail=f"p50 {on_page[0]:.1f} ms on its page, {p50:.1f} ms alone",
    )


def typing_row(browser, url: str, path: str, probe: Probe, runs: int) -> Row:
    """A first visit where the reader types into the first widget one second after the load event, looking at it first
    (far down a page, such as the planner's, its controls are made only then): keystroke → first live answer."""
    times = []
    for _ in range(runs):
        with first_visit(browser) as page:
            page.goto(url, wait_until="load")
            page.wait_for_timeout(TYPE_AFTER_LOAD_MS)
            bring_near(page, probe.index)
            times += time_changes(page, probe, probe.values[:1], False, LIVE_TIMEOUT_MS)
    median = statistics.median(times)
    return Row(
        figure=f"first visit, typed {TYPE_AFTER_LOAD_MS / 1000:g} s after load → first live answer (median of {runs})",
        page=path,
        measured=seconds(median),
        target="—",
        passed=None,
        values={"median_ms": median, "runs_ms": times, "widget": probe.widget, "field": probe.field},
        detail="runs: " + ", ".join(seconds(ms) for ms in times),
    )


# --- instant navigation ------------------------------------------------------------------

# Counts mkdocs-material's page swaps; document$ replays the current page on subscribe.
COUNT_SWAPS = "() => { window.__benchSwaps = 0; window.document$.subscribe(() => { window.__benchSwaps += 1; }); }"
# Clicks the primary navigation's link to a page, as a reader would.
CLICK_NAV_LINK = """(target) => {
  const link = [...document.querySelectorAll(".md-sidebar--primary a.md-nav__link")].find((a) => a.href === target);
  if (!link) throw new Error(`no link to ${target} in the primary navigation`);
  link.click();
}"""


def navigation_boots_row(browser, url: str, widget_pages: list[str]) -> Row:
    """Pyodide boots over three instant page changes between the first two pages with widgets.

    Reads window.widgetRuntime.boots at the end and counts requests of
    pyodide.asm.wasm (the page's and its worker's): a boot that the counter
    missed, in a window that a full page load replaced, still fetches it.
    """
    first, second = widget_pages[:2]
    with first_visit(browser) as page:
        wasm = []
        page.context.on("request", lambda r: r.url.endswith("/pyodide.asm.wasm") and wasm.append(r.url))
        page.goto(url + first)
        wait_live(page)
        page.evaluate(COUNT_SWAPS)
        for swaps, path in enumerate([second, first, second], start=2):
            page.evaluate(CLICK_NAV_LINK, url + path)
            try:
                page.wait_for_function(f"() => window.__benchSwaps === {swaps}")
            except PlaywrightError as error:
                raise MeasurementError(f"instant navigation did not swap the page for {path}: {error}") from error
            # Each page's widgets bind to the worker that is already running.
            page.wait_for_selector('[data-widget][data-state="live"]')
        boots = page.evaluate("window.widgetRuntime.boots")
    measured = max(boots, len(wasm))
    return Row(
        figure="Pyodide boots over 3 instant page changes",
        page=f"{first} ⇄ {second}",
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


def median_report(url: str, runs: int) -> tuple[dict, list[dict]]:
    """The report with the median performance of `runs` Lighthouse runs, and all of them, by performance."""
    with tempfile.TemporaryDirectory(prefix="bench-lighthouse-") as folder:
        reports = [lighthouse_report(url, Path(folder) / f"run{i}.json") for i in range(runs)]
    reports.sort(key=lambda r: r["categories"]["performance"]["score"])
    return reports[len(reports) // 2], reports


def lighthouse_row(url: str, path: str, runs: int, results: Path, theme_alone_url: str | None) -> Row:
    """Lighthouse's four category scores on a page: the run with the median performance of `runs`;
    against the performance of the same page built by the theme alone (`anchor_site`), when it has one.

    The chosen report is kept as lighthouse<page>.json in `results`.
    """
    report, reports = median_report(url, runs)
    alone = round(median_report(theme_alone_url, runs)[0]["categories"]["performance"]["score"] * 100) if theme_alone_url else None
    (results / f"lighthouse{path.rstrip('/').replace('/', '-')}.json").write_text(json.dumps(report))
    names = ("performance", "accessibility", "best-practices", "seo")
    scores = {name: round(report["categories"][name]["score"] * 100) for name in names}
    metrics = {
        key: report["audits"][key]["displayValue"]
        for key in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index")
    }
    failed = {name: failed_audits(report, name) for name in names}
    return Row(
        figure="Lighthouse mobile: perf / a11y / best practices / SEO",
        page=path,
        measured=" / ".join(str(scores[name]) for name in names),
        anchor=f"theme alone {alone}" if alone is not None else "",
        target="≥ 97 / 100 / 100 / 100",
        passed=scores["performance"] >= 97 and all(scores[name] == 100 for name in names[1:]),
        values={
            "scores": scores,
            "performance_runs": [round(r["categories"]["performance"]["score"] * 100) for r in reports],
            "theme_alone_performance": alone,
            "metrics": metrics,
            "failed_audits": failed,
            "lighthouse": report["lighthouseVersion"],
        },
        detail="performance over runs: " + ", ".join(str(round(r["categories"]["performance"]["score"] * 100)) for r in reports)
        + "; " + ", ".join(f"{k} {v}" for k, v in metrics.items())
        + "".join(f"; {name} loses on {', '.join(ids)}" for name, ids in failed.items() if ids),
    )


# --- the build ------------------------------------------------------------------------------


def build_rows(repeats: int, empty_cache: bool, config: Path | None = None) -> list[Row]:
    """Cold and warm build and save-to-reload, each against plain mkdocs-material in the same run; the cold
    build from an empty cache, or from a filled one (a smoke run's, which says so and sets no target); of
    every page, or of `config`'s (cut_project)."""
    timings = build_bench.measure(repeats, empty_cache, config)
    median = timings.medians()
    runs = {key: [round(s, 3) for s in values] for key, values in vars(timings).items()}

    def row(figure: str, key: str, anchor_key: str, target: str, passed: bool) -> Row:
        return Row(
            figure=f"{figure} (median of {repeats})",
            page="the measured pages" if config else "all pages",
            measured=f"{median[key]:.2f} s",
            anchor=f"{median[anchor_key]:.2f} s",
            ratio=f"{median[key] / median[anchor_key]:.1f}×",
            target=target,
            passed=passed,
            values={"median_s": median[key], "anchor_median_s": median[anchor_key], "runs_s": runs[key], "anchor_runs_s": runs[anchor_key]},
            detail="runs: " + ", ".join(f"{s:.2f} s" for s in runs[key]) + "; anchor: " + ", ".join(f"{s:.2f} s" for s in runs[anchor_key]),
        )

    cold_ratio = median["cold_build"] / median["anchor_build"]
    return [
        row("cold build, empty cache", "cold_build", "anchor_build", "≤ 3× anchor", cold_ratio <= 3) if empty_cache else
        row("cold build's path, a filled cache (smoke)", "cold_build", "anchor_build", "—", None),
        row("warm build, nothing changed", "warm_build", "anchor_build", "—", None),
        row("make serve: one-line Markdown edit → page served", "save_to_reload", "anchor_save_to_reload", "≤ 1.5 s", median["save_to_reload"] <= 1.5),
    ]


# --- the table ----------------------------------------------------------------------------------

def measure(plan: Plan, results: Path) -> tuple[list[Row], dict]:
    """Every figure, and what they were measured on.

    The load average is recorded because other work on this 2-core machine
    (a test run, a build) stretches the boot and the tail latencies.
    """
    check_pages(plan)
    load_before = os.getloadavg()
    rows = []
    with cut_project(plan) as config:
        with served_site(plan, config) as site, anchor_site(config) as (anchor_url, anchor_pages), chromium() as browser:
            widget_pages = pages_with_widgets(site.widgets, plan)
            measured_pages = widget_pages if plan.max_widget_pages else pages_measured(site.widgets, plan)
            probes: dict[str, list[Probe]] = {}
            for path in measured_pages:
                widgets = site.widgets[path]
                loads = [fresh_load(browser, site.url + path, bool(widgets)) for _ in range(plan.fresh_loads)]
                rows.append(html_row(site.folder, path))
                rows.append(transfer_row(path, loads))
                rows.append(blocking_row(path, loads))
                slowdown = plan.phone_cpu_slowdown
                theme_alone = [phone_load(browser, anchor_url + path, False, slowdown) for _ in range(plan.phone_loads)] if path in anchor_pages else []
                rows.append(phone_row(path, [phone_load(browser, site.url + path, bool(widgets), slowdown) for _ in range(plan.phone_loads)],
                                      theme_alone, slowdown))
                if widgets:
                    rows.append(long_task_row(path, loads))
                    latency, probes[path], timed = latency_rows(browser, site.url + path, path, widgets, plan)
                    rows += latency
                    for index, probe in enumerate(probes[path]):
                        if (alone := site.alone.get((path, index))) is not None:
                            rows.append(alone_row(browser, site.url + alone, path, widgets, probe, timed[index], plan))
                if plan.lighthouse_runs:
                    rows.append(lighthouse_row(site.url + path, path, plan.lighthouse_runs, results,
                                               anchor_url + path if path in anchor_pages else None))
            if widget_pages:
                busiest = widget_pages[0]
                rows += boot_rows(browser, site, busiest, plan.boot_rounds)
                rows.append(typing_row(browser, site.url + busiest, busiest, probes[busiest][0], plan.typing_runs))
            if len(widget_pages) >= 2:
                rows.append(navigation_boots_row(browser, site.url, widget_pages))
            about = {"pages": site.widgets, "chromium": browser.version}
        rows += build_rows(plan.build_repeats, plan.empty_cache, config)
    return rows, {**about, "load_average_before": load_before, "load_average_after": os.getloadavg()}


def print_table(rows: list[Row]):
    """The table, then each row's detail."""
    header = ("figure", "page", "measured", "anchor", "ratio", "target", "pass/miss")
    verdict = {True: "pass", False: "MISS", None: "—"}
    cells = [header] + [(r.figure, r.page, r.measured, r.anchor, r.ratio, r.target, verdict[r.passed]) for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    for i, line in enumerate(cells):
        print(" | ".join(cell.ljust(width) for cell, width in zip(line, widths)))
        if i == 0:
            print("-+-".join("-" * width for width in widths))
    print()
    for r in rows:
        if r.detail:
            print(f"- {r.figure} [{r.page}]: {r.detail}")
    missed = sorted({r.page for r in rows if r.passed is False})
    print("\npages that miss a budget: " + (", ".join(missed) if missed else "none"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="every measuring path once, small; no Lighthouse (make test runs this)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder for runtime.json and Lighthouse's reports")
    parser.add_argument("--page", action="append", default=[], metavar="PATH",
                        help="measure only this page (a URL path such as /training/); repeatable")
    args = parser.parse_args(argv)
    args.results.mkdir(parents=True, exist_ok=True)
    try:
        rows, about = measure(dataclasses.replace(SMOKE if args.smoke else FULL, only=tuple(args.page)), args.results)
    except (MeasurementError, build_bench.BuildError, PlaywrightError, subprocess.TimeoutExpired, FileNotFoundError) as error:
        print(f"bench: the measurement failed: {error}", file=sys.stderr)
        return 1
    print_table(rows)
    print("1-minute / 5-minute load average before: {:.1f} / {:.1f}; after: {:.1f} / {:.1f}".format(
        *about["load_average_before"][:2], *about["load_average_after"][:2]))
    out = args.results / "runtime.json"
    out.write_text(json.dumps({**about, "smoke": args.smoke, "rows": [asdict(r) for r in rows]}, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
