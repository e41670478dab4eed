"""A widget's state as a reader takes it away: the command line that computes the same outputs.

`python -m pyodide_widgets <widget> --<field> <value> ...` runs the widget's own `update` in
CPython (`pyodide_widgets.__main__`); each value is the field's text as the form holds it
(`contract.form_text`), so the command, the form and the address carry one text per value.
"""

import shlex

from .contract import form_text

PROGRAM = ("python", "-m", "pyodide_widgets")


def option(field) -> str:
    """The command-line option of a field: `token_bytes` is `--token-bytes`."""
    return "--" + field.name.replace("_", "-")


def arguments(name: str, widget, state: dict) -> list:
    """The command's words after the program: the widget, then every field's option and value."""
    words = [name]
    for field in widget.FIELDS:
        words += [option(field), form_text(field, state[field.name])]
    return words


def command(name: str, widget, state: dict) -> str:
    """The shell command, each word quoted as a POSIX shell reads it."""
    return shlex.join([*PROGRAM, *arguments(name, widget, state)])
