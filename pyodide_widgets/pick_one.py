"""Pick-one diagrams: widgets whose options are records of a data file in pyodide_widgets/data/.

Such a widget has one choice field (with Play) and a diagram drawn at build time
(a `figures` module with `draw`); its template, site_build/templates/pick_one.html,
writes every option's content for reading without JavaScript, and the runtime
shows the picked one (`data-when`). `declare` builds the field, the presets and
`update` from the options, so each widget module only says what its options
are and how its one sentence reads.
"""

from estimators import data_file

from .contract import Output, choice, preset, read

TEMPLATE = "pick_one.html"
OUTPUTS = (Output("picked", sentence=True),)


def load(name: str) -> dict:
    """The TOML data file pyodide_widgets/data/<name>.toml (shipped in the wheel): texts only."""
    return data_file.load(__package__, f"data/{name}.toml", data_file.texts)


def declare(field: str, label: str, options: dict, sentence, diagram: dict):
    """(FIELDS, presets, update) for a pick-one widget.

    `options`: {value: {"name": ..., "details": [(heading, text), ...]}} in order;
    `sentence(value)`: the one line that answers for the picked option;
    `diagram`: the datasets its figure draws (the same for every option).
    """
    fields = (choice(field, label, {value: o["name"] for value, o in options.items()}, play=True),)

    def presets() -> dict:
        """The first option: the template's buttons pick the others (one preset shows no preset row)."""
        value, first = next(iter(options.items()))
        return {value: preset(fields, first["name"], {field: value})}

    def update(state: dict) -> dict:
        picked = read(fields, state)[field]
        text = sentence(picked)
        return {"outputs": {"picked": text, "summary": text}, "data": diagram}

    return fields, presets, update
