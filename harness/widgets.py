"""Driving a widget by its DOM contract (see ARCHITECTURE.md, "The widget contract"),
shared by the browser tests and the benchmark.

`widget` is a widget's name (its first copy on the page) or "#<element id>" (one copy).
"""

from pathlib import Path

import pyodide_widgets

from .browser import LIVE_TIMEOUT_MS
from .site import throwaway_project

# Prepended to the worker's script (worker.js) to take the Cache API away, as
# private browsing or an insecure origin does: the worker then boots without
# a memory snapshot.
NO_SNAPSHOT_STORAGE = 'Object.defineProperty(self, "caches", { get() { throw new DOMException("The operation is insecure.", "SecurityError"); } });\n'
AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
# The widths every picture must fit: a desktop's text column, a phone's, the narrowest phone's.
WIDTHS = (1280, 390, 360)
# No chart text smaller than this, in CSS px, at any of those widths.
SMALLEST_TEXT_PX = 10
# Every chart of a widget: its picture, and the further charts it draws from the same answer (folded once live).
CHARTS = ":is([data-chart], [data-chart-spec])"


def one_page_per_widget(folder: Path, names) -> Path:
    """A throwaway project in `folder` of a page per widget, `/<name>/`, and of a page holding it twice,
    `/<name>-twice/`; returns its config. One site (one origin) serves every test of a widget alone: the
    Pyodide snapshot its first visit keeps serves them all."""
    one = "{{{{ widget('{}') }}}}\n"
    pages = {f"{name}.md": f"# One widget\n\n{one.format(name)}" for name in names}
    pages |= {f"{name}-twice.md": f"# Two copies of one widget\n\n{one.format(name)}\n{one.format(name)}" for name in names}
    return throwaway_project(folder, pages, with_docs=False)


def open_page(browser, url: str, width: int = 1280, javascript: bool = True, scheme: str = "light"):
    """`url` in a new context `width` px wide, with JavaScript on or off, in a light or dark palette."""
    context = browser.new_context(viewport={"width": width, "height": 900}, java_script_enabled=javascript,
                                  color_scheme=scheme)
    page = context.new_page()
    page.goto(url)
    return page


def at_each_width(page, widths=WIDTHS):
    """Yields each of `widths` with `page` laid out that wide: what loading it at that width shows, so one
    visit serves every width. Only CSS reads the width, and it reads it again on a resize: a live chart
    is drawn at its spec's size, in SVG units, as the build's is, and the style sheet scales either to
    its column (widgets.css); no script of the runtime reads a width."""
    for width in widths:
        page.set_viewport_size({"width": width, "height": 900})
        yield width


def mark_labels(page, widget: str, role: str) -> list:
    """The text alternatives of the widget's charts' marks of one ARIA role description ("bar",
    "point", "line mark"), in drawing order: the aria-label Vega writes from each row's label."""
    return page.eval_on_selector_all(f'{root(widget)} {CHARTS} [aria-roledescription="{role}"]',
                                     "els => els.map((el) => el.getAttribute('aria-label'))")


def assert_fits(page, widget: str):
    """The widget's picture is no wider than its column, neither it nor the page scrolls sideways,
    and no text of it is drawn below SMALLEST_TEXT_PX."""
    sizes = page.eval_on_selector(
        root(widget),
        """(el) => { const chart = el.querySelector('[data-chart]'); const svg = chart.querySelector('svg');
             const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
             const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim());
             return {column: chart.clientWidth, scroll: chart.scrollWidth, svg: svg.getBoundingClientRect().width,
                     page: document.documentElement.scrollWidth, viewport: window.innerWidth,
                     smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale))}; }""",
    )
    assert sizes["smallest"] >= SMALLEST_TEXT_PX - 0.05, sizes
    assert sizes["svg"] <= sizes["column"] + 0.5, sizes
    assert sizes["scroll"] <= sizes["column"], sizes
    assert sizes["page"] <= sizes["viewport"], sizes


def root(widget: str) -> str:
    return widget if widget.startswith("#") else f'[data-widget="{widget}"]'


def name_of(page, widget: str) -> str:
    return page.get_attribute(root(widget), "data-widget")


def look_at(page, widget: str):
    """Scroll the widget into view, as a reader does before reading it: a section far from the
    viewport skips layout (content-visibility), and text that is not laid out is not rendered."""
    # Its section is laid out on the next frame it is near the viewport: until then, scrolled to again
    # each frame, the widget of the page as it is then (instant navigation may still be replacing it).
    page.wait_for_function("""sel => { const el = document.querySelector(sel);
                                       el?.scrollIntoView({block: "nearest"});
                                       return el?.checkVisibility({contentVisibilityAuto: true}); }""",
                           arg=root(widget))


def wait_live(page, widget: str):
    """Wait for the widget to answer, looked at as a reader about to use it would (see set_field)."""
    look_at(page, widget)
    page.wait_for_selector(f'{root(widget)}[data-state="live"]', timeout=LIVE_TIMEOUT_MS)


def form_state(page, widget: str) -> dict:
    """The state the widget's form holds, read by the runtime as it sends it to Python."""
    return page.eval_on_selector(root(widget), "el => window.widgetRuntime.stateOf(el)")


def shown_outputs(page, widget: str) -> dict:
    """Every visible [data-output] of the widget, key -> text."""
    return page.eval_on_selector_all(
        f"{root(widget)} [data-output]:not([data-live])",
        "els => Object.fromEntries(els.map(el => [el.dataset.output, el.textContent]))",
    )


def cpython_outputs(widget: str, state: dict) -> dict:
    """What CPython's update() gives for the state of the widget called `widget`."""
    return pyodide_widgets.module(widget).update(state)["outputs"]


def wait_for_cpython_outputs(page, widget: str, timeout_ms: int = 10_000) -> dict:
    """Wait until every shown output equals CPython's for the form's current state."""
    expected = cpython_outputs(name_of(page, widget), form_state(page, widget))
    expected = {key: expected[key] for key in shown_outputs(page, widget)}
    page.wait_for_function(
        """([selector, expected]) => Object.entries(expected).every(([key, text]) =>
             document.querySelector(`${selector} [data-output="${key}"]`).textContent === text)""",
        arg=[root(widget), expected],
        timeout=timeout_ms,
    )
    return expected


def address(page) -> str:
    """The page's address once the widgets have written their state into it, as a reader copies it:
    the runtime writes it when the page is idle, not with each change."""
    page.wait_for_function("() => !window.widgetRuntime?.addressPending")
    return page.url


def controls(widget: str, field: str) -> str:
    """The selector of a field's controls: its named control, or a multi-choice's checkboxes (data-field)."""
    return f'{root(widget)} :is([name="{field}"], [data-field="{field}"])'


def unfold(page, widget: str, field: str):
    """Open the "More inputs" fold that holds the field, if it is folded, as a reader would: by its summary."""
    page.eval_on_selector(controls(widget, field),
                          "el => { const fold = el.closest('details'); if (fold && !fold.open) fold.querySelector('summary').click(); }")


def type_into(page, widget: str, field: str, text: str):
    look_at(page, widget)
    unfold(page, widget, field)
    page.fill(f'{root(widget)} [name="{field}"]', text)


def choose(page, widget: str, field: str, value: str):
    """Pick an option of a <select> field by its value, as a reader would."""
    look_at(page, widget)
    unfold(page, widget, field)
    page.select_option(f'{root(widget)} [name="{field}"]', value)


def set_field(page, widget: str, field, text: str):
    """Put a field's text form (contract.form_text) into the form as a reader would: type, pick or tick.
    The reader looks at the widget first: far down a page its controls are made only when it comes
    near (runtime.js, showControls). A field under "More inputs" is unfolded first."""
    look_at(page, widget)
    unfold(page, widget, field.name)
    selector = f'{root(widget)} [name="{field.name}"]'
    if field.kind == "choice":
        page.select_option(selector, text)
    elif field.kind == "multi":
        for value, _ in field.options:
            page.set_checked(f'{controls(widget, field.name)}[value="{value}"]', value in text.split(","))
    elif field.kind == "toggle":
        page.set_checked(selector, text == "true")
    else:
        page.fill(selector, text)


def scrolled_into_view(locator):
    """Scroll `locator` into view and wait until the page around it has settled: the blocks brought
    near are drawn at their real size in the next frames (site.css: content-visibility), which moves
    what is below them; scrolled again, it stays put unless something else moves it."""
    locator.scroll_into_view_if_needed()
    locator.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    locator.scroll_into_view_if_needed()


def run_axe(page, within: str | None = None) -> list:
    """axe-core's violations on the page as it is now, or in the elements `within` selects (a widget,
    an open card): (rule, first targets). A part is checked as a part: without the page-level rules
    (landmarks, headings, the page's title), which the whole-page runs check."""
    # Evaluated by the test driver, not added as an inline <script>, which the site's policy refuses.
    if not page.evaluate("() => typeof axe === 'object'"):  # once a document: a page checked twice reuses it
        page.evaluate(AXE.read_text("utf-8"))
    # A block far from the viewport (content-visibility: auto) is not restyled until it comes near:
    # after a palette switch its links would start their colour transition only when axe reads them,
    # and read mid-way between the two palettes' colours. Transitions off, each reads as it settles,
    # as it does by the time a reader's scrolling brings it near.
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    page.evaluate("document.getAnimations().forEach(animation => animation.finish())")
    # The theme appends its tooltip (role="tooltip") to <body>, outside every landmark, which the
    # best-practice "region" rule reports; a tooltip is no page content to put in a landmark.
    # target-size (WCAG 2.2's 24 px targets) is off in axe-core by default; Lighthouse turns it on.
    # Only violations are collected (`resultTypes`: axe keeps one node of each other kind of result, not
    # every node that passed), and only their rule and first targets come back over the driver: on the
    # longest pages the whole result is megabytes of nodes that passed, serialised for nothing.
    if within is None:
        context, rules = "{exclude: [['.md-tooltip2']]}", "{'target-size': {enabled: true}}"
    else:
        context = "{include: [[within]]}"
        rules = """{'target-size': {enabled: true}, 'region': {enabled: false}, 'page-has-heading-one': {enabled: false},
                    'landmark-one-main': {enabled: false}}"""
    return [tuple(found) for found in page.evaluate(f"""async (within) => {{
        const result = await axe.run({context}, {{resultTypes: ["violations"], rules: {rules}}});
        return result.violations.map((v) => [v.id, v.nodes.slice(0, 3).map((n) => n.target)]);
    }}""", within)]


def snapshot_saved(page) -> bool:
    """Wait for the worker to report on the Pyodide snapshot it made after booting: kept (True) or not (False)."""
    page.wait_for_function("() => window.widgetRuntime.snapshotSaved !== undefined", timeout=LIVE_TIMEOUT_MS)
    return page.evaluate("window.widgetRuntime.snapshotSaved")
