"""The pictures a reader moves by hand, proved from the DOM: the six cuts' collective between four
GPUs and each GPU's state against its memory, the interruptions' cadence picks, the storage chart's
drag and arrow keys; and Play under prefers-reduced-motion.

Marks are read by their text alternatives (the aria-label Vega writes from each row's label, which
the widget's update wrote from the estimators' outputs), as in test_pictures.py.
"""

import math

import pytest

import estimators
import pyodide_widgets
from harness.widgets import (WIDTHS, assert_fits, choose, form_state, look_at, mark_labels, one_page_per_widget, open_page, root,
                             type_into, wait_for_cpython_outputs, wait_live)

WIDGETS = ("parallel_cuts", "interruptions", "storage_scale")
PLAY_STEP_S = 2.0  # runtime.js's PLAY_STEP_MS: an unpressed Play would have stepped by then


@pytest.fixture(scope="module")
def moves_site(tmp_path_factory):
    with one_page_per_widget(tmp_path_factory.mktemp("moves"), WIDGETS) as url:
        yield url


def drawn(page, widget: str):
    """Wait for the live chart to hold the answer to the form's current state."""
    wait_for_cpython_outputs(page, widget)
    page.wait_for_function("(sel) => document.querySelector(sel).widget.view", arg=root(widget))


# --- six ways to cut a job ------------------------------------------------------------

def sends(page) -> set:
    """{(from GPU, to GPU)} of the arrowheads: "GPU 1 sends gradients to GPU 2"."""
    found = set()
    for label in mark_labels(page, "parallel_cuts", "point"):
        words = label.split()
        found.add((int(words[1]), int(words[-1])))
    return found


def state_bars(page) -> list:
    return [label for label in mark_labels(page, "parallel_cuts", "rect mark") if label.startswith("GPU ")]


def test_the_six_cuts_ring_has_four_gpus_and_arrows_and_says_the_state_does_not_fit(browser, moves_site):
    page = open_page(browser, f"{moves_site}/parallel_cuts/", javascript=False)
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
    page.close()


def contract_state(widget, preset: str) -> dict:
    return pyodide_widgets.contract.read(widget.FIELDS, widget.presets()[preset]["state"])


def test_each_cut_draws_its_collective_live(browser, moves_site):
    page = open_page(browser, f"{moves_site}/parallel_cuts/")
    wait_live(page, "parallel_cuts")
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
    page.close()


def test_the_six_cuts_traffic_reads_per_step_and_per_micro_batch(browser, moves_site):
    page = open_page(browser, f"{moves_site}/parallel_cuts/")
    wait_live(page, "parallel_cuts")
    type_into(page, "parallel_cuts", "micro_batch", "2")
    drawn(page, "parallel_cuts")
    state = contract_state(pyodide_widgets.module("parallel_cuts"), "llama3-405b-tp") | {"micro_batch": 2}
    presets = estimators.load_presets()
    model, gpu = presets.model(state["model"]), presets.gpu(state["gpu"])
    t = estimators.layout_traffic(model.config, estimators.single_cut_layout("tp", state["gpus"]), state["seq_len"], 2,
                                  state["global_batch"], gpu.peak_flops["bf16"], state["mfu"], gpu.nvlink_domain_gpus,
                                  presets.interconnect(state["scale_up"]).bandwidth_bytes_per_s,
                                  presets.interconnect(state["scale_out"]).bandwidth_bytes_per_s)
    detail = page.text_content('[data-widget="parallel_cuts"] [data-output="per_micro_batch"]')
    assert t.micro_batches == state["global_batch"] // 2
    assert detail.startswith(f"{estimators.units.bytes_(t.cuts[0].micro_batch_bytes)} per micro-batch × {t.micro_batches} ")
    page.close()


def test_a_micro_batch_that_breaks_the_step_is_marked_on_the_field_typed_into(browser, moves_site):
    page = open_page(browser, f"{moves_site}/parallel_cuts/?parallel_cuts.micro_batch=3")
    wait_live(page, "parallel_cuts")
    error = page.locator('[data-widget="parallel_cuts"] [data-error-for="micro_batch"]')
    error.wait_for()
    page.wait_for_function("(el) => el.textContent.length > 0", arg=error.element_handle())
    assert page.get_attribute('[data-widget="parallel_cuts"] [name="micro_batch"]', "aria-invalid") == "true"
    assert page.get_attribute('[data-widget="parallel_cuts"] [name="global_batch"]', "aria-invalid") is None
    assert page.text_content('[data-widget="parallel_cuts"] [data-error-for="global_batch"]') == ""
    page.close()


# --- the cost of interruptions ------------------------------------------------------------

def pressed_picks(page) -> list:
    return page.eval_on_selector_all('[data-widget="interruptions"] [data-pick][aria-pressed="true"]',
                                     "els => els.map((el) => el.dataset.pick)")


def test_choosing_a_cadence_sets_the_field_and_lights_the_choice(browser, moves_site):
    widget = pyodide_widgets.module("interruptions")
    page = open_page(browser, f"{moves_site}/interruptions/")
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
    page.close()


# --- storage across scale ----------------------------------------------------------------

def model_size(page) -> float:
    return float(page.input_value('[data-widget="storage_scale"] [name="params"]').replace(",", ""))


def storage_chart(browser, url: str):
    """The storage widget live and in view, and its plot's rectangle on screen (the box around both
    axes' grids, whose lines span the plot; the static chart keeps no background of its own): (page, {x, y, width, height})."""
    page = open_page(browser, f"{url}/storage_scale/")
    wait_live(page, "storage_scale")
    look_at(page, "storage_scale")
    page.locator('[data-widget="storage_scale"] [data-chart]').scroll_into_view_if_needed()  # the plot itself on screen, not only the widget's top
    box = page.eval_on_selector('[data-widget="storage_scale"] [data-chart] svg',
                                "(svg) => { const boxes = [...svg.querySelectorAll('.role-axis-grid path')].map((p) => p.getBoundingClientRect());"
                                # Vega draws grid lines half a unit inside the plot, for crisp one-unit lines.
                                " const half = 0.5 * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;"
                                " const x = Math.min(...boxes.map((b) => b.left)) - half, y = Math.min(...boxes.map((b) => b.top)) - half;"
                                " return {x, y, width: Math.max(...boxes.map((b) => b.right)) - half - x, height: Math.max(...boxes.map((b) => b.bottom)) - half - y}; }")
    return page, box


def wait_for_size_under(page, share: float):
    """Wait until the model-size field holds the size at `share` of the plot's width: a log axis,
    to the three digits a drag sets."""
    page.wait_for_function("(sel) => document.querySelector(sel).widget.view", arg=root("storage_scale"))
    lo, hi = page.eval_on_selector(root("storage_scale"), "(el) => el.widget.view.scale('x').domain()")
    under = 10 ** (math.log10(lo) + share * (math.log10(hi) - math.log10(lo))) / pyodide_widgets.module("storage_scale").FIELDS[0].scale
    page.wait_for_function("([v, sel]) => Math.abs(parseFloat(document.querySelector(sel).value) / v - 1) < 0.03",
                           arg=[under, f'{root("storage_scale")} [name="params"]'])


def test_dragging_the_storage_chart_changes_the_field_and_the_outputs(browser, moves_site):
    page, box = storage_chart(browser, moves_site)
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
    page.close()


def test_a_finger_drags_the_storage_chart_too(browser, moves_site):
    page, box = storage_chart(browser, moves_site)
    chart = page.locator('[data-widget="storage_scale"] [data-chart]')
    # Down and away at once, before the live chart exists: the drag waits for it and loses no move.
    for kind, share in (("pointerdown", 0.2), ("pointermove", 0.9), ("pointerup", 0.9)):
        chart.dispatch_event(kind, {"pointerType": "touch", "isPrimary": True, "pointerId": 7, "button": 0,
                                    "clientX": box["x"] + box["width"] * share, "clientY": box["y"] + box["height"] / 2})
    wait_for_size_under(page, 0.9)
    wait_for_cpython_outputs(page, "storage_scale")
    page.close()


def test_the_arrow_keys_step_the_model_size_when_the_chart_has_focus(browser, moves_site):
    page = open_page(browser, f"{moves_site}/storage_scale/")
    wait_live(page, "storage_scale")
    before = model_size(page)
    page.focus('[data-widget="storage_scale"] [data-chart]')
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(v) => parseFloat(document.querySelector('[data-widget=storage_scale] [name=params]').value) !== v",
                           arg=before)
    up = model_size(page)
    assert math.log10(up / before) == pytest.approx(0.1, abs=0.002)  # a tenth of a decade, to three digits
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("(v) => parseFloat(document.querySelector('[data-widget=storage_scale] [name=params]').value) !== v",
                           arg=up)
    assert model_size(page) == pytest.approx(before, rel=5e-3)
    wait_for_cpython_outputs(page, "storage_scale")
    page.close()


# --- Play under reduced motion --------------------------------------------------------------

def play_button(browser, url: str, motion: str):
    """The six cuts' Play button, live, in a browser whose reader asks for `motion`."""
    page = browser.new_context(reduced_motion=motion).new_page()
    page.goto(f"{url}/parallel_cuts/")
    wait_live(page, "parallel_cuts")
    return page, page.locator('[data-widget="parallel_cuts"] [data-play="cut"]')


def test_under_reduced_motion_play_steps_once_per_press(browser, moves_site):
    page, button = play_button(browser, moves_site, "reduce")
    # A plain button that says what it does, not a toggle that starts a show.
    assert button.text_content() == "Next" and button.get_attribute("aria-pressed") is None
    options = page.eval_on_selector('[data-widget="parallel_cuts"] [name="cut"]', "s => [...s.options].map((o) => o.value)")
    start = options.index(page.input_value('[data-widget="parallel_cuts"] [name="cut"]'))
    for presses in (1, 2):
        button.click()
        assert page.input_value('[data-widget="parallel_cuts"] [name="cut"]') == options[(start + presses) % len(options)]
        page.wait_for_timeout(PLAY_STEP_S * 1000 * 1.5)  # nothing moves on by itself
        assert page.input_value('[data-widget="parallel_cuts"] [name="cut"]') == options[(start + presses) % len(options)]
    page.close()


def test_without_reduced_motion_play_runs_until_pressed_again(browser, moves_site):
    page, button = play_button(browser, moves_site, "no-preference")
    assert button.text_content() == "Play" and button.get_attribute("aria-pressed") == "false"
    first = page.input_value('[data-widget="parallel_cuts"] [name="cut"]')
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    page.wait_for_function("(v) => document.querySelector('[data-widget=parallel_cuts] [name=cut]').value !== v", arg=first)
    button.click()
    assert button.get_attribute("aria-pressed") == "false"
    page.close()


# --- fitting the column ---------------------------------------------------------------------

@pytest.mark.parametrize("javascript", [False, True], ids=["static", "live"])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", WIDGETS)
def test_the_picture_fits_its_column(browser, moves_site, name, width, javascript):
    page = open_page(browser, f"{moves_site}/{name}/", width, javascript)
    if javascript:
        wait_live(page, name)
        look_at(page, name)
        # Move it once, so the live drawing is on screen, not the build's.
        if name == "parallel_cuts":
            choose(page, name, "cut", "pp")
        else:
            page.click(f"{root(name)} [data-preset]:nth-child(2)")
        drawn(page, name)
    assert_fits(page, name)
    # The holdings of every cut, drawn once: no wider than the column either.
    for diagram in page.query_selector_all(f"{root(name)} .widget__diagram:not([data-chart]) svg"):
        if diagram.bounding_box():
            column = diagram.evaluate("(svg) => svg.parentElement.clientWidth")
            assert diagram.bounding_box()["width"] <= column + 0.5
    page.close()
