"""`make serve` for authors: a wrong macro call fails the rebuild with the same
message as the build, the server keeps running, and the fix (or an edit to an
estimator's input) shows up on the next rebuild."""

import re
import time

import pytest

import estimators
from estimators import units

from harness.site import fetch, mkdocs_serve, throwaway_project

# A rebuild takes a few seconds here; the loops below poll, they do not time anything.
WAIT_SECONDS = 120


def wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    pytest.fail(f"gave up waiting for {what}")


@pytest.fixture
def server(tmp_path):
    """mkdocs serve of a one-page project, started as `make serve` starts it (its rebuilds of the
    real pages are test_serve_rebuilds')."""
    config = throwaway_project(tmp_path, {"broken.md": "# A page\n\nThis page is fine for now.\n"}, with_docs=False)
    log = tmp_path / "serve.log"
    with mkdocs_serve(config, log) as url:
        wait_for(lambda: "This page is fine" in fetch(f"{url}/broken/"), "the first build")
        yield url, tmp_path / "docs" / "broken.md", log


def test_a_wrong_macro_fails_the_rebuild_and_the_fix_is_served(server):
    url, page, log = server
    page.write_text('# A page with a mistake\n\nIt takes {{ run("llama3-40b").params }} to train.\n', "utf-8")
    wait_for(lambda: "An error happened during the rebuild" in log.read_text(), "the failed rebuild")
    output = log.read_text()
    assert "broken.md" in output and "run()" in output and "'llama3-405b'" in output

    page.write_text('# Fixed\n\nIt takes {{ run("llama3-405b").params | count }} parameters.\n', "utf-8")
    # The number is its card's <data> element (and its link to the derivation); its text is what a reader reads.
    shown = f"It takes {units.count(estimators.load_presets().run('llama3-405b').params)} parameters"
    wait_for(lambda: shown in re.sub(r"<[^>]+>", "", fetch(f"{url}/broken/")), "the fixed page")


def test_a_hand_typed_quantity_fails_the_rebuild_and_names_its_line(server):
    url, page, log = server
    page.write_text("# Typed\n\nA checkpoint of 1.2 TB is large.\n", "utf-8")
    wait_for(lambda: "An error happened during the rebuild" in log.read_text(), "the failed rebuild")
    assert "broken.md:3:17: hand-typed quantity '1.2 TB'" in log.read_text()
    assert "1.2 TB" not in fetch(f"{url}/broken/")
