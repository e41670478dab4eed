"""Take it with you and compare: the copied command, the JSON, and a pinned state beside the live one.

The command a widget copies is run, as a reader would run it, for every widget's default state
(in a CPython subprocess), and must print the outputs the widget shows; a pinned state's
differences are checked against the estimators' own figures.
"""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import estimators
import pyodide_widgets
from estimators import units
from pyodide_widgets import compare, dispatch, take_away
from pyodide_widgets.contract import form_text

ROOT = Path(__file__).resolve().parents[2]


def default_state(name) -> dict:
    widget = pyodide_widgets.module(name)
    state = next(iter(widget.presets().values()))["state"]
    # As the form sends it: every value its text.
    return {f.name: form_text(f, state[f.name]) for f in widget.FIELDS}


def run_copied(command: str, *extra) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    assert words[:3] == list(take_away.PROGRAM)
    return subprocess.run([sys.executable, *words[1:], *extra], cwd=ROOT, capture_output=True, text=True, encoding="utf-8")


def handle(name, state, pinned=None) -> dict:
    message = {"widget": name, "state": state} | ({"pinned": pinned} if pinned is not None else {})
    return json.loads(dispatch.handle(json.dumps(message)))


@pytest.mark.parametrize("name", pyodide_widgets.WIDGETS)
def test_the_copied_command_prints_the_widgets_outputs_for_its_default_state(name):
    state = default_state(name)
    answer = handle(name, state)  # what the worker gives the page, the command among it
    done = run_copied(answer["command"])
    assert done.returncode == 0, done.stderr
    printed = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert printed == answer["outputs"]


def test_the_json_holds_the_state_and_the_outputs_and_a_bad_value_is_named():
    state = default_state("training_time") | {"gpus": "2048", "mfu": "35"}
    answer = handle("training_time", state)
    done = run_copied(answer["command"], "--json")
    assert json.loads(done.stdout) == {"widget": "training_time", "state": state, "outputs": answer["outputs"]}
    refused = run_copied(take_away.command("training_time", pyodide_widgets.module("training_time"), state | {"gpus": "0"}))
    assert refused.returncode == 2 and "gpus" in refused.stderr and not refused.stdout


def test_a_command_quotes_what_a_shell_would_split():
    widget = pyodide_widgets.module("finetune_fit")
    state = default_state("finetune_fit") | {"modules": "q,k v"}
    words = shlex.split(take_away.command("finetune_fit", widget, state))
    assert words[words.index("--modules") + 1] == "q,k v"


def run_seconds(state) -> float:
    gpu = estimators.load_presets().gpu(state["gpu"])
    return estimators.run_estimate(float(state["params"]) * 1e9, float(state["tokens"]) * 1e12, int(state["gpus"]),
                                   gpu.peak_flops[state["precision"]], float(state["mfu"]) / 100).seconds


def test_pinned_differences_are_the_estimators_ratios_not_the_texts():
    pinned = default_state("training_time")
    live = pinned | {"gpus": str(int(pinned["gpus"]) * 3), "mfu": "33"}
    answer = handle("training_time", live, pinned)
    assert answer["pinned"]["outputs"] == handle("training_time", pinned)["outputs"]
    diff = answer["pinned"]["differences"]
    assert diff["duration"] == units.times(run_seconds(live) / run_seconds(pinned))
    assert diff["flops"] == diff["checkpoint"] == compare.SAME  # neither reads the fleet
    assert handle("training_time", pinned, pinned)["pinned"]["differences"] == dict.fromkeys(answer["outputs"], compare.SAME)


def test_a_share_moves_by_points_and_a_text_without_figures_only_changes():
    pinned = default_state("interruptions")
    live = pinned | {"interruptions": str(int(pinned["interruptions"]) * 2)}
    before, after = (compare.printed(pyodide_widgets.module("interruptions"), s)[1]["lost_share"][0].value for s in (pinned, live))
    diff = handle("interruptions", live, pinned)["pinned"]["differences"]
    assert after > before and diff["lost_share"] == f"+{units.number((after - before) * 100)} points"
    options = [v for v, _ in pyodide_widgets.module("audit_lanes").FIELDS[0].options]
    picked = handle("audit_lanes", {"practice": options[1]}, {"practice": options[0]})["pinned"]["differences"]
    assert picked["picked"] == compare.CHANGED


def test_a_bad_pinned_state_is_named_and_the_live_answer_stays():
    state = default_state("training_time")
    answer = handle("training_time", state, state | {"gpus": "-4"})
    assert answer["outputs"] == handle("training_time", state)["outputs"]
    assert answer["pinned"]["error"]["field"] == "gpus" and "outputs" not in answer["pinned"]
    assert handle("training_time", state | {"gpus": "x"}, state)["error"]["field"] == "gpus"


@pytest.mark.parametrize("name", pyodide_widgets.WIDGETS)
def test_a_widget_prints_the_same_figures_whatever_it_answered_before(name):
    # A widget that caches its formatted text prints no figure the second time: a pinned state would then read
    # "changed" or a difference depending on what the reader's worker happened to answer first.
    state = default_state(name)
    first = compare.printed(pyodide_widgets.module(name), state)
    again = compare.printed(pyodide_widgets.module(name), state)
    assert {key: [f.text for f in figures] for key, figures in again[1].items()} == {
        key: [f.text for f in figures] for key, figures in first[1].items()}
