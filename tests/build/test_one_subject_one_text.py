"""One quantity of one subject prints one text wherever it is reached from: a run's entry or its
model's, the prose or a widget's build-time outputs (site_build/numbers.py's subject check)."""

import os
import subprocess

from harness.site import ROOT, copy_project, only_pages
from site_build import numbers


def entry(derivation, text, value=5.67e12, kind="bytes", line=1):
    return numbers.Entry("a.md", line, derivation, kind, value, text)


def test_a_checkpoint_from_the_runs_count_and_from_its_models_count_is_one_quantity():
    # Llama 3 405B: 405e9 (the paper's round N) × 14 B against 405,853,388,800 × 14 B.
    found = numbers.one_text_findings([
        entry('checkpoint_bytes(run("llama3-405b").params)', "5.67 TB"),
        entry('checkpoint_bytes(model("llama3-405b").params)', "5.68 TB", 5.682e12, line=9),
    ])
    assert len(found) == 1 and "checkpoint_bytes(«llama3-405b».params)" in found[0]
    assert "a.md:1 '5.67 TB'" in found[0] and "a.md:9 '5.68 TB'" in found[0]


def test_an_input_read_bare_prints_its_own_sources_figure():
    # A preset's input is the figure its source gives, its card naming that source: Meta's round
    # count in a table of runs is no second text of the configuration's count.
    assert not numbers.one_text_findings([
        entry('load_presets().examples["round-7b"].params', "7B", 7e9, "number"),
        entry('model("round-7b").params', "6.74B", 6.738e9, "number", line=9),
    ])


def test_other_subjects_and_other_arguments_are_other_quantities():
    assert not numbers.one_text_findings([
        entry('checkpoint_bytes(model("llama3-405b").params)', "5.68 TB", 5.682e12),
        entry('checkpoint_bytes(model("llama3-70b").params)', "988 GB", 9.88e11),
        entry('checkpoint_bytes(model("llama3-405b").params, true)', "6.49 TB", 6.49e12),
    ])


def test_a_widget_output_of_the_same_quantity_and_subject_must_print_the_proses_figure():
    prose = entry('run_preset_estimate("llama3-405b").gpu_hours', "26.7M", 2.667e7, "number")
    widget = numbers.Entry("a.md", 5, 'widget("training_time").gpu_hours', "widget", None, "26.6M",
                           about="gpu_hours@llama3-405b@h100-sxm,llama3-405b")
    found = numbers.one_text_findings([prose, widget])
    assert len(found) == 1 and "a.md:5 '26.6M'" in found[0] and "a.md:1 '26.7M'" in found[0]
    same = numbers.Entry("a.md", 5, 'widget("training_time").gpu_hours', "widget", None, "26.7M GPU-hours",
                         about="gpu_hours@llama3-405b@h100-sxm,llama3-405b")
    assert not numbers.one_text_findings([prose, same])


def test_the_widgets_build_time_outputs_carry_what_they_are_of():
    import pyodide_widgets

    about = numbers.widget_subjects(pyodide_widgets.module("training_time"), "llama3-405b")
    # The quantity and the preset, then every entry the preset's state was supplied from: the run and
    # its GPU among them (the facility, grid and price its footprint reads too).
    for key, quantity in (("gpu_hours", "gpu_hours"), ("checkpoint", "checkpoint_bytes")):
        name, preset, subjects = about[key].split("@")
        assert (name, preset) == (quantity, "llama3-405b")
        assert {"h100-sxm", "llama3-405b"} <= set(subjects.split(","))


def test_a_widget_at_another_preset_states_another_quantity():
    # The GB200 what-if reads the 405B model too, but its GPU-hours are not the H100 run's.
    prose = entry('run_preset_estimate("llama3-405b").gpu_hours', "26.7M", 2.667e7, "number")
    widget = numbers.Entry("a.md", 5, 'widget("training_time", "llama3-405b-gb200-fp8").gpu_hours', "widget", None,
                           "5.86M", about="gpu_hours@llama3-405b-gb200-fp8@gb200,llama3-405b,llama3-405b-gb200-fp8")
    assert not numbers.one_text_findings([prose, widget])


def test_a_page_printing_one_models_checkpoint_from_two_counts_fails_the_build(tmp_path, filled_cache):
    # The regression of the Llama 3 405B checkpoint: the run at the paper's round 405e9, its model at
    # the configuration's 405,853,388,800, one page printing a checkpoint from each.
    copy = copy_project(tmp_path / "project", with_cache=True)
    (copy / ".venv").symlink_to(ROOT / ".venv")
    presets = copy / "estimators" / "presets.toml"
    text = presets.read_text("utf-8").replace(', "params_of_its_model"]', "]")
    start = text.index("[runs.llama3-405b]")
    params = text.index("params = ", start)
    presets.write_text(text[:params] + "params = 405e9" + text[text.index("\n", params):], "utf-8")
    # The check reads across pages: the time widget sits on a page of its own.
    config = only_pages(copy, {
        "two.md": "# Two counts\n\n"
                  '{{ checkpoint_bytes(run("llama3-405b").params) | bytes }} against '
                  '{{ checkpoint_bytes(model("llama3-405b").params) | bytes }}.\n',
        "time.md": '# Time\n\n{{ widget("training_time") }}\n',
    })
    done = subprocess.run([".venv/bin/mkdocs", "build", "--strict", "-f", config.name], cwd=copy, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode != 0
    [finding] = [line for line in done.stderr.splitlines() if "(checkpoint_bytes(«llama3-405b».params))" in line]
    assert "one quantity of one subject printed 2 ways" in finding
    assert "two.md:3 '5.67 TB'" in finding and "two.md:3 '5.68 TB'" in finding
    # The time widget's checkpoint, from the run's round count, against the prose's.
    assert any("checkpoint_bytes@llama3-405b" in line and "widget(\"training_time\").checkpoint" in line
               for line in done.stderr.splitlines())
