"""python -m pyodide_widgets: every widget's --help runs, and a refused value is named by its option
as the reader typed it, with the field's limit, never by the field's name inside the code."""

import functools

import pytest

import pyodide_widgets
from pyodide_widgets import __main__ as cli
from pyodide_widgets.take_away import option

# A value each kind of field refuses.
REFUSED = {"number": "-1", "whole": "-1", "choice": "no-such-option", "multi": "no-such-option", "toggle": "maybe"}


@pytest.fixture
def one_parser(monkeypatch):
    """The parser built once for the module's many runs (it reads every widget's presets)."""
    monkeypatch.setattr(cli, "parser", functools.cache(cli.parser))


@pytest.mark.parametrize("name", pyodide_widgets.WIDGETS)
def test_every_widgets_help_runs_and_lists_its_options(one_parser, capsys, name):
    with pytest.raises(SystemExit) as done:
        cli.main([name, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for field in pyodide_widgets.module(name).FIELDS:
        assert option(field) in out


@pytest.mark.parametrize("name", pyodide_widgets.WIDGETS)
def test_a_refused_value_names_its_option_as_typed_and_what_is_allowed(one_parser, capsys, name):
    for field in pyodide_widgets.module(name).FIELDS:
        value = REFUSED[field.kind]
        assert cli.main([name, option(field), value]) == 2
        out, err = capsys.readouterr()
        assert err.startswith(f"error: {option(field)} {value} is not allowed: "), err
        assert out == "" and "None" not in err

