"""Driving a widget by its DOM contract (root [data-widget], named form
controls, [data-output] slots, data-state), and reading its fields through the
widget platform's public declaration."""

import pyodide_widgets

from .browser import LIVE_TIMEOUT_MS

# Prepended to the worker's script (worker.js) to take the Cache API away, as
# private browsing or an insecure origin does: the worker then boots without
# a memory snapshot.
NO_SNAPSHOT_STORAGE = 'Object.defineProperty(self, "caches", { get() { throw new DOMException("The operation is insecure.", "SecurityError"); } });\n'
# The kinds of field a widget declares (`Field.kind`).
KINDS = ("number", "whole", "choice", "multi", "toggle")


def field_kind(field) -> str:
    """The field's kind, one of KINDS.

    Fields declare `kind` directly; older declarations (no `kind`) said
    `options` (non-empty for a choice) and `whole` (a count) instead.
    """
    kind = getattr(field, "kind", None)
    if kind is None:
        kind = "choice" if field.options else "whole" if field.whole else "number"
    if kind not in KINDS:
        raise ValueError(f"field {field.name!r}: unknown kind {kind!r}; known: {', '.join(KINDS)}")
    return kind


def root(widget: str) -> str:
    return f'[data-widget="{widget}"]'


def wait_live(page, widget: str):
    page.wait_for_selector(f'{root(widget)}[data-state="live"]', timeout=LIVE_TIMEOUT_MS)


def form_state(page, widget: str) -> dict:
    """The state the widget's form holds, as the runtime sends it to Python."""
    return page.eval_on_selector(
        f"{root(widget)} form",
        "form => Object.fromEntries([...form.elements].filter(c => c.name).map(c => [c.name, c.value]))",
    )


def shown_outputs(page, widget: str) -> dict:
    """Every visible [data-output] of the widget, key -> text."""
    return page.eval_on_selector_all(
        f"{root(widget)} [data-output]:not([data-live])",
        "els => Object.fromEntries(els.map(el => [el.dataset.output, el.textContent]))",
    )


def cpython_outputs(widget: str, state: dict) -> dict:
    """What CPython's update() gives for the state, restricted to the shown outputs."""
    return pyodide_widgets.module(widget).update(state)["outputs"]


def wait_for_cpython_outputs(page, widget: str, timeout_ms: int = 10_000) -> dict:
    """Wait until every shown output equals CPython's for the form's current state."""
    expected = cpython_outputs(widget, form_state(page, widget))
    shown_keys = shown_outputs(page, widget).keys()
    expected = {key: expected[key] for key in shown_keys}
    page.wait_for_function(
        """([selector, expected]) => Object.entries(expected).every(([key, text]) =>
             document.querySelector(`${selector} [data-output="${key}"]`).textContent === text)""",
        arg=[root(widget), expected],
        timeout=timeout_ms,
    )
    return expected


def type_into(page, widget: str, field: str, text: str):
    page.fill(f'{root(widget)} [name="{field}"]', text)


def choose(page, widget: str, field: str, value: str):
    """Pick an option of a <select> field by its value, as a reader would."""
    page.select_option(f'{root(widget)} [name="{field}"]', value)


def read_without_javascript(browser, url: str, widget: str) -> dict:
    """What a reader with JavaScript off sees of the widget: its outputs, data-state and chart."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(url)
    seen = {
        "outputs": shown_outputs(page, widget),
        "state": page.get_attribute(root(widget), "data-state"),
        "chart_svgs": page.locator(f"{root(widget)} [data-chart] svg").count(),
        "chart_text": page.locator(f"{root(widget)} [data-chart] svg text").all_text_contents(),
    }
    context.close()
    return seen


def snapshot_saved(page) -> bool:
    """Wait for the worker to report on the Pyodide snapshot it made after booting: kept (True) or not (False)."""
    page.wait_for_function("window.widgetRuntime.snapshotSaved !== undefined", timeout=LIVE_TIMEOUT_MS)
    return page.evaluate("window.widgetRuntime.snapshotSaved")
