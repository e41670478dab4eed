"""A mistake in any data file is one line naming the file, the line and the dotted key."""

import dataclasses
from importlib import resources
from pathlib import Path

import pytest

from estimators import EstimatorError, data_file
from pyodide_widgets.widgets import ten_steps
from site_build import glossary

ROOT = Path(__file__).resolve().parents[2]


def broken(package: str, filename: str, old: str, new: str) -> tuple[str, int]:
    """The shipped file with its first `old` replaced by `new`, and the line of that change."""
    text = resources.files(package).joinpath(*filename.split("/")).read_text("utf-8")
    assert old in text
    return text.replace(old, new, 1), text[:text.index(old)].count("\n") + 1


@pytest.mark.parametrize("package, filename, build, old, new, message", [
    pytest.param("pyodide_widgets", "data/audit.toml", data_file.texts, 'lane = "data"', "lane = 3",
                 "stages.corpus.lane = 3 is not allowed: a text (in quotes) or a list of texts", id="audit"),
    pytest.param("pyodide_widgets", "data/stack.toml", data_file.texts, 'layer = "adapt"', "layer = 2025",
                 "blocks.adapters.layer = 2025 is not allowed: a text (in quotes) or a list of texts", id="stack"),
    pytest.param("pyodide_widgets", "ten_steps.toml", ten_steps._steps, 'rung = "gpu"', 'rung = "rack-x"',
                 "steps.collect.rung = 'rack-x' is not allowed: one of", id="ten_steps"),
])
def test_a_bad_value_in_a_widgets_data_file_names_file_line_and_key(package, filename, build, old, new, message):
    text, line = broken(package, filename, old, new)
    with pytest.raises(EstimatorError) as error:
        data_file.parse(text, f"{package}/{filename}", build)
    assert str(error.value).startswith(f"{package}/{filename}:{line}: {message}")
    assert "\n" not in str(error.value)


def test_a_bad_value_in_the_glossary_names_file_line_and_key(tmp_path):
    text, line = broken("site_build", "glossary.toml", "related = [", "related = 3\nunused = [")
    path = tmp_path / "glossary.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(EstimatorError) as error:
        glossary.load(path)
    assert str(error.value) == f"{path}:{line}: terms[0].related = 3 is not allowed: a text (in quotes) or a list of texts"


def test_an_unknown_field_of_a_glossary_term_lists_the_known_ones(tmp_path):
    text, line = broken("site_build", "glossary.toml", "long = ", "longer = ")
    path = tmp_path / "glossary.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(EstimatorError) as error:
        glossary.load(path)
    assert str(error.value).startswith(f"{path}:{line}: terms[0].longer = ")
    known = ", ".join(f.name for f in dataclasses.fields(glossary.Term))
    assert str(error.value).endswith(f"is not allowed: a known field: {known}")


def test_a_file_that_is_not_toml_is_named_at_the_line_the_parser_stopped():
    text, line = broken("pyodide_widgets", "data/stack.toml", 'layer = "adapt"', "layer = = 1")
    with pytest.raises(EstimatorError) as error:
        data_file.parse(text, "pyodide_widgets/data/stack.toml", data_file.texts)
    assert str(error.value) == (f"pyodide_widgets/data/stack.toml:{line}: the text = 'layer = = 1' is not allowed: "
                                "TOML: Invalid value")


@pytest.mark.parametrize("key, fragment", [
    ("as_of", 'as_of = "2026-11-29"'),  # a key of the root table
    ("steps.collect.rung", 'rung = "gpu"'),  # a key of a table
    ("steps.collect", "[steps.collect]"),  # a table
    ("steps.collect.missing", "[steps.collect]"),  # a missing key: its table's header
])
def test_a_key_is_found_at_its_line(key, fragment):
    text = (ROOT / "pyodide_widgets" / "ten_steps.toml").read_text("utf-8")
    assert data_file.line(text, key) == text[:text.index(fragment)].count("\n") + 1


def test_the_nth_table_of_an_array_is_the_nth_header():
    text = (ROOT / "site_build" / "glossary.toml").read_text("utf-8")
    third = [n for n, line in enumerate(text.splitlines(), 1) if line == "[[terms]]"][2]
    assert data_file.line(text, "terms[2]") == third
    assert data_file.line(text, "terms[2].short") == third + 2


def test_the_shipped_files_load():
    assert data_file.load("pyodide_widgets", "data/audit.toml", data_file.texts)["lanes"]["data"] == "Data"
    assert ten_steps.STEPS["collect"].rung == "gpu"
