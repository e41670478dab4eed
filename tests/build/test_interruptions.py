"""The interruptions widget and the prose around it: every figure is the checkpoint estimators', at the seed's inputs by default."""

import math
import re

import pytest

import estimators
from estimators import units
from pyodide_widgets.contract import read
from pyodide_widgets.widgets import interruptions
from figures import interruptions as figures_interruptions
from site_build import render
from tests.build.test_build import page_text

PRESETS = estimators.load_presets()
FAILURES = PRESETS.failure("llama3-405b")  # 466 interruptions (419 unexpected) in 54 days, 30-minute checkpoints


@pytest.fixture(scope="module")
def text(built_site) -> str:
    return " ".join(page_text(built_site, "training").split())


def test_default_is_the_unexpected_419_that_the_prose_calls_failures_and_all_466_one_click_away():
    # Llama 3 paper, §3.3.4: 466 interruptions in 54 days, 419 of them unexpected. The prose's MTBF
    # counts the unexpected ones (3.09 h) and gives Daly's interval from it; the widget opens on them.
    states = interruptions.presets()
    assert list(states) == ["unexpected", "all"]
    assert states["unexpected"]["state"]["interruptions"] == FAILURES.unexpected == 419
    assert states["all"]["state"]["interruptions"] == FAILURES.interruptions == 466
    out = interruptions.update(states["unexpected"]["state"])["outputs"]
    mtbf = estimators.mtbf_seconds(FAILURES.unexpected, FAILURES.window_seconds)
    assert units.duration(mtbf) == "3.09 h"
    assert out["young"].endswith(f"one interruption every {units.duration(mtbf)}") and "MTBF" not in out["young"]


def test_work_thrown_away_reads_in_hours_as_its_sources_give_it(text):
    # Seed: ≈ 117 h, ≈ 9.0% (466 × 30 min / 2 = 116.5 h), in hours as the article prints it.
    out = interruptions.update(interruptions.presets()["all"]["state"])["outputs"]
    lost = 116.5 * units.SECONDS_PER_HOUR
    assert out["lost"] == units.duration(lost, "h") == "117 h"
    assert out["lost_share"].startswith(units.percent(lost / FAILURES.window_seconds))
    assert f"throw away {units.duration(lost, 'h')} of work" in text


@pytest.mark.parametrize("preset", list(interruptions.presets()))
def test_the_interruptions_widgets_figures_are_the_estimators(preset):
    state = interruptions.presets()[preset]["state"]
    result = interruptions.update(state)
    s = read(interruptions.FIELDS, state)  # the preset holds the form's text; read gives SI units
    window, n, interval, pause = s["window"], s["interruptions"], s["interval"], s["pause"]
    lost = estimators.lost_work_seconds(n, interval)
    assert result["outputs"]["lost"] == units.duration(lost, "h")
    daly = estimators.optimal_checkpoint_interval(pause, estimators.mtbf_seconds(n, window))
    assert result["outputs"]["optimal"] == units.duration(daly)
    run = result["data"]["run"]
    assert len(run) == n and all(row["lost_h"] * 7200 == pytest.approx(interval) for row in run)  # τ/2 lost each
    assert 0 < run[0]["day"] < run[-1]["day"] < result["data"]["window"][0]["days"] == window / 86400
    assert sum(r["end_h"] - r["start_h"] for r in result["data"]["zoom"]) == pytest.approx(
        len(result["data"]["zoom"]) * interval / 2 / units.SECONDS_PER_HOUR)


def test_the_optimum_costs_less_than_any_interval_on_the_curve():
    data = interruptions.update(interruptions.presets()["all"]["state"])["data"]
    best = next(m for m in data["marks"] if m["kind"] == "optimal")["overhead_h"]
    assert best <= min(row["overhead_h"] for row in data["curve"]) * (1 + 1e-3)


def test_the_prose_states_the_synchronous_pause_and_dalys_interval(text):
    run, storage = PRESETS.run("llama3-405b"), PRESETS.storage_system("llama3-tectonic")
    ckpt = estimators.checkpoint_bytes(PRESETS.model(run.model).params)
    pause = ckpt / storage.write_bytes_per_s
    assert f"pauses the run for {units.duration(pause)}" in text
    mtbf = estimators.mtbf_seconds(FAILURES.unexpected, FAILURES.window_seconds)
    assert f"Daly's interval is {units.duration(estimators.optimal_checkpoint_interval(pause, mtbf))}" in text


def test_bad_input_is_named():
    state = {**interruptions.presets()["all"]["state"], "interval": 1e5}  # 69 days: longer than the 54-day window
    with pytest.raises(estimators.EstimatorError) as e:
        interruptions.update(state)
    assert e.value.argument == "interval"


def test_the_widgets_time_spent_saving_is_the_proses_for_the_same_saves(text):
    # 54 days of 30-minute intervals, 2,592 saves, each the synchronous pause of the 405B checkpoint
    # at Tectonic's write rate (Llama 3 §3.3.4): the widget must not round the pause before multiplying.
    run, storage, host = PRESETS.run("llama3-405b"), PRESETS.storage_system("llama3-tectonic"), PRESETS.interconnect("pcie5-h100")
    stall = estimators.checkpoint_stall(
        estimators.checkpoint_bytes(PRESETS.model(run.model).params), run.gpus, host.bandwidth_bytes_per_s,
        storage.write_bytes_per_s, FAILURES.window_seconds, FAILURES.checkpoint_interval_seconds)
    assert FAILURES.window_seconds / FAILURES.checkpoint_interval_seconds == 2592
    out = interruptions.update(interruptions.presets()["unexpected"]["state"])["outputs"]
    assert out["writing"] == units.duration(stall.sync_run_s)
    assert f"that is {units.duration(stall.sync_run_s)} of stopped GPUs" in text


@pytest.mark.parametrize("preset", list(interruptions.presets()))
def test_beside_the_interval_a_press_picks_each_declared_cadence_and_dalys_optimum(preset):
    page = render.render("interruptions", preset)
    picks = re.findall(r'data-pick="interval=([^"]+)"', page)
    s = read(interruptions.FIELDS, interruptions.presets()[preset]["state"])
    daly = estimators.optimal_checkpoint_interval(s["pause"], estimators.mtbf_seconds(s["interruptions"], s["window"]))
    # Daly 2006 at this run's pause and mean time between interruptions, in the field's minutes.
    assert picks == [units.plain(m) for m in interruptions.CADENCE_MINUTES] + [units.number(daly / interruptions.MINUTE)]
    # The pressed one is the one the field holds: the preset's 30 minutes.
    pressed = re.findall(r'data-pick="interval=([^"]+)"[^>]*aria-pressed="true"', page)
    assert pressed == [interruptions.presets()[preset]["state"]["interval"]]


def test_an_interval_past_the_mean_time_between_interruptions_is_refused_with_that_limit():
    # 1,000 minutes between checkpoints against one unexpected interruption every 3.09 h once printed
    # "269% of the window": n·τ/2 holds while an interval holds one interruption at most, on average.
    state = {**interruptions.presets()["unexpected"]["state"], "interval": "1000"}
    s = read(interruptions.FIELDS, state)
    mtbf = estimators.mtbf_seconds(s["interruptions"], s["window"])
    with pytest.raises(estimators.EstimatorError) as e:
        interruptions.update(state)
    assert e.value.argument == "interval"
    minutes = mtbf / interruptions.MINUTE  # printed rounded down, so that the figure typed back is accepted
    assert e.value.allowed == (f"at most the mean time between interruptions, {units.duration(mtbf)}: "
                               f"{units.number(math.floor(minutes))} minutes")
    interruptions.update({**state, "interval": units.number(math.floor(minutes))})
    with pytest.raises(estimators.EstimatorError) as e:
        estimators.checkpoint_overhead(s["window"], s["interruptions"], s["interval"], s["pause"])
    assert e.value.argument == "checkpoint_interval_s"
    # At the limit itself the model holds, and half the window is lost.
    at = estimators.checkpoint_overhead(s["window"], s["interruptions"], mtbf, 0)
    assert at.lost_share == pytest.approx(0.5)


PERCENT = re.compile(r"^(?:under )?([\d.,]+(?:e[-+]?\d+)?)% of the window")  # "under 0.001%": a share too small for digits


@pytest.mark.parametrize("preset", list(interruptions.presets()))
def test_no_share_of_the_window_exceeds_the_window(preset):
    # Every interval and pause a reader might type: either refused beside a field, or shares of the
    # window that add up to no more than the whole of it.
    base = interruptions.presets()[preset]["state"]
    for interval in ("0.01", "0.05", "1", "5", "30", "120", "185", "200", "1000", "1e6"):
        for pause in ("0.001", "2.84", "60", "600", "3600", "5000", "1e6"):
            state = {**base, "interval": interval, "pause": pause}
            try:
                out = interruptions.update(state)
            except estimators.EstimatorError as e:
                assert e.argument in {"interval", "pause"}, e
                continue
            s = read(interruptions.FIELDS, state)
            o = estimators.checkpoint_overhead(s["window"], s["interruptions"], s["interval"], s["pause"])
            assert o.lost_share + o.saving_share <= 1 + 1e-12, (interval, pause)
            for key in ("lost_share", "writing_detail"):
                assert float(PERCENT.match(out["outputs"][key]).group(1).replace(",", "")) <= 100, out["outputs"][key]
            assert all(row["overhead_h"] * units.SECONDS_PER_HOUR <= s["window"] * (1 + 1e-12) for row in out["data"]["curve"])


def test_a_pause_too_long_for_the_best_interval_is_refused_where_dalys_interval_leaves_the_range():
    # Daly's interval and the shortest the count holds for are both functions of δ/M: they meet at one share.
    share = estimators.checkpoint.DALY_IN_RANGE_SHARE
    window, n = FAILURES.window_seconds, FAILURES.unexpected
    mtbf = estimators.mtbf_seconds(n, window)
    for r in (share * 0.999, share * 1.001):
        daly = estimators.optimal_checkpoint_interval(r * mtbf, mtbf)
        inside = daly >= estimators.checkpoint_interval_range(window, n, r * mtbf).shortest_s
        assert inside == (r < share)
    state = {**interruptions.presets()["unexpected"]["state"], "pause": "1e6"}
    with pytest.raises(estimators.EstimatorError) as e:
        interruptions.update(state)
    assert e.value.argument == "pause"
    longest = estimators.longest_checkpoint_stall_s(window, n)
    assert longest == pytest.approx(share * mtbf)
    step = 10 ** (math.floor(math.log10(longest)) - 2)  # three digits, rounded down: typed back, it is accepted
    assert e.value.allowed.startswith(f"at most {units.number(math.floor(longest / step) * step)} seconds, "
                                      f"{units.percent(share)} of the mean time")


def _strikes(state: dict) -> list:
    """The subpaths of the timeline's red shape, each a stretch of strikes, as the page draws it (its fill on
    the path, or on the group the optimizer moved it to)."""
    svg = render.chart_svg("interruptions", interruptions.update(state)["data"])
    red_fill = f'fill="{figures_interruptions.FAILURE_COLOUR}"'
    red = [path for path in re.findall(r"<path\b[^>]*>", svg) if red_fill in path] + [
        path for group in re.findall(rf"<g\b[^>]*{red_fill}[^>]*>(.*?)</g>", svg) for path in re.findall(r"<path\b[^>]*>", group)]
    return [sub for path in red for sub in re.findall(r"[Mm][^Mm]*", re.search(r' d="([^"]*)"', path)[1])]


def test_the_strikes_that_touch_are_one_stretch_and_those_apart_one_tick_each():
    # The seed's 419 unexpected interruptions in 54 days strike every 3.09 h: half a pixel apart on the
    # timeline's width, so their ticks of a pixel overlap into one stretch of red from the first to the last.
    state = interruptions.presets()["unexpected"]["state"]
    s = read(interruptions.FIELDS, state)
    apart_px = estimators.mtbf_seconds(s["interruptions"], s["window"]) / s["window"] * figures_interruptions.WIDTH
    assert apart_px < figures_interruptions.TICK_PX
    assert len(_strikes(state)) == 1
    # A handful in the same window strike tens of pixels apart: a tick each.
    assert len(_strikes({**state, "interruptions": "5"})) == 5
