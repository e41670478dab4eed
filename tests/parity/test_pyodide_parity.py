"""Parity: every widget's update() gives the same answer in CPython and in
Pyodide (npm `pyodide` under Node, from the wheel the site ships), for its
presets and for generated states, valid and invalid alike."""

import json
import random
import subprocess
import sys

import pytest

import pyodide_widgets
from pyodide_widgets import dispatch
from harness.site import ROOT
from site_build.pack import build_wheel

VALID_STATES = 60  # per widget, beyond its presets
INVALID_STATES = 20
PINNED_STATES = 10
# Typed forms of a number a reader might use, all of which the fields accept.
NUMBER_FORMS = ("{:g}", "{:.3f}", "{:.2e}", " {:g} ")
BAD_TEXT = ("", "abc", "-1", "0", "nan", "inf", "1e400", "1,2,3", "½")


def perturbed(rng: random.Random, state: dict, fields) -> dict:
    """A preset state with each of `fields` moved: numbers scaled over two decades, options redrawn."""
    out = dict(state)
    for field in fields:
        if field.kind == "choice":
            out[field.name] = rng.choice(field.options)[0]
        elif field.kind == "multi":
            picked = rng.sample(field.options, rng.randint(1, len(field.options)))
            out[field.name] = ",".join(value for value, _ in picked)
        elif field.kind == "toggle":
            out[field.name] = rng.choice(["true", "false"])
        else:
            value = float(state[field.name]) * 10 ** rng.uniform(-1, 1)
            low = field.min if field.min is not None else 0
            value = max(low, min(value, field.max))
            value = max(1, round(value)) if field.kind == "whole" else value
            out[field.name] = rng.choice(NUMBER_FORMS).format(value)
    return out


def broken(rng: random.Random, state: dict, fields) -> dict:
    out = dict(state)
    field = rng.choice(fields)
    out[field.name] = rng.choice(BAD_TEXT) if field.kind in ("number", "whole") else "not-an-option"
    return out


def requests_for(name: str) -> list[dict]:
    widget = pyodide_widgets.module(name)
    rng = random.Random(f"parity-{name}")
    presets = [p["state"] for p in widget.presets().values()]
    valid = []
    # Some combinations are invalid (a GPU with no FP8 peak): draw until enough are valid. Every other draw
    # moves every field; the rest move one to three, so that a form whose fields bind one another (a width
    # the heads divide, a batch of whole sequences) still gets states that its moved fields keep valid.
    for attempt in range(VALID_STATES * 10):
        moved = widget.FIELDS if attempt % 2 == 0 else rng.sample(widget.FIELDS, min(len(widget.FIELDS), rng.randint(1, 3)))
        state = perturbed(rng, rng.choice(presets), moved)
        if "error" not in json.loads(dispatch.handle(json.dumps({"widget": name, "state": state}))):
            valid.append(state)
        if len(valid) == VALID_STATES:
            break
    invalid = [broken(rng, rng.choice(presets), widget.FIELDS) for _ in range(INVALID_STATES)]
    # A pinned state beside the live one (its differences are taken from the figures the formatters
    # were given, recorded as they print), and a bad pinned state from a link.
    pinned = [{"widget": name, "state": state, "pinned": presets[0]} for state in valid[:PINNED_STATES]]
    pinned += [{"widget": name, "state": presets[0], "pinned": state} for state in invalid[:2]]
    return [{"widget": name, "state": state} for state in presets + valid + invalid] + pinned


@pytest.fixture(scope="module")
def pyodide_replies(tmp_path_factory):
    """Every request of every widget, answered once by Pyodide under Node."""
    requests = [request for name in pyodide_widgets.WIDGETS for request in requests_for(name)]
    path = tmp_path_factory.mktemp("parity") / "requests.json"
    path.write_text(json.dumps(requests), "utf-8")
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "parity" / "run_in_pyodide.mjs"), str(build_wheel()), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    # JavaScript has one number type: Node prints a float past 2⁵³ such as 7.007752000000001e16 as the
    # integer 70077520000000010, which would read back as a Python int; as a float it is the same double.
    answer = json.loads(done.stdout, parse_int=float)
    return requests, answer["version"], answer["replies"]


def test_pyodide_runs_a_newer_python_than_cpython_here(pyodide_replies):
    _, version, _ = pyodide_replies
    assert tuple(map(int, version.split(".")[:2])) > sys.version_info[:2]


@pytest.mark.parametrize("name", pyodide_widgets.WIDGETS)
def test_every_state_gets_the_same_answer_in_cpython_and_pyodide(pyodide_replies, name):
    requests, _, replies = pyodide_replies
    pairs = [(req, reply) for req, reply in zip(requests, replies) if req["widget"] == name]
    assert sum("error" not in reply for _, reply in pairs) >= VALID_STATES
    assert sum("error" in reply for _, reply in pairs) >= INVALID_STATES / 2
    for request, reply in pairs:
        assert json.loads(dispatch.handle(json.dumps(request))) == reply, request["state"]
