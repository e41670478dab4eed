"""Each widget's picture, proved from the DOM: what it draws at build time (JavaScript off), what the
live redraw changes when the reader moves it, and that it fits its column at 1280 and 390 px.

The marks are found by their text alternatives (each bar's aria-label, which the widget's update
wrote from the estimator's outputs), so the tests read the picture as a screen reader does.
"""


import re

import pytest

import estimators
import pyodide_widgets
from harness.widgets import (CHARTS, assert_fits, at_each_width, choose, mark_labels, open_page, root, unfold,
                             wait_for_cpython_outputs, wait_live)

PICTURES = ("memory_bill", "checkpoint_modes", "finetune_fit", "moe_routing", "planner")


def bar_labels(page, widget: str, leave_out: str = " without ZeRO: ") -> list:
    """The text alternative of every bar of the widget's chart, in drawing order, but those that
    contain `leave_out` (the memory bill's outlines of each column without ZeRO)."""
    return [label for label in mark_labels(page, widget, "bar") if leave_out not in label]


def bar_height(page, widget: str, label_start: str) -> float:
    """The drawn height of the one bar whose text alternative starts with `label_start`."""
    return page.eval_on_selector_all(
        f'{root(widget)} [data-chart] [aria-roledescription="bar"]',
        "(els, start) => { const found = els.filter((el) => el.getAttribute('aria-label').startsWith(start));"
        " if (found.length !== 1) throw new Error(`${found.length} bars start ${start}`);"
        " return found[0].getBBox().height; }",
        label_start,
    )


# --- the memory bill ------------------------------------------------------------

def columns_of(labels: list) -> list:
    """The columns' names, in order, from bar labels "GPU 3: Momentum, …"."""
    names = []
    for label in labels:
        name = label.split(":")[0]
        if name not in names:
            names.append(name)
    return names


def test_memory_bill_draws_one_column_per_gpu_and_serving_beside_them_without_javascript(browser, widget_site):
    page = open_page(browser, f"{widget_site}/memory_bill/", javascript=False)
    labels = bar_labels(page, "memory_bill")
    # The default preset: one 8-GPU server.
    assert columns_of(labels[:-1]) == [f"GPU {i}" for i in range(1, 9)]
    assert labels[-1].startswith("Serving the same model: each GPU holds its weights alone, ")
    assert sum(label.startswith("GPU 1: ") for label in labels) == 6  # every part of the bill, stacked
    assert "GPU 1: Momentum, a whole copy, " in " | ".join(labels)  # ZeRO-0: nothing sliced
    outlines = [label for label in bar_labels(page, "memory_bill", leave_out="Serving") if "without ZeRO" in label]
    assert [label.split(" without")[0] for label in outlines] == [f"GPU {i}" for i in range(1, 9)]


def test_past_eight_gpus_one_labelled_column_stands_for_the_rest(browser, widget_site):
    page = open_page(browser, f"{widget_site}/memory_bill/?memory_bill.gpus=1024&memory_bill.stage=3")
    wait_live(page, "memory_bill")
    wait_for_cpython_outputs(page, "memory_bill")
    page.wait_for_function("() => document.querySelector('[data-widget=memory_bill]').widget.view")
    labels = bar_labels(page, "memory_bill")
    assert columns_of(labels[:-1]) == [f"GPU {i}" for i in range(1, 9)] + ["× 1,016 more"]
    assert any(label.startswith("× 1,016 more: Momentum, one slice of 1,024 each, ") for label in labels)


def pressed(page, widget: str) -> list:
    return page.eval_on_selector_all(f'{root(widget)} [data-preset][aria-pressed="true"]',
                                     "els => els.map((el) => el.textContent.trim())")


def test_the_highlighted_preset_follows_a_typed_return_and_the_zero_stepper_slices_the_state_across_the_columns(
        browser, widget_site):
    page = open_page(browser, f"{widget_site}/memory_bill/")
    wait_live(page, "memory_bill")
    whole = bar_height(page, "memory_bill", "GPU 5: Momentum")
    weights = bar_height(page, "memory_bill", "GPU 5: Weights")
    first = pressed(page, "memory_bill")
    assert len(first) == 1
    choose(page, "memory_bill", "stage", "2")
    assert pressed(page, "memory_bill") == []
    choose(page, "memory_bill", "stage", "0")  # back to the preset's own state: highlighted again
    assert pressed(page, "memory_bill") == first
    # Drawn live at stage 0 again before Play steps it.
    wait_for_cpython_outputs(page, "memory_bill")
    page.wait_for_function("() => document.querySelector('[data-widget=memory_bill]').widget.view")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=memory_bill] [data-chart] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label').startsWith('GPU 5: Momentum, a whole copy, '))")
    # Play steps the stage 0 → 1: the optimizer state is sliced eight ways in every column.
    page.click('[data-widget="memory_bill"] [data-play="stage"]')
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=memory_bill] [data-chart] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label').startsWith('GPU 5: Momentum, slice 5 of 8, '))")
    page.click('[data-widget="memory_bill"] [data-play="stage"]')  # stop: the test moves on by hand
    for gpu in range(1, 9):
        assert bar_height(page, "memory_bill", f"GPU {gpu}: Momentum") == pytest.approx(whole / 8, rel=0.02)
    assert bar_height(page, "memory_bill", "GPU 5: Weights") == pytest.approx(weights, rel=0.02)
    # Stage 3 slices the weights too; the serving column keeps them whole.
    choose(page, "memory_bill", "stage", "3")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=memory_bill] [data-chart] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label').startsWith('GPU 5: Weights (BF16), slice 5 of 8, '))")
    assert bar_height(page, "memory_bill", "GPU 5: Weights") == pytest.approx(weights / 8, rel=0.02)
    assert bar_height(page, "memory_bill", "Serving") == pytest.approx(weights, rel=0.02)



# --- sync against async checkpoints ------------------------------------------------

def lanes_of(labels: list) -> list:
    """The lanes' names, in order, from bar labels "sync: GPUs, save 2: GPUs paused, 2.84 s"."""
    return list(dict.fromkeys(label.split(",")[0] for label in labels))


def tallies(page) -> list:
    return page.eval_on_selector_all('[data-widget="checkpoint_modes"] [data-chart] text',
                                     "els => els.map((el) => el.textContent).filter((t) => t.includes(': paused '))")


def test_both_checkpoint_modes_share_one_clock_without_javascript(browser, widget_site):
    page = open_page(browser, f"{widget_site}/checkpoint_modes/", javascript=False)
    labels = bar_labels(page, "checkpoint_modes")
    assert lanes_of(labels) == ["sync: GPUs", "sync: storage", "async: GPUs", "async: storage"]
    # The clock at its last stop: four saves in each mode, each paused once per save.
    for mode in ("sync", "async"):
        assert [label.split(",")[1].strip() for label in labels if label.startswith(f"{mode}: GPUs") and "paused" in label] == [
            f"save {i}: GPUs paused" for i in range(1, 5)]
    assert [t.split(":")[0] for t in tallies(page)] == ["Synchronous", "Asynchronous"]
    assert all(t.endswith(" in 4 saves") for t in tallies(page))


def bar_widths(page, widget: str) -> dict:
    """{text alternative: drawn width} of the chart's bars, in the SVG's own units."""
    return page.eval_on_selector_all(
        f'{root(widget)} [data-chart] [aria-roledescription="bar"]',
        "els => Object.fromEntries(els.map((el) => [el.getAttribute('aria-label'), el.getBBox().width]))")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_two_pauses_are_drawn_to_scale_on_one_clock(browser, widget_site, mode):
    widget = pyodide_widgets.module("checkpoint_modes")
    state = pyodide_widgets.contract.read(widget.FIELDS, widget.presets()[mode]["state"])
    presets = estimators.load_presets()
    page = open_page(browser, f"{widget_site}/checkpoint_modes/?checkpoint_modes.mode={mode}", javascript=False)
    widths = bar_widths(page, "checkpoint_modes")
    sync = [w for label, w in widths.items() if label.startswith("sync: GPUs, save 1: GPUs paused")]
    asynchronous = [w for label, w in widths.items() if label.startswith("async: GPUs, save 1: GPUs paused")]
    assert len(sync) == len(asynchronous) == 1
    run = presets.run(state["run"])
    st = estimators.checkpoint_stall(
        estimators.checkpoint_bytes(presets.model(run.model).params), run.gpus,
        presets.interconnect(state["host"]).bandwidth_bytes_per_s, presets.storage_system(state["storage"]).write_bytes_per_s,
        state["window"], state["interval"])
    # Milliseconds against seconds: the async pause is a sliver of the sync one, exactly their ratio
    # (the page's SVG keeps coordinates to a hundredth of a unit: the allowance for two of them).
    assert asynchronous[0] == pytest.approx(sync[0] * st.async_s / st.sync_s, abs=0.011)
    assert sync[0] > 20  # seconds of pause: wide enough to see at a glance
    # The synchronous write is the pause; the asynchronous one is as long, after the copy.
    writes = [w for label, w in widths.items() if ": storage, save 1: writing" in label]
    assert writes == pytest.approx([sync[0]] * 2, abs=0.011)


def test_play_runs_the_clock_and_the_pauses_add_up_in_each_lane(browser, widget_site):
    page = open_page(browser, f"{widget_site}/checkpoint_modes/")
    wait_live(page, "checkpoint_modes")
    page.click('[data-widget="checkpoint_modes"] [data-play="clock"]')
    # From its last stop the clock goes round to the first save, then on: both lanes grow together.
    for saves in (1, 2):
        page.wait_for_function(
            "(n) => [...document.querySelectorAll('[data-widget=checkpoint_modes] [data-chart] text')]"
            ".filter((t) => t.textContent.endsWith(` in ${n} save${n > 1 ? 's' : ''}`)).length === 2", arg=saves)
        labels = bar_labels(page, "checkpoint_modes")
        for mode in ("sync", "async"):
            assert sum(label.startswith(f"{mode}: GPUs") and "paused" in label for label in labels) == saves
    page.click('[data-widget="checkpoint_modes"] [data-play="clock"]')



# --- fine-tuning: the adapter and the fit -------------------------------------------

def marks(page, widget: str, role: str) -> dict:
    """{text alternative: (width, height)} of the charts' marks of one role ("rect mark", "bar", "rule mark")."""
    return page.eval_on_selector_all(
        f'{root(widget)} {CHARTS} [aria-roledescription="{role}"]',
        "els => Object.fromEntries(els.map((el) => { const b = el.getBBox(); return [el.getAttribute('aria-label'), [b.width, b.height]]; }))",
    )


def adapter(page) -> dict:
    """{"W": (label, width, height), "B": …, "A": …} of the drawn adapter (folded under the outputs: opened, as a
    reader opens it to see it)."""
    page.eval_on_selector(f'{root("finetune_fit")} [data-chart-spec]:not([data-chart])', "el => { el.closest('details').open = true; }")
    return {label.split(",")[0]: (label, *size) for label, size in marks(page, "finetune_fit", "rect mark").items()
            if not label.startswith("Pinned: ")}


def test_the_adapter_is_drawn_at_the_layers_shapes_and_the_fit_against_the_gpu(browser, widget_site):
    # Llama 3 8B's k projection: 4,096 in, 1,024 out, as grouped-query attention makes it.
    page = open_page(browser, f"{widget_site}/finetune_fit/?finetune_fit.model=llama3-8b&finetune_fit.modules=k")
    wait_live(page, "finetune_fit")
    wait_for_cpython_outputs(page, "finetune_fit")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=finetune_fit] [data-chart-spec] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label') === 'W, frozen: 1,024 × 4,096')")
    drawn = adapter(page)
    assert [drawn[name][0] for name in "WBA"] == ["W, frozen: 1,024 × 4,096", "B, trained: 1,024 × 16",
                                                  "A, trained: 16 × 4,096"]
    _, w_width, w_height = drawn["W"]
    assert w_width / w_height == pytest.approx(4, rel=0.05)  # k / d: the true aspect of W
    assert drawn["B"][2] == pytest.approx(w_height, rel=0.02) and drawn["A"][1] == pytest.approx(w_width, rel=0.02)
    assert drawn["B"][1] == pytest.approx(drawn["A"][2], rel=0.02)  # one r, drawn wider than life and said so
    assert any("r drawn " in t and "wider than life" in t for t in page.locator(
        '[data-widget="finetune_fit"] [data-chart-spec] text').all_text_contents())
    # Three methods stacked by part, and the GPU's memory as a line.
    methods = {label.split(":")[0] for label in marks(page, "finetune_fit", "bar")}
    assert methods == {"Full fine-tune", "LoRA", "QLoRA"}
    assert [label for label in marks(page, "finetune_fit", "rule mark") if label.startswith("red line: the ")]
    # Another layer: q is square in Llama 3 8B, and W follows.
    unfold(page, "finetune_fit", "modules")  # under "More inputs"
    page.set_checked('[data-widget="finetune_fit"] [data-field="modules"][value="q"]', True)
    page.set_checked('[data-widget="finetune_fit"] [data-field="modules"][value="k"]', False)
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=finetune_fit] [data-chart-spec] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label') === 'W, frozen: 4,096 × 4,096')")
    _, w_width, w_height = adapter(page)["W"]
    assert w_width == pytest.approx(w_height, rel=0.02)



# --- dense against mixture-of-experts -------------------------------------------------

def lit_experts(page) -> list:
    return page.eval_on_selector_all(
        '[data-widget="moe_routing"] [data-chart] [aria-roledescription="rect mark"]',
        "els => els.map((el) => el.getAttribute('aria-label') || '').filter((t) => t.endsWith(' goes here'))")


def test_the_moe_blocks_lit_path_follows_play(browser, widget_site):
    page = open_page(browser, f"{widget_site}/moe_routing/")
    wait_live(page, "moe_routing")
    widget = pyodide_widgets.module("moe_routing")
    state = next(iter(widget.presets().values()))["state"]
    routing = estimators.route_tokens(widget.SENTENCE, int(state["experts"]), int(state["top_k"]))
    first = lit_experts(page)
    assert sorted(first) == sorted(f"expert {e}: “{widget.SENTENCE[0]}” goes here" for e in routing.choices[0])
    page.click('[data-widget="moe_routing"] [data-play="token"]')
    for token in (1, 2):
        expected = sorted(f"expert {e}: “{widget.SENTENCE[token]}” goes here" for e in routing.choices[token])
        page.wait_for_function(
            "(expected) => { const lit = [...document.querySelectorAll('[data-widget=moe_routing] [data-chart] [aria-label]')]"
            ".map((el) => el.getAttribute('aria-label')).filter((t) => t.endsWith(' goes here')).sort();"
            " return JSON.stringify(lit) === JSON.stringify(expected); }", arg=expected)
    page.click('[data-widget="moe_routing"] [data-play="token"]')


def test_the_total_against_active_scale_holds_deepseek_v3s_bar(browser, widget_site):
    page = open_page(browser, f"{widget_site}/moe_routing/", 390, javascript=False)
    # Every bar ends inside the plot: the widest, DeepSeek-V3's 671B stored, included.
    bars = page.eval_on_selector_all(
        f'{root("moe_routing")} {CHARTS} [aria-roledescription="bar"]',
        "els => els.map((el) => [el.getAttribute('aria-label'), el.getBoundingClientRect().right,"
        " el.ownerSVGElement.getBoundingClientRect().right])")
    assert any(label.startswith("DeepSeek-V3: ") and "stored" in label for label, _, _ in bars)
    assert all(right <= svg_right for _, right, svg_right in bars)


# --- every picture fits its column ---------------------------------------------------

# Each picture at a state that fills it most: a "× N more" column, a clock part-way, a wide rank, a
# top-8 of 256 experts.
WIDEST = (
    ("memory_bill", "memory_bill.gpus=64"),
    ("checkpoint_modes", "checkpoint_modes.clock=3"),
    ("finetune_fit", "finetune_fit.rank=64"),
    ("moe_routing", "moe_routing.experts=256&moe_routing.top_k=8&moe_routing.token=7"),
    ("planner", "planner.gpus=2048"),
)


@pytest.mark.parametrize("name, query", WIDEST, ids=[name for name, _ in WIDEST])
def test_the_static_picture_fits_its_column_at_every_width(browser, widget_site, name, query):
    page = open_page(browser, f"{widget_site}/{name}/?{query}", javascript=False)
    for _ in at_each_width(page):
        assert_fits(page, name)


@pytest.mark.parametrize("name, query", WIDEST, ids=[name for name, _ in WIDEST])
def test_the_live_picture_fits_its_column_at_every_width(browser, widget_site, name, query):
    page = open_page(browser, f"{widget_site}/{name}/?{query}")
    wait_live(page, name)
    wait_for_cpython_outputs(page, name)
    page.wait_for_function("(name) => document.querySelector(`[data-widget=${name}]`).widget.view", arg=name)
    for _ in at_each_width(page):
        assert_fits(page, name)



# --- the planner's nesting ------------------------------------------------------

GPU_LABEL = re.compile(r"GPU ([\d,]+): TP rank (\d+) of (\d+), CP rank (\d+) of (\d+), stage ([\d,]+) of ([\d,]+), server ([\d,]+)")


def nesting(page) -> list:
    """(gpu, tp rank, tp, cp rank, cp, stage, stages, server) of every GPU cell the planner's picture draws."""
    labels = page.eval_on_selector_all('[data-widget="planner"] [data-chart] [aria-label^="GPU "]',
                                       "els => els.map((el) => el.getAttribute('aria-label'))")
    return [tuple(int(part.replace(",", "")) for part in GPU_LABEL.fullmatch(label).groups()) for label in labels]


def assert_nested_as_the_outputs_say(page, per_server: int):
    """The cells are the fastest layout's: its degrees, tensor ranks innermost, a TP group inside one server,
    each drawn stage on servers of its own once a stage fills a server."""
    tp, cp, pp = (int(re.search(rf"{cut} ([\d,]+)", page.text_content('[data-widget="planner"] [data-output="best"]'))
                      .group(1).replace(",", "")) for cut in ("TP", "CP", "PP"))
    cells = nesting(page)
    assert {(c[2], c[4], c[6]) for c in cells} == {(tp, cp, pp)}
    stages = sorted({c[5] for c in cells})
    assert stages[0] == 1 and stages[-1] == pp and len(stages) == min(pp, 4)
    assert len(cells) == len(stages) * min(tp * cp, 32)
    for gpu, tp_rank, _, cp_rank, _, stage, _, server in cells:
        assert gpu - 1 == (tp_rank - 1) + tp * ((cp_rank - 1) + cp * (stage - 1))  # the first replica, TP innermost
        group = {c[7] for c in cells if c[5] == stage and c[3] == cp_rank}
        assert group == {server}, "a tensor-parallel group leaves its server"
    if tp * cp >= per_server:
        servers = [{c[7] for c in cells if c[5] == stage} for stage in stages]
        assert all(not (a & b) for i, a in enumerate(servers) for b in servers[i + 1:]), "two stages share a server"


def test_the_planner_draws_tp_inside_a_server_and_stages_across_servers(browser, widget_site):
    page = open_page(browser, f"{widget_site}/planner/", javascript=False)
    assert nesting(page), "no GPU drawn before any script runs"
    assert_nested_as_the_outputs_say(page, 8)
    # Live, on fewer GPUs and servers of four: the redraw follows the new fastest layout.
    page = open_page(browser, f"{widget_site}/planner/?planner.gpus=1024&planner.scale_up_gpus=4")
    wait_live(page, "planner")
    wait_for_cpython_outputs(page, "planner")
    page.wait_for_function("() => document.querySelector('[data-widget=planner]').widget.view")
    page.wait_for_function("() => [...document.querySelectorAll('[data-widget=planner] [data-chart] [aria-label]')]"
                           ".some((el) => el.getAttribute('aria-label').endsWith('4 GPUs on one scale-up link'))")
    assert_nested_as_the_outputs_say(page, 4)
