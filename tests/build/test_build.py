"""The strict build: it passes on the real docs, and a wrong macro call stops it
with a message naming the page, the macro and what is valid."""

import json
import re
import zipfile
from pathlib import Path

import pytest

from harness import markup
from harness.site import mkdocs_build, throwaway_project
from pyodide_widgets.widgets import training_time
from site_build.pack import build_wheel


def page_text(site: Path, page: str) -> str:
    """The visible text of a built page, a space between elements, entities decoded."""
    return _text(markup.parse((site / page / "index.html").read_text("utf-8")))


def _text(element: markup.Element, number: bool = False) -> str:
    # A glossary card wraps a word inside running text ("BF16,"), a number and its link to its card a
    # figure ("1.38 GB,"): their text is read as part of the text around them.
    return "".join(child if isinstance(child, str)
                   else _text(child, number=child.tag == "data") if child.tag in ("abbr", "data") or (number and child.tag == "a")
                   else f" {_text(child)} " for child in element.children)


def test_strict_build_writes_every_page(built_site):
    for page in ("index.html", "training/index.html"):
        assert (built_site / page).is_file()


def test_training_page_shows_the_widget_outputs_computed_at_build_time(built_site):
    default = next(iter(training_time.presets().values()))["state"]
    expected = training_time.update(default)["outputs"]
    text = page_text(built_site, "training")
    for key in ("flops", "delivered", "duration", "gpu_hours", "fleet"):
        assert expected[key] in text, key


def test_built_site_bundles_its_runtime_and_requests_no_other_origin(built_site, site_url):
    widgets = built_site / "assets" / "widgets"
    for name in ("runtime.js", "worker.js", "vega.min.js", "pyodide/pyodide.mjs", "pyodide/pyodide.asm.wasm"):
        assert (widgets / name).is_file(), name
    assert len(list(widgets.glob("*.whl"))) == 1
    # What a page loads by itself: src= of any element and href= of <link> (links to read are fine).
    for page in built_site.rglob("*.html"):
        for element in markup.parse(page.read_text("utf-8")).iter():
            url = element.attrs.get("src") or (element.attrs.get("href") if element.tag == "link" else None)
            assert not url or not re.match(r"(https?:)?//", url) or url.startswith(site_url + "/"), (page, url)


# --- wrong macro calls --------------------------------------------------------


def build_with_page(tmp_path: Path, markdown: str = "", page: str | None = None):
    """Build a project of one page holding `markdown` (or the whole `page`): a mistake stops the build
    the same way beside the real docs or alone, and alone it is found in a fraction of the time."""
    page = page or f"# A page with a mistake\n\n{markdown}\n"
    return mkdocs_build(throwaway_project(tmp_path, {"broken.md": page}, with_docs=False), tmp_path / "site")


@pytest.mark.parametrize(
    "call, names",
    [
        ('{{ run("llama3-40b").params }}', ["run()", "'llama3-40b'", "'llama3-405b'"]),
        ("{{ training_seconds(1e25, -8, 989e12, 0.4) }}", ["training_seconds()", "gpus", "-8", "1 or more"]),
        ("{{ training_flops(params=1e9, tokns=1e12) }}", ["training_flops()", "unknown argument 'tokns'", "training_flops(params: float, tokens: float)"]),
        ('{{ widget("training_tim") }}', ["widget()", "'training_tim'", "training_time"]),
        ('{{ widget("training_time", preset="gpt5") }}', ["widget()", "'gpt5'", "'llama3-405b'"]),
        ("{{ 0.4 | percnt }}", ["percnt", "did you mean 'percent'?"]),
        ("{{ llama_params }}", ["llama_params", "undefined"]),
        ("{{ trainig_flops(1e9, 1e12) }}", ["'trainig_flops' is undefined", "did you mean 'training_flops'?"]),
        ('{{ 1e9 | count(2) }}', ["filter count()", "too many positional arguments", "valid call: value | count"]),
        ('{{ training_seconds(1e25, run("llama3-405b").gpu_count, 989e12, 0.4) }}',
         ["Run has no attribute 'gpu_count'", "did you mean 'gpu", "gpus, mfu"]),
        ('{{ run("llama3-405").params }}', ["(did you mean 'llama3-405b'?)"]),
    ],
)
def test_wrong_macro_call_fails_the_build_naming_page_macro_and_fix(tmp_path, call, names):
    done = build_with_page(tmp_path, f"It takes {call} to train.")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "broken.md" in output
    for name in names:
        assert name in output, (name, output[-2000:])
    site_page = tmp_path / "site" / "broken" / "index.html"
    assert not site_page.exists() or "Error" not in site_page.read_text("utf-8")


def test_build_errors_name_the_markdown_line_of_the_source_file_front_matter_included(tmp_path):
    page = "---\ntitle: Front matter of three lines\n---\n# A page\n\nFine.\n\n{{ run(\"nope\").params }}\n"
    done = build_with_page(tmp_path, page=page)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    line = page.splitlines().index('{{ run("nope").params }}') + 1
    assert f"broken.md:{line}: macro run()" in output, output[-2000:]
    assert "Traceback" not in output


def test_a_hand_typed_quantity_fails_the_strict_build_with_file_line_and_column(tmp_path):
    page = "---\ntitle: Typed\n---\n# A page\n\nA checkpoint of 1.2 TB is large.\n"
    done = build_with_page(tmp_path, page=page)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    line = page.splitlines()[5]
    assert f"broken.md:6:{line.index('1.2') + 1}: hand-typed quantity '1.2 TB'" in output, output[-2000:]


def test_the_wheel_holds_exactly_what_the_browser_runs():
    # No exclude list to keep in step: the wheel is the two browser packages and its own metadata.
    with zipfile.ZipFile(build_wheel()) as wheel:
        tops = {name.split("/")[0] for name in wheel.namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"estimators", "pyodide_widgets"}
    assert "pyodide_widgets/widgets/training_time.py" in wheel.namelist()


def test_a_charts_vega_spec_is_a_file_of_its_own_that_draws_the_widgets_build_time_data(built_site):
    """A spec in the page would be paid for by every reader; the runtime fetches it when the chart goes live."""
    raw = (built_site / "training" / "index.html").read_text("utf-8")
    # Every chart's spec, the widgets' main charts and their further figures (the run's cost under its plane).
    names = [element.attrs["data-chart-spec"] for element in markup.parse(raw).iter(data_chart_spec=True)]
    assert names and "vega.github.io/schema" not in raw
    default = next(iter(training_time.presets().values()))["state"]
    data = training_time.update(default)["data"]
    specs = [json.loads((built_site / "assets" / "widgets" / "charts" / name).read_text("utf-8")) for name in names]
    assert all(spec["$schema"].startswith("https://vega.github.io/schema/vega/") for spec in specs)
    drawn = [{d["name"]: d.get("values") for d in spec["data"]} for spec in specs]
    # The widget's charts together draw every dataset of its build-time answer, each with that answer's rows.
    its = [d for d in drawn if set(d) & set(data) and all(len(rows or []) == len(data[name]) for name, rows in d.items() if name in data)]
    assert set(data) <= set().union(*its)
