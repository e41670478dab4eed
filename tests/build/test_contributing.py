"""The contributor guide's list of filters is the registered one, and every declared table is a lookup, so neither can drift."""

import re

import pytest

import estimators
import macros
from harness.site import ROOT

GUIDE = (ROOT / "CONTRIBUTING.md").read_text("utf-8")


def listed(marker: str) -> set:
    block = re.search(rf"<!-- {marker} -->(.*?)<!-- /{marker} -->", GUIDE, re.S)
    assert block, f"CONTRIBUTING.md lost its {marker} list"
    return set(re.findall(r"`([^`]+)`", block.group(1)))


def test_the_guide_lists_every_filter_and_no_other():
    assert listed("filters") == set(macros.registrations()["filters"])


def test_every_declared_table_has_its_lookup_as_a_macro():
    declared = set(estimators.load_presets().lookups)  # one per table presets.toml declares
    assert declared and set(macros.registrations()["lookups"]) - {"load_presets"} == declared


@pytest.mark.parametrize("document", ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"])
def test_the_repository_explains_itself_without_files_outside_it(document):
    text = (ROOT / document).read_text("utf-8")
    assert not re.search(r"DESIGN\.md|BRIEF\.md|shared/", text)
    for target in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (ROOT / target).exists(), f"{document} links to {target}, which is not in the repository"
