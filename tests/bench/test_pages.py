"""Which pages a benchmark run measures: those named with --page, of those the site has."""

import dataclasses

import pytest

from bench.runtime import FULL, SMOKE, MeasurementError, pages_measured, pages_with_widgets

WIDGETS = {"/": [], "/a/": ["x"], "/b/": ["x", "y", "z"], "/c/": ["y", "z"]}


def test_every_page_is_measured_unless_pages_are_named():
    assert pages_measured(WIDGETS, FULL) == ["/", "/a/", "/b/", "/c/"]
    assert pages_measured(WIDGETS, dataclasses.replace(FULL, only=("/c/", "/"))) == ["/", "/c/"]


def test_of_the_named_pages_a_smoke_run_measures_the_busiest():
    assert pages_with_widgets(WIDGETS, SMOKE) == ["/b/"]
    assert pages_with_widgets(WIDGETS, dataclasses.replace(SMOKE, only=("/a/", "/c/"))) == ["/c/"]
    assert pages_with_widgets(WIDGETS, dataclasses.replace(FULL, only=("/a/", "/c/"))) == ["/c/", "/a/"]


def test_a_page_the_site_does_not_have_fails_the_run():
    with pytest.raises(MeasurementError, match="no page /d/"):
        pages_measured(WIDGETS, dataclasses.replace(FULL, only=("/d/",)))
