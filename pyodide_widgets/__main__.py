"""Command line over the widgets: ``python -m pyodide_widgets <widget> [--<field> value ...] [--json]``.

Runs the widget's `update` on a state given as the form's texts (a field left out takes its
default preset's value) and prints each output as the page shows it, or with ``--json`` the
widget, the state and the outputs, as the page's "Copy as JSON" gives them. A value the widget
refuses exits with status 2 and the message the form would show beside the field.
"""

import argparse
import json
import sys

from estimators.errors import EstimatorError

from . import WIDGETS, module
from .contract import form_text
from .take_away import option


def parser_defaults(widget) -> dict:
    """{field: text} of the widget's default preset, as its options take it when left out."""
    state = next(iter(widget.presets().values()))["state"]
    return {field.name: form_text(field, state[field.name]) for field in widget.FIELDS}


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="python -m pyodide_widgets", description="Compute a widget of the site for one state of its form.")
    sub = root.add_subparsers(dest="widget", required=True, metavar="widget")
    for name in WIDGETS:
        widget = module(name)
        p = sub.add_parser(name, help=widget.TITLE, description=widget.TITLE)
        default = parser_defaults(widget)
        for field in widget.FIELDS:
            what = f"{field.label}, {field.unit}" if field.unit else field.label
            if field.options:
                what += " (" + ", ".join(value for value, _ in field.options) + (", comma-separated)" if field.kind == "multi" else ")")
            elif field.kind == "toggle":
                what += " (true or false)"
            # argparse reads a help text as a %-format ("% of peak" would be a conversion).
            p.add_argument(option(field), dest=field.name, default=default[field.name], help=what.replace("%", "%%"))
        p.add_argument("--json", action="store_true", help="print the widget, the state and the outputs as JSON")
    return root


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    widget = module(args.widget)
    state = {field.name: getattr(args, field.name) for field in widget.FIELDS}
    try:
        outputs = widget.update(state)["outputs"]
    except EstimatorError as error:
        # Each field as its option, with the value typed or its default preset's.
        options = {field.name: (option(field), state[field.name]) for field in widget.FIELDS}
        default = parser_defaults(widget)
        typed = {option(field): state[field.name] for field in widget.FIELDS if state[field.name] != default[field.name]}
        print(f"error: {error.on_command_line(options, typed)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"widget": args.widget, "state": state, "outputs": outputs}, ensure_ascii=False, indent=2))
    else:
        for key, text in outputs.items():
            print(f"{key}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
