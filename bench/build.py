"""Build figures: how long an author waits, against plain mkdocs-material.

On a copy of the project (so its build cache starts empty and the real one is
left alone): a cold build (empty cache), a warm build (cache filled, nothing
changed), and `make serve`'s save-to-reload for a one-line Markdown edit (from
the write to the first time the server serves the edited page). The anchor is
the same pages built, and served, by mkdocs-material alone: the macros plugin
and the project's hooks off, in the same run.
"""

import shutil
import string
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from harness.site import ConfigLoader, copy_project, fetch, mkdocs_build, mkdocs_serve

BUILD_TIMEOUT_S = 300
# How long to wait for a served page to show an edit before calling it a failure.
RELOAD_TIMEOUT_S = 60
POLL_S = 0.01
# The page whose Markdown is edited; it holds widgets, so its rebuild renders them.
EDITED_PAGE = "training"


class BuildError(Exception):
    """A build or a server did not do what it must (as opposed to being slow)."""


@dataclass
class Timings:
    """Seconds, one entry per repeat."""

    cold_build: list[float]
    warm_build: list[float]
    anchor_build: list[float]
    save_to_reload: list[float]
    anchor_save_to_reload: list[float]

    def medians(self) -> dict[str, float]:
        return {name: statistics.median(runs) for name, runs in vars(self).items()}


def anchor_config(project: Path) -> Path:
    """The project's mkdocs.yml with the macros plugin and the hooks off: plain mkdocs-material on the same pages."""
    config = yaml.load((project / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)
    config["plugins"] = [p for p in config["plugins"] if not (p == "macros" or isinstance(p, dict) and "macros" in p)]
    config["hooks"] = []
    config["strict"] = False  # the raw {{ macro }} text and the missing widget assets are expected here
    # Without a repository address the project's hook drops edit_uri, which mkdocs (serve is strict)
    # otherwise refuses as a URL without a scheme; with the hooks off, the anchor drops it too.
    if not config.get("repo_url"):
        config.pop("edit_uri", None)
    # The pages the hook writes (the list of derivation cards) are not there without it: the nav
    # keeps the authors' pages, which are the anchor's (a nav entry without its file fails serve's --strict).
    config["nav"] = [entry for entry in config["nav"] if all((project / "docs" / page).is_file() for page in entry.values())]
    path = project / "mkdocs-anchor.yml"
    path.write_text(yaml.safe_dump(config), "utf-8")
    return path


def timed_build(config: Path, site: Path) -> float:
    started = time.perf_counter()
    done = mkdocs_build(config, site, timeout=BUILD_TIMEOUT_S)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 and "anchor" not in config.name:
        raise BuildError(f"mkdocs build of {config} failed:\n{done.stderr[-2000:]}")
    return elapsed


def wait_for_text(url: str, text: str, timeout_s: float = RELOAD_TIMEOUT_S) -> float:
    """Poll `url` until its body holds `text`, for at most `timeout_s`; the moment it did (perf_counter)."""
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        if text in fetch(url):
            return time.perf_counter()
        time.sleep(POLL_S)
    raise BuildError(f"{url} did not show {text!r} within {timeout_s} s")


def save_to_reload(config: Path, page: Path, url: str, repeats: int, log: Path, flags: tuple | None = None) -> list[float]:
    """Seconds from appending one line to `page` to the server serving it, `repeats` times, under
    `mkdocs serve` with `make serve`'s options (or `flags`)."""
    original = page.read_text("utf-8")
    runs = []
    with mkdocs_serve(config, log, flags=flags) as server:
        # The server's first build, a whole one: the page reaches the theme's script near its end (the
        # minifier leaves out `</html>`, whose end HTML implies).
        wait_for_text(server + url, "javascripts/bundle.", timeout_s=BUILD_TIMEOUT_S)
        for repeat in range(repeats):
            # Letters, not digits: a typed number on a page fails the build (the number lint).
            marker = f"Edited for the benchmark, edit {string.ascii_lowercase[repeat % 26] * (repeat // 26 + 1)}."
            started = time.perf_counter()
            page.write_text(f"{original}\n{marker}\n", "utf-8")
            runs.append(wait_for_text(server + url, marker) - started)
    page.write_text(original, "utf-8")
    return runs


def measure(repeats: int, empty_cache: bool = True, config: Path | None = None) -> Timings:
    """Every build figure, each `repeats` times, on one copy of the project: its first build of each
    repeat from an empty cache, or (`empty_cache` False, a smoke run that only proves each path runs)
    from a copy of the checkout's cache, so that it re-renders nothing the checkout's builds have; or
    on the copy whose config is `config` (a smoke run's, cut to its pages and built once already)."""
    with tempfile.TemporaryDirectory(prefix="bench-build-") as folder:
        if config is None:
            config = copy_project(Path(folder) / "project", with_cache=not empty_cache) / "mkdocs.yml"
        project = config.parent
        anchor = anchor_config(project)
        site = Path(folder) / "site"
        cold, warm, plain = [], [], []
        for _ in range(repeats):
            if empty_cache:
                shutil.rmtree(project / "build", ignore_errors=True)
            cold.append(timed_build(config, site))
            warm.append(timed_build(config, site))
            plain.append(timed_build(anchor, site))
        page = project / "docs" / f"{EDITED_PAGE}.md"
        url = f"/{EDITED_PAGE}/"
        log = Path(folder) / "serve.log"
        return Timings(
            cold_build=cold,
            warm_build=warm,
            anchor_build=plain,
            save_to_reload=save_to_reload(config, page, url, repeats, log),
            # Plain `mkdocs serve`: --dirty without the project's hook would leave other pages stale, and
            # not --strict, as the anchor's builds are not: the pages link to the list of cards the hook
            # writes, which the anchor has not (mkdocs warns of each such link).
            anchor_save_to_reload=save_to_reload(anchor, page, url, repeats, log, flags=()),
        )
