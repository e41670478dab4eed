"""A widget field renamed in FIELDS and not where the module reads it stops the build with the
widget's module, the field and the fix, not a bare KeyError."""

import dataclasses

import pytest

import pyodide_widgets
from site_build import render

WIDGET, PRESET, OLD, NEW = "training_time", "gpt2-124m-10b-a5000", "mfu", "utilisation"


def renamed(field):
    return dataclasses.replace(field, name=NEW) if field.name == OLD else field


def assert_names_module_field_and_fix(error: str, fix: str):
    assert f"pyodide_widgets/widgets/{WIDGET}.py" in error, error
    assert f"names the field {OLD!r}, which FIELDS does not declare" in error, error
    assert fix in error, error


def test_a_field_renamed_in_fields_alone_names_the_module_its_presets_and_the_fix(monkeypatch):
    module = pyodide_widgets.module(WIDGET)
    monkeypatch.setattr(module, "FIELDS", tuple(map(renamed, module.FIELDS)))
    with pytest.raises(render.WidgetError) as caught:
        render._render(WIDGET, PRESET, WIDGET)  # not render(): a cached page would hide the mistake
    # presets() gives every field a value but the new one: that is the one it was renamed to.
    assert_names_module_field_and_fix(str(caught.value), f"presets() names the field {OLD!r}")
    assert f"if it is now {NEW!r}, rename it in presets() too, or declare {OLD!r} in FIELDS again" in str(caught.value)


def test_a_field_renamed_in_fields_and_presets_names_the_module_its_update_and_the_fix(monkeypatch):
    module = pyodide_widgets.module(WIDGET)
    presets = module.presets()
    monkeypatch.setattr(module, "FIELDS", tuple(map(renamed, module.FIELDS)))
    for p in presets.values():
        p["state"][NEW] = p["state"].pop(OLD)
    monkeypatch.setattr(module, "presets", lambda: presets)
    with pytest.raises(render.WidgetError) as caught:
        render._render(WIDGET, PRESET, WIDGET)
    assert_names_module_field_and_fix(str(caught.value), f"rename it in update() too, or declare {OLD!r} in FIELDS again")
