"""The methods page's preset tables are written from the declarations: a column per declared
column, every number through the filter its field declares, its derivation naming the entry."""

from estimators import load_presets
from site_build import derivation, preset_tables

PRESETS = load_presets()


def recording_filters(printed: list) -> dict:
    """Stand-ins for the page's filters: each notes what it printed and how, and shows its name."""
    def make(name):
        def print_(value, *args, **kwargs):
            printed.append((name, derivation.origin_of(value).expression, args, kwargs))
            return f"<{name}>"
        return print_

    return {name: make(name) for name in ("bytes", "count", "duration", "integer", "number", "percent", "plain", "sci", "si", "times")}


def test_every_table_has_its_heading_and_its_declared_columns():
    text = preset_tables.markdown(recording_filters([]))
    for table in PRESETS.tables.values():
        columns = [field.column for field in table.fields if field.column]
        assert f"### {table.title}\n" in text
        assert "| " + " | ".join(columns) + " |" in text
        assert text.count("\n| ") >= len(getattr(PRESETS, table.name)) + 1  # a header and a row per entry


def test_each_number_goes_through_its_declared_filter_named_by_its_entry():
    printed = []
    preset_tables.markdown(recording_filters(printed))
    assert ("bytes", 'load_presets().gpus["h100-sxm"].memory_bytes', (), {"binary": True}) in printed
    assert ("si", 'load_presets().gpus["h100-sxm"].peak_flops["bf16"]', ("FLOP/s",), {}) in printed
    assert ("percent", 'load_presets().runs["llama3-405b"].mfu', (), {}) in printed
    assert ("si", 'load_presets().interconnects["roce-400g"].bandwidth_bytes_per_s', ("B/s",), {}) in printed
    assert ("count", 'load_presets().models["deepseek-v3"].active_params', (), {}) in printed


def test_a_named_entry_shows_by_its_name_and_a_missing_value_by_what_its_field_says():
    text = preset_tables.markdown(recording_filters([]))
    run = PRESETS.run("gpt2-124m-10b-a5000")
    row = next(line for line in text.splitlines() if line.startswith(f"| {run.name} |"))
    assert f"| {PRESETS.gpu(run.gpu).name} |" in row and f"| {PRESETS.model(run.model).name} |" in row
    assert "| not reported |" in row  # no reported MFU range
    top = next(line for line in text.splitlines() if line.startswith(f"| {PRESETS.scale('frontier').name} |"))
    assert "| no upper bound |" in top
