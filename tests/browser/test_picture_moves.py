"""The pictures a reader moves by hand, proved from the DOM: the six cuts' collective between four
GPUs and each GPU's state against its memory, the interruptions' cadence picks, the storage chart's
drag and arrow keys; and Play under prefers-reduced-motion.

Marks are read by their text alternatives (the aria-label Vega writes from each row's label, which
the widget's update wrote from the estimators' outputs), as in test_pictures.py.
"""

import math
import re

import pytest

import estimators
import pyodide_widgets
from figures import cut_holdings
from figures.storage_scale import PART_COLOURS
from harness.widgets import (assert_fits, at_each_width, choose, form_state, look_at, mark_labels, open_page, root,
                             type_into, wait_for_cpython_outputs, wait_live)

WIDGETS = ("parallel_cuts", "interruptions", "storage_scale")
PLAY_STEP_S = 2.0  # runtime.js's PLAY_STEP_MS: an unpressed Play would have stepped by then


def drawn(page, widget: str):
    """Wait for the live chart to hold the answer to the form's current state."""
    wait_for_cpython_outputs(page, widget)
    page.wait_for_function("(sel) => document.querySelector(sel).widget.view", arg=root(widget))


# --- six ways to cut a job ------------------------------------------------------------

def sends(page) -> set:
    """{(from GPU, to GPU)} of the arrowheads: "GPU 1 sends gradients to GPU 2, 1.62 GB a step"."""
    return {tuple(map(int, re.match(r"GPU (\d+) sends .+ to GPU (\d+), ", label).groups()))
            for label in mark_labels(page, "parallel_cuts", "point")}


def state_bars(page) -> list:
    return [label for label in mark_labels(page, "parallel_cuts", "rect mark") if label.startswith("GPU ")]


def test_the_six_cuts_ring_has_four_gpus_and_arrows_and_says_the_state_does_not_fit(browser, widget_site):
    page = open_page(browser, f"{widget_site}/parallel_cuts/", javascript=False)
    # The default preset: tensor parallelism over 8 GPUs of Llama 3 405B, four of them drawn.
    assert sends(page) == {(1, 2), (2, 3), (3, 4), (4, 1)}
    bars = state_bars(page)
    assert [bar.split(":")[0] for bar in bars] == ["GPU 1", "GPU 2", "GPU 3", "GPU 4"]
    widget = pyodide_widgets.module("parallel_cuts")
    state = contract_state(widget, "llama3-405b-tp")
    share = estimators.gpu_share(estimators.load_presets().model(state["model"]).config,
                                 estimators.single_cut_layout(state["cut"], state["gpus"]), state["seq_len"], state["global_batch"])
    assert all(estimators.units.bytes_(share.state_bytes) in bar and "does not fit" in bar for bar in bars)
    assert page.text_content('[data-widget="parallel_cuts"] [data-output="fit"]').endswith("does not fit")


def held_cells(page, cut: str) -> list:
    """How many of the model grid's cells each GPU's panel of one cut fills, in the panels' order: a
    cell is filled where a line as thick as a cell paints its centre (figures.cut_holdings), and
    only outlined otherwise."""
    c = cut_holdings
    panel_h = c.TOP + c.GRID * c.CELL + 6 + len(c.STRIPS) * (c.STRIP_H + 6)
    figure = page.locator(f'[data-widget="parallel_cuts"] figure[data-when="cut={cut}"]')
    figure.scroll_into_view_if_needed()
    centres = [[(column * (c.PANEL_W + c.GAP) + x * c.CELL + (c.CELL - 2) / 2,
                 row * (panel_h + c.GAP) + c.TOP + y * c.CELL + (c.CELL - 2) / 2)
                for x in range(c.GRID) for y in range(c.GRID)]
               for row in range(2) for column in range(c.PER_ROW)]
    return figure.locator("svg").evaluate(
        """(svg, [panels, thick]) => { const m = svg.getScreenCTM();
             return panels.map((cells) => cells.filter(([x, y]) => {
               const el = document.elementFromPoint(m.a * x + m.e, m.d * y + m.f);
               return el && el.tagName === "path" && parseFloat(getComputedStyle(el).strokeWidth) >= thick; }).length); }""",
        [centres, c.CELL - 2])


def test_a_zero_3_gpu_holds_a_quarter_of_the_weights_and_the_arrows_say_what_they_carry(browser, widget_site):
    page = open_page(browser, f"{widget_site}/parallel_cuts/", javascript=False)
    cells = cut_holdings.GRID ** 2
    assert held_cells(page, "zero") == [cells // 4] * 4  # its shard of every layer, not the whole model
    assert held_cells(page, "dp") == [cells] * 4 and held_cells(page, "tp") == [cells // 4] * 4
    # The default (tensor parallelism over 8 GPUs of Llama 3 405B): each arrow's key says what it
    # carries and how many bytes a step, the bytes each GPU sends (a ring's one neighbour).
    widget = pyodide_widgets.module("parallel_cuts")
    traffic = page.text_content('[data-widget="parallel_cuts"] [data-output="traffic"]')
    keys = [t for t in page.locator('[data-widget="parallel_cuts"] [data-chart] text').all_text_contents() if " a step" in t]
    carries = estimators.parallelism.CARRIES[contract_state(widget, "llama3-405b-tp")["cut"]]
    assert f"{carries}, {traffic} a step" in keys


def contract_state(widget, preset: str) -> dict:
    return pyodide_widgets.contract.read(widget.FIELDS, widget.presets()[preset]["state"])


def test_without_reduced_motion_play_runs_until_pressed_again_and_each_cut_draws_its_collective_live(browser, widget_site):
    page, button = play_button(browser, widget_site, "no-preference")
    assert button.text_content() == "Play" and button.get_attribute("aria-pressed") == "false"
    first = page.input_value('[data-widget="parallel_cuts"] [name="cut"]')
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    page.wait_for_function("(v) => document.querySelector('[data-widget=parallel_cuts] [name=cut]').value !== v", arg=first)
    button.click()
    assert button.get_attribute("aria-pressed") == "false"

    choose(page, "parallel_cuts", "cut", "pp")
    drawn(page, "parallel_cuts")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=parallel_cuts] [data-chart] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label').includes(' sends gradients to '))")
    # Neighbouring stages: activations forward, gradients back, no send past a neighbour.
    assert sends(page) == {(1, 2), (2, 3), (3, 4), (2, 1), (3, 2), (4, 3)}
    # Experts: every GPU to every other; and eight GPUs of an MoE's state fit where 405B dense did not.
    page.click('[data-widget="parallel_cuts"] [data-preset*="\\"ep\\""]')
    drawn(page, "parallel_cuts")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=parallel_cuts] [data-chart] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label').includes(' sends tokens to '))")
    assert sends(page) == {(a, b) for a in range(1, 5) for b in range(1, 5) if a != b}
    # Two GPUs: two drawn, one pair sending each other its half.
    type_into(page, "parallel_cuts", "gpus", "2")
    drawn(page, "parallel_cuts")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=parallel_cuts] [data-chart] [aria-label]')]"
                           ".filter((el) => /^GPU \\d: /.test(el.getAttribute('aria-label'))).length === 2")
    assert sends(page) == {(1, 2), (2, 1)}


def test_the_six_cuts_traffic_reads_per_step_and_per_micro_batch_and_a_micro_batch_that_breaks_the_step_is_named(browser, widget_site):
    page = open_page(browser, f"{widget_site}/parallel_cuts/")
    wait_live(page, "parallel_cuts")
    type_into(page, "parallel_cuts", "micro_batch", "2")
    drawn(page, "parallel_cuts")
    state = contract_state(pyodide_widgets.module("parallel_cuts"), "llama3-405b-tp") | {"micro_batch": 2}
    presets = estimators.load_presets()
    model = presets.model(state["model"])
    t = estimators.layout_traffic(model.config, estimators.single_cut_layout("tp", state["gpus"]), state["seq_len"], 2,
                                  state["global_batch"], estimators.gpu_preset(state["gpu"], state["scale_up"], state["scale_out"]))
    detail = page.text_content('[data-widget="parallel_cuts"] [data-output="per_micro_batch"]')
    assert t.micro_batches == state["global_batch"] // 2
    assert detail.startswith(f"{estimators.units.bytes_(t.cuts[0].micro_batch_bytes)} per micro-batch × {t.micro_batches} ")
    # A micro-batch that does not divide the batch: two fields make the step invalid together; the one
    # typed into is named and marked, and the batch the reader did not touch stays unmarked.
    type_into(page, "parallel_cuts", "micro_batch", "3")
    error = page.locator('[data-widget="parallel_cuts"] [data-error-for="micro_batch"]')
    error.filter(has_text="Must be a divisor of").wait_for()
    assert "sequences" in error.inner_text()
    assert page.get_attribute('[data-widget="parallel_cuts"] [name="micro_batch"]', "aria-invalid") == "true"
    assert page.get_attribute('[data-widget="parallel_cuts"] [name="global_batch"]', "aria-invalid") is None
    assert page.text_content('[data-widget="parallel_cuts"] [data-error-for="global_batch"]') == ""


# --- the cost of interruptions ------------------------------------------------------------

def pressed_picks(page) -> list:
    return page.eval_on_selector_all('[data-widget="interruptions"] [data-pick][aria-pressed="true"]',
                                     "els => els.map((el) => el.dataset.pick)")


def test_choosing_a_cadence_sets_the_field_and_lights_the_choice(browser, widget_site):
    widget = pyodide_widgets.module("interruptions")
    page = open_page(browser, f"{widget_site}/interruptions/")
    wait_live(page, "interruptions")
    preset = widget.presets()["unexpected"]["state"]
    assert pressed_picks(page) == [f"interval={preset['interval']}"]
    page.click('[data-widget="interruptions"] [data-pick="interval=60"]')
    assert page.input_value('[data-widget="interruptions"] [name="interval"]') == "60"
    assert pressed_picks(page) == ["interval=60"]
    wait_for_cpython_outputs(page, "interruptions")
    # Daly's optimum for this run, as the estimator computes it, sets the field to itself.
    state = pyodide_widgets.contract.read(widget.FIELDS, form_state(page, "interruptions"))
    daly = estimators.optimal_checkpoint_interval(state["pause"], estimators.mtbf_seconds(state["interruptions"], state["window"]))
    optimum = page.locator('[data-widget="interruptions"] [data-pick-output]')
    assert float(optimum.get_attribute("data-pick").split("=")[1]) == pytest.approx(daly / 60, rel=5e-3)
    optimum.click()
    assert float(page.input_value('[data-widget="interruptions"] [name="interval"]')) == pytest.approx(daly / 60, rel=5e-3)
    assert pressed_picks(page) == [optimum.get_attribute("data-pick")]
    # More interruptions move the optimum: the pick follows it, and the field, still at the old one, lights nothing.
    type_into(page, "interruptions", "interruptions", "2000")
    wait_for_cpython_outputs(page, "interruptions")
    page.wait_for_function("() => document.querySelector('[data-widget=interruptions] [data-pick-output]').dataset.pick"
                           " === 'interval=' + document.querySelector('[data-widget=interruptions] [data-output=optimal_minutes]').textContent")
    assert pressed_picks(page) == []


# --- storage across scale ----------------------------------------------------------------

# The model-size field's number in the page: the field shows it as a person types it ("1,230").
FIELD_NUMBER = "(sel) => parseFloat(document.querySelector(sel).value.replaceAll(',', ''))"


def model_size(page) -> float:
    return float(page.input_value('[data-widget="storage_scale"] [name="params"]').replace(",", ""))


def plot_box(page) -> dict:
    """The storage widget's plot's rectangle on screen, the chart scrolled into view (the box around both
    axes' grids, whose lines span the plot: paths in the build's picture, lines in Vega's live one; the
    static chart keeps no background of its own): {x, y, width, height}."""
    page.locator('[data-widget="storage_scale"] [data-chart]').scroll_into_view_if_needed()  # the plot itself on screen, not only the widget's top
    return page.eval_on_selector('[data-widget="storage_scale"] [data-chart] svg',
                                 "(svg) => { const boxes = [...svg.querySelectorAll('.role-axis-grid :is(path, line)')].map((p) => p.getBoundingClientRect());"
                                 # Vega draws grid lines half a unit inside the plot, for crisp one-unit lines.
                                 " const half = 0.5 * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;"
                                 " const x = Math.min(...boxes.map((b) => b.left)) - half, y = Math.min(...boxes.map((b) => b.top)) - half;"
                                 " return {x, y, width: Math.max(...boxes.map((b) => b.right)) - half - x, height: Math.max(...boxes.map((b) => b.bottom)) - half - y}; }")


def wait_for_size_under(page, share: float):
    """Wait until the model-size field holds the size at `share` of the plot's width: a log axis,
    to the three digits a drag sets."""
    page.wait_for_function("(sel) => document.querySelector(sel).widget.view", arg=root("storage_scale"))
    lo, hi = page.eval_on_selector(root("storage_scale"), "(el) => el.widget.view.scale('x').domain()")
    under = 10 ** (math.log10(lo) + share * (math.log10(hi) - math.log10(lo))) / pyodide_widgets.module("storage_scale").FIELDS[0].scale
    page.wait_for_function(f"([v, sel]) => Math.abs(({FIELD_NUMBER})(sel) / v - 1) < 0.03",
                           arg=[under, f'{root("storage_scale")} [name="params"]'])


# How much of each series is on top somewhere: sampled along each line (a path the width of the plot)
# a few pixels either side, or round each ring of your run, the share of samples where the topmost
# element is that mark. A mark is known by its colour (the page's SVG says a line's label once, on
# its dots).
ON_TOP = """([sel, parts, rings]) => {
  const shares = {};
  for (const mark of document.querySelectorAll(`${sel} [data-chart] svg path`)) {
    const style = getComputedStyle(mark), part = parts[style.stroke];
    const unfilled = ["none", "transparent", "rgba(0, 0, 0, 0)"].includes(style.fill);
    if (!part || !unfilled || (mark.getAttribute("aria-roledescription") === "point") !== rings) continue;
    const m = mark.getScreenCTM(), box = mark.getBBox(), probes = [];
    if (!rings) {
      const length = mark.getTotalLength();
      for (let i = 1; i < 40; i++) {
        const p = mark.getPointAtLength(length * i / 40);
        for (const dy of [-3, -2, -1, 0, 1, 2, 3]) probes.push([p.x, p.y + dy / m.d]);
      }
    } else {
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2, r = box.width / 2 - 1;
      for (let a = 0; a < 24; a++) probes.push([cx + r * Math.cos(a * Math.PI / 12), cy + r * Math.sin(a * Math.PI / 12)]);
    }
    const hits = probes.filter(([x, y]) => document.elementFromPoint(m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f) === mark);
    shares[part] = Math.max(shares[part] ?? 0, hits.length / probes.length);
  }
  return shares;
}"""


def rgb(colour: str) -> str:
    """"#0072b2" as getComputedStyle writes it: "rgb(0, 114, 178)"."""
    return "rgb({}, {}, {})".format(*(int(colour[i:i + 2], 16) for i in (1, 3, 5)))


def test_every_storage_series_and_your_run_show_at_the_defaults(browser, widget_site):
    page = open_page(browser, f"{widget_site}/storage_scale/", javascript=False)
    page.locator('[data-widget="storage_scale"] [data-chart]').scroll_into_view_if_needed()
    parts = dict(zip(map(rgb, PART_COLOURS), pyodide_widgets.module("storage_scale").PARTS.values()))
    # At the defaults (20 tokens of 4 bytes a parameter, five checkpoints of 16 bytes) the dataset
    # and the checkpoints kept are one line: each series still has pixels of its own.
    lines = page.evaluate(ON_TOP, [root("storage_scale"), parts, False])
    assert set(lines) == set(parts.values())
    assert all(share > 0.1 for share in lines.values()), lines
    # Your run: a ring on each part's line at your size, each seen, none hidden by another.
    rings = page.evaluate(ON_TOP, [root("storage_scale"), parts, True])
    assert set(rings) == set(parts.values())
    assert all(share > 0.2 for share in rings.values()), rings


def test_a_finger_and_a_mouse_drag_the_storage_chart_and_the_arrow_keys_step_it_once_it_has_focus(browser, widget_site):
    """In turn on one live page: a finger, on the build's picture; a mouse, on the live one; the keyboard."""
    page = open_page(browser, f"{widget_site}/storage_scale/")
    wait_live(page, "storage_scale")
    look_at(page, "storage_scale")
    box = plot_box(page)
    chart = page.locator('[data-widget="storage_scale"] [data-chart]')
    # A finger down and away at once, before the live chart exists: the drag waits for it and loses no move.
    for kind, share in (("pointerdown", 0.2), ("pointermove", 0.9), ("pointerup", 0.9)):
        chart.dispatch_event(kind, {"pointerType": "touch", "isPrimary": True, "pointerId": 7, "button": 0,
                                    "clientX": box["x"] + box["width"] * share, "clientY": box["y"] + box["height"] / 2})
    wait_for_size_under(page, 0.9)
    wait_for_cpython_outputs(page, "storage_scale")

    # A mouse, on the live chart: the field follows it across the plot.
    box = plot_box(page)
    before = model_size(page)
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.3, y)
    page.mouse.down()
    for share in (0.4, 0.5, 0.6, 0.7):
        page.mouse.move(box["x"] + box["width"] * share, y, steps=4)
        wait_for_size_under(page, share)
    page.mouse.up()
    assert model_size(page) != before
    wait_for_cpython_outputs(page, "storage_scale")

    # The arrow keys, the chart focused: a tenth of a decade each way.
    before = model_size(page)
    page.focus('[data-widget="storage_scale"] [data-chart]')
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"(v) => ({FIELD_NUMBER})('[data-widget=storage_scale] [name=params]') !== v", arg=before)
    up = model_size(page)
    assert math.log10(up / before) == pytest.approx(0.1, abs=0.002)  # a tenth of a decade, to three digits
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"(v) => ({FIELD_NUMBER})('[data-widget=storage_scale] [name=params]') !== v", arg=up)
    assert model_size(page) == pytest.approx(before, rel=5e-3)
    wait_for_cpython_outputs(page, "storage_scale")


# --- Play under reduced motion --------------------------------------------------------------

def play_button(browser, url: str, motion: str):
    """The six cuts' Play button, live, in a browser whose reader asks for `motion`."""
    page = browser.new_context(reduced_motion=motion).new_page()
    page.goto(f"{url}/parallel_cuts/")
    wait_live(page, "parallel_cuts")
    return page, page.locator('[data-widget="parallel_cuts"] [data-play="cut"]')


def test_under_reduced_motion_play_steps_once_per_press_past_a_cut_the_model_cannot_take_and_a_refused_cut_leaves_one_state(
        browser, widget_site):
    page, button = play_button(browser, widget_site, "reduce")
    # A plain button that says what it does, not a toggle that starts a show.
    assert button.text_content() == "Next" and button.get_attribute("aria-pressed") is None
    cut = '[data-widget="parallel_cuts"] [name="cut"]'
    options = page.eval_on_selector(cut, "s => [...s.options].map((o) => o.value)")
    start = options.index(page.input_value(cut))
    for presses in (1, 2):
        button.click()
        assert page.input_value(cut) == options[(start + presses) % len(options)]
    page.wait_for_timeout(PLAY_STEP_S * 1000 * 1.5)  # nothing moves on by itself
    assert page.input_value(cut) == options[(start + 2) % len(options)]

    # Llama 3 405B, dense, no experts: Next from context parallelism steps past expert parallelism, which
    # the model refuses, to the cut after it.
    choose(page, "parallel_cuts", "cut", "cp")
    drawn(page, "parallel_cuts")
    options = list(estimators.parallelism.CUTS)
    assert options[options.index("cp") + 1] == "ep"
    button.click()
    page.wait_for_function("() => document.querySelector('[data-widget=parallel_cuts] [name=cut]').value === 'zero'")
    drawn(page, "parallel_cuts")
    picked = lambda: page.eval_on_selector_all('[data-widget="parallel_cuts"] figure.is-picked', "els => els.map((el) => el.dataset.when)")
    assert picked() == ["cut=zero"]
    assert page.text_content('[data-widget="parallel_cuts"] [data-output="collective"]') == estimators.parallelism.COLLECTIVES["zero"]
    # Picked by hand, the refused cut is named at its field; the picture stays with the numbers it stands beside.
    choose(page, "parallel_cuts", "cut", "ep")
    page.wait_for_selector('[data-widget="parallel_cuts"].widget--stale')
    assert picked() == ["cut=zero"]
    assert page.text_content('[data-widget="parallel_cuts"] [data-output="collective"]') == estimators.parallelism.COLLECTIVES["zero"]
    assert " sends weights and gradients to " in " ".join(mark_labels(page, "parallel_cuts", "point"))


# --- fitting the column ---------------------------------------------------------------------

def assert_pictures_fit(page, name: str):
    assert_fits(page, name)
    # The holdings of every cut, drawn once: no wider than the column either.
    for diagram in page.query_selector_all(f"{root(name)} .widget__diagram:not([data-chart]) svg"):
        if diagram.bounding_box():
            column = diagram.evaluate("(svg) => svg.parentElement.clientWidth")
            assert diagram.bounding_box()["width"] <= column + 0.5


@pytest.mark.parametrize("name", WIDGETS)
def test_the_static_picture_fits_its_column_at_every_width(browser, widget_site, name):
    page = open_page(browser, f"{widget_site}/{name}/", javascript=False)
    for _ in at_each_width(page):
        assert_pictures_fit(page, name)


@pytest.mark.parametrize("name", WIDGETS)
def test_the_live_picture_fits_its_column_at_every_width(browser, widget_site, name):
    page = open_page(browser, f"{widget_site}/{name}/")
    wait_live(page, name)
    look_at(page, name)
    # Move it once, so the live drawing is on screen, not the build's.
    if name == "parallel_cuts":
        choose(page, name, "cut", "pp")
    else:
        page.click(f"{root(name)} [data-preset]:nth-child(2)")
    drawn(page, name)
    for _ in at_each_width(page):
        assert_pictures_fit(page, name)
