"""The five stages' and the training stack's pictures, proved from the DOM: what each draws at build
time (JavaScript off), what a pick changes live, and that each fits its column at 390 and 1280 px in
both palettes. Also a field's unit after a value of one, the ten steps' static lists shown once, and
every option of a select readable in full.

The stages' marks are found by their text alternatives (each mark's aria-label, which the widget's
update wrote from estimators.stage_span), so the test reads the chart as a screen reader does.
"""

import pytest

import estimators
from estimators import units
import pyodide_widgets
from harness.widgets import at_each_width, look_at, mark_labels, open_page, root, type_into, wait_for_cpython_outputs, wait_live

# The widths both pictures must fit: a desktop's text column and a phone's.
WIDTHS = (1280, 390)
WIDGETS = ("stages", "training_stack", "ten_steps", "training_time", "finetune_fit", "checkpoint_modes")
PRESETS = estimators.load_presets()


def spans() -> dict:
    return {key: estimators.stage_span(key) for key in PRESETS.stages}


# --- the five stages --------------------------------------------------------------

def test_the_stages_chart_draws_a_range_bar_per_stage_and_a_point_per_published_run(browser, widget_site):
    page = open_page(browser, f"{widget_site}/stages/", javascript=False)
    look_at(page, "stages")
    bars, points = mark_labels(page, "stages", "bar"), mark_labels(page, "stages", "point")
    # The further chart, bytes: what each stage reads and hands on, read apart from the runs' panels.
    moved = [label for label in bars + points if " reads " in label or " hands on " in label]
    bars = [label for label in bars if label not in moved]
    points = [label for label in points if label not in moved]
    runs = [run for span in spans().values() for run in span.runs]
    # Two panels, GPUs then time: one bar per stage in each, one point per published run in each.
    assert len(bars) == 2 * len(PRESETS.stages)
    # Every stage's artifact in bytes, and the dataset of each stage whose runs name their tokens.
    outputs = pyodide_widgets.module("stages").update(pyodide_widgets.module("stages").presets()["pretraining"]["state"])["outputs"]
    for key, stage in PRESETS.stages.items():
        assert f"{stage.name} hands on {outputs[f'{key}_bytes']}" in moved
        span = spans()[key]
        if span.dataset_low is not None:
            assert any(label.startswith(f"{stage.name} reads {units.bytes_(span.dataset_low)}") for label in moved)
    assert all(label.startswith(f"{s.name}: ") for label, s in zip(bars, [*PRESETS.stages.values()] * 2))
    assert sorted(label.rsplit(":", 1)[0] for label in points) == sorted(2 * [run.name for run in runs])
    # A stage of several runs spans its smallest to its largest: the SFT runs (QLoRA paper: one GPU;
    # s1, appendix D: 16 H100s) and pretraining's (DeepSeek-V3 report: 2,048; Llama 3 paper: 16,384).
    assert f"{PRESETS.stage('sft').name}: 1 to 16 GPUs" in bars
    assert f"{PRESETS.stage('pretraining').name}: 2,048 to 16,384 GPUs" in bars
    # A run is a point on its stage's bar: the bar ends where its outermost runs sit.
    geometry = page.eval_on_selector_all(
        '[data-widget="stages"] [data-chart] [aria-roledescription="bar"], [data-widget="stages"] [data-chart] [aria-roledescription="point"]',
        "els => els.map((el) => { const b = el.getBoundingClientRect(); return [el.getAttribute('aria-roledescription'),"
        " el.getAttribute('aria-label'), b.left, b.right, (b.top + b.bottom) / 2]; })")
    sft_bar = next(g for g in geometry if g[0] == "bar" and g[1].startswith(PRESETS.stage("sft").name + ": 1 to"))
    sft_points = [g for g in geometry if g[0] == "point" and abs(g[4] - sft_bar[4]) < 2 and g[2] < sft_bar[3] + 20]
    centres = sorted((g[2] + g[3]) / 2 for g in sft_points)
    assert len(centres) == len(spans()["sft"].runs)
    assert centres[0] == pytest.approx(sft_bar[2], abs=8) and centres[-1] == pytest.approx(sft_bar[3], abs=8)


def test_every_stage_reads_its_range_data_and_artifact_bytes_without_javascript(browser, widget_site):
    page = open_page(browser, f"{widget_site}/stages/", javascript=False)
    expected = pyodide_widgets.module("stages").update({"stage": "pretraining"})["outputs"]
    for key in PRESETS.stages:
        for part in ("range", "data", "bytes"):
            assert page.inner_text(f'[data-widget="stages"] [data-output="{key}_{part}"]') == expected[f"{key}_{part}"]
    # Pretraining's largest hand-off is Llama 3 405B's BF16 weights, 2 bytes for each parameter.
    weights_bytes = 2 * PRESETS.model("llama3-405b").params
    assert spans()["pretraining"].artifact_high == weights_bytes
    assert f" to {units.bytes_(weights_bytes)} " in page.inner_text('[data-widget="stages"] [data-output="pretraining_bytes"]')


def test_picking_a_stage_shows_its_range_and_marks_its_bar(browser, widget_site):
    page = open_page(browser, f"{widget_site}/stages/")
    look_at(page, "stages")
    wait_live(page, "stages")
    page.click(f'[data-widget="stages"] [data-preset]:has-text("{PRESETS.stage("sft").name}")')
    wait_for_cpython_outputs(page, "stages")
    assert page.is_visible('[data-widget="stages"] [data-output="sft_range"]')
    assert not page.is_visible('[data-widget="stages"] [data-output="pretraining_range"]')
    page.wait_for_function("() => document.querySelector('[data-widget=stages]').widget.view")
    # The picked stage's bar in the strong colour, the others in the quiet one.
    fills = dict(page.eval_on_selector_all(
        '[data-widget="stages"] [data-chart] [aria-roledescription="bar"]',
        "els => els.map((el) => [el.getAttribute('aria-label').split(': ').slice(0, -1).join(': '), el.getAttribute('fill')])"))
    from figures.stages import OTHER_COLOUR, PICKED_COLOUR
    assert fills[PRESETS.stage("sft").name] == PICKED_COLOUR
    assert fills[PRESETS.stage("pretraining").name] == OTHER_COLOUR


# --- the training stack -------------------------------------------------------------

def layers(page) -> list:
    """[(layer's name, [its blocks' names])], top first, as the page draws them."""
    return page.eval_on_selector_all(
        '[data-widget="training_stack"] [data-layer]',
        "els => els.map((el) => [el.querySelector('.widget__layer-name strong').textContent,"
        " [...el.querySelectorAll('[data-pick]')].map((b) => b.textContent.trim())])")


def test_the_stack_has_its_three_layers_and_every_block_text_without_javascript(browser, widget_site):
    widget = pyodide_widgets.module("training_stack")
    page = open_page(browser, f"{widget_site}/training_stack/", javascript=False)
    drawn = layers(page)
    assert [name for name, _ in drawn] == ["Adaptation and alignment", "Distributed training", "Hardware and operations"]
    adapt = dict(drawn)["Adaptation and alignment"]
    assert {"Adapters", "Preference tuning", "RL rollouts"} <= set(adapt)
    # Every block's own text reads without JavaScript, its examples dated as the ten steps' are.
    text = page.inner_text('[data-widget="training_stack"]')
    for option in widget.OPTIONS.values():
        for heading, detail in option["details"]:
            assert detail in text
    assert f"as of {pyodide_widgets.module('ten_steps').AS_OF}" in text


def shown_blocks(page) -> list:
    return page.eval_on_selector_all('[data-widget="training_stack"] .widget__option',
                                     "els => els.filter((el) => el.checkVisibility()).map((el) => el.dataset.when)")


def test_a_block_click_or_key_shows_its_own_text(browser, widget_site):
    page = open_page(browser, f"{widget_site}/training_stack/")
    wait_live(page, "training_stack")
    assert shown_blocks(page) == ["block=adapters"]
    page.click('[data-widget="training_stack"] [data-pick="block=rollouts"]')
    assert shown_blocks(page) == ["block=rollouts"]
    assert page.get_attribute('[data-pick="block=rollouts"]', "aria-pressed") == "true"
    assert page.get_attribute('[data-pick="block=adapters"]', "aria-pressed") == "false"
    wait_for_cpython_outputs(page, "training_stack")
    # The keyboard: Tab to a block, Enter picks it.
    page.focus('[data-widget="training_stack"] [data-pick="block=storage"]')
    page.keyboard.press("Enter")
    assert shown_blocks(page) == ["block=storage"]


# --- both pictures fit their column ----------------------------------------------------

@pytest.mark.parametrize("javascript", [False, True], ids=["static", "live"])
@pytest.mark.parametrize("name", ("stages", "training_stack"))
def test_the_picture_fits_its_column_at_every_width_in_either_palette(browser, widget_site, name, javascript):
    page = open_page(browser, f"{widget_site}/{name}/", javascript=javascript)
    look_at(page, name)
    if javascript:
        wait_live(page, name)
    for _ in at_each_width(page, WIDTHS):
        for scheme in ("light", "dark"):
            # The palette the reader's system asks for: without JavaScript the style sheet follows it; live, the
            # theme reads it once at load, so the test switches the palette as the theme's toggle does.
            page.emulate_media(color_scheme=scheme)
            if javascript:
                page.evaluate("scheme => document.body.setAttribute('data-md-color-scheme', scheme)",
                              "slate" if scheme == "dark" else "default")
            assert_fits_in_its_column(page, name)


def assert_fits_in_its_column(page, name: str):
    sizes = page.eval_on_selector(
        root(name),
        """(el) => { const picture = el.querySelector('[data-chart] svg') || el.querySelector('.widget__stack');
             const texts = [...picture.querySelectorAll('text')].filter((t) => t.textContent.trim());
             const scale = picture.viewBox ? picture.getBoundingClientRect().width / picture.viewBox.baseVal.width : 1;
             return {widget: el.clientWidth, widget_scroll: el.scrollWidth, picture: picture.getBoundingClientRect().width,
                     right: Math.max(...[...picture.querySelectorAll('*')].map((c) => c.getBoundingClientRect().right)),
                     edge: el.getBoundingClientRect().right, page: document.documentElement.scrollWidth,
                     viewport: window.innerWidth,
                     smallest: Math.min(99, ...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale))}; }""")
    assert sizes["picture"] <= sizes["widget"] + 0.5, sizes
    assert sizes["right"] <= sizes["edge"] + 0.5, sizes  # nothing drawn past the widget's edge
    assert sizes["widget_scroll"] <= sizes["widget"], sizes
    assert sizes["page"] <= sizes["viewport"], sizes
    assert sizes["smallest"] >= 10 - 0.05, sizes


# --- polish: units after one, the ten steps' lists once ---------------------------------------

def test_a_unit_reads_singular_after_one(browser, widget_site):
    page = open_page(browser, f"{widget_site}/training_time/")
    wait_live(page, "training_time")
    unit = '[data-widget="training_time"] [name="gpus"] ~ .widget__unit'
    assert page.inner_text(unit) == "GPUs"
    type_into(page, "training_time", "gpus", "1")
    page.wait_for_function("(sel) => document.querySelector(sel).textContent === 'GPU'", arg=unit)
    type_into(page, "training_time", "gpus", "2")
    page.wait_for_function("(sel) => document.querySelector(sel).textContent === 'GPUs'", arg=unit)


def test_the_ten_steps_static_view_lists_its_own_rung_and_step_once(browser, widget_site):
    widget = pyodide_widgets.module("ten_steps")
    state = next(iter(widget.presets().values()))["state"]
    page = open_page(browser, f"{widget_site}/ten_steps/", javascript=False)
    shown = page.eval_on_selector_all('[data-widget="ten_steps"] .widget__option',
                                      "els => els.filter((el) => el.checkVisibility()).map((el) => el.dataset.when)")
    assert shown == [f"scale={state['scale']}", f"step={state['step']}"]
    # Live, every rung's and step's list is there to pick.
    page = open_page(browser, f"{widget_site}/ten_steps/")
    wait_live(page, "ten_steps")
    other = next(key for key in widget.STEPS if key != state["step"])
    page.click(f'[data-widget="ten_steps"] [data-pick="step={other}"]')
    assert page.is_visible(f'[data-widget="ten_steps"] .widget__option[data-when="step={other}"]')


# The room a <select> keeps for its arrow and padding, beyond its option's text.
SELECT_CHROME_PX = 28


@pytest.mark.parametrize("name", ("finetune_fit", "checkpoint_modes", "training_time"))
def test_every_option_of_a_select_reads_in_full_at_1280_px(browser, widget_site, name):
    page = open_page(browser, f"{widget_site}/{name}/", 1280, javascript=False)
    cut = page.eval_on_selector_all(
        f'{root(name)} select',
        """(selects, chrome) => { const context = document.createElement('canvas').getContext('2d');
             return selects.flatMap((s) => { context.font = getComputedStyle(s).font;
               return [...s.options].filter((o) => context.measureText(o.text).width + chrome > s.getBoundingClientRect().width)
                 .map((o) => [s.name, o.text, Math.round(s.getBoundingClientRect().width)]); }); }""",
        SELECT_CHROME_PX)
    assert cut == [], cut
