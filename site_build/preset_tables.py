"""The methods page's "Presets and their sources": every table of presets.toml, written from its declaration.

Each declared table becomes a heading (its `title`), its `about` paragraph, the
lookup a page reaches one entry by (`gpu("h100-sxm")`), and a
Markdown table with one column per field that declares a `column`. A number
is printed by the units filter its field declares (`printed`, `unit`,
`binary`), reached through `load_presets()` so that its derivation names the
entry (`load_presets().gpus["h100-sxm"].memory_bytes`) and the filter gives it
its card and records it in the numbers manifest, as a page's own
`{{ … | bytes }}` would. A field naming another table's entry shows that
entry's name; a missing value reads as the field's `absent`. A source, the
longest text of a row, shows its citation and folds the rest into a
`<details>`, so that a table keeps the width of the page's column and a row
the height of a line or two.
"""

import html

import estimators
from estimators.provenance import quantity_of
from site_build import derivation


def markdown(filters: dict) -> str:
    """Every table, in the order presets.toml declares them. `filters` are the page's
    units filters by name, as a page calls them (each prints a traced number as a `<data>`)."""
    loaded = estimators.load_presets()
    presets = derivation.traced(loaded, derivation.Origin("load_presets()"))
    return "\n\n".join(_table(presets, table, filters) for table in loaded.tables.values())


def _table(presets, table, filters: dict) -> str:
    columns = [field for field in table.fields if field.column]
    lines = [f"### {table.title}", ""]
    if table.about:
        lines += [table.about, ""]
    first = next(iter(getattr(derivation.plain(presets), table.name)), None)
    if first is not None:  # how a page reaches one entry: the lookup the table declares
        lines += [f'A page reads one as `{table.lookup}("{first}")`.', ""]
    lines.append("| " + " | ".join(field.column for field in columns) + " |")
    lines.append("| " + " | ".join("---" for _ in columns) + " |")
    for _, entry in getattr(presets, table.name).items():
        lines.append("| " + " | ".join(_cell(presets, entry, field, filters) for field in columns) + " |")
    return "\n".join(lines)


# A citation longer than this is cut at a word for the folded source's summary.
SUMMARY_CHARS = 60


def folded_source(text: str) -> str:
    """A source as a <details>: its citation (the text up to its first colon, or its first words) as the
    summary, the whole text inside."""
    cited, colon, _ = text.partition(": ")
    if not colon or len(cited) > SUMMARY_CHARS:
        cited = text[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"
    return f"<details><summary>{html.escape(cited)}</summary>{html.escape(text)}</details>"


def _cell(presets, entry, field, filters: dict) -> str:
    value = getattr(entry, field.name)
    if value is None:
        return html.escape(field.absent)
    if field.name == "source":
        return folded_source(value)
    if field.key_of:  # another table's entry, shown by its name
        loaded = estimators.load_presets()
        holders = [getattr(loaded, loaded.declared[name].holder) for name in field.key_of]
        return html.escape(next(entries[value] for entries in holders if value in entries).name)
    if field.type == "table":
        return "<br>".join(f"{_name(key, field)} {_shown(item, entry, field, filters)}" for key, item in value.items())
    if field.type == "list":
        return ", ".join(_shown(item, entry, field, filters) for item in value)
    return _shown(value, entry, field, filters)


def _shown(value, entry, field, filters: dict) -> str:
    """A value as its field declares it reads: a number through its units filter, a name or a text escaped."""
    declared = quantity_of(type(derivation.plain(entry)), field.name)
    if declared is None:
        return html.escape(_name(value, field) if isinstance(value, str) else "yes" if value else "no")
    if declared.printed == "si":
        return filters["si"](value, declared.unit)
    if declared.binary:
        return filters["bytes"](value, binary=True)
    return filters[declared.printed](value)


def _name(text: str, field) -> str:
    return text.upper() if field.capitals else text
