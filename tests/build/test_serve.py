"""`make serve` for authors: a wrong macro call fails the rebuild with the same
message as the build, the server keeps running, and the fix (or an edit to an
estimator's input) shows up on the next rebuild."""

import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from harness.site import ROOT, throwaway_project

# A rebuild takes a few seconds here; the loops below poll, they do not time anything.
WAIT_SECONDS = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    pytest.fail(f"gave up waiting for {what}")


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return ""


def make_serve_environment() -> dict:
    """The variables `make serve` sets on its mkdocs command line, read from the Makefile's recipe."""
    recipe = subprocess.run(["make", "-n", "serve"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    command = next(line for line in recipe.splitlines() if "mkdocs serve" in line)
    return dict(word.split("=", 1) for word in shlex.split(command) if "=" in word and not word.startswith("-"))


@pytest.fixture
def server(tmp_path):
    """mkdocs serve on a throwaway copy of the docs, started as `make serve` starts it."""
    config = throwaway_project(tmp_path, "This page is fine for now.")
    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, **make_serve_environment(), "NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--strict", "--config-file", str(config),
             "--dev-addr", f"127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_for(lambda: "This page is fine" in fetch(f"{url}/broken/"), "the first build")
            yield url, tmp_path / "docs" / "broken.md", log
        finally:
            process.terminate()
            process.wait(timeout=30)


def test_a_wrong_macro_fails_the_rebuild_and_the_fix_is_served(server):
    url, page, log = server
    page.write_text('# A page with a mistake\n\nIt takes {{ run("llama3-40b").params }} to train.\n', "utf-8")
    wait_for(lambda: "An error happened during the rebuild" in log.read_text(), "the failed rebuild")
    output = log.read_text()
    assert "broken.md" in output and "run()" in output and "'llama3-405b'" in output

    page.write_text('# Fixed\n\nIt takes {{ run("llama3-405b").params | count(0) }} parameters.\n', "utf-8")
    wait_for(lambda: "It takes 405B parameters" in fetch(f"{url}/broken/"), "the fixed page")
