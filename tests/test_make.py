"""The Makefile's entry points as the README names them: `make test` and `make test-fast` run what
they say, and an environment installed from the same lock files is never installed again, however
new the files of a fresh clone are, and whether `.venv` and `node_modules` are folders or links."""

import json
import os
import re
import shutil
import subprocess
import time

from harness.site import ROOT

LOCKS = ("requirements.txt", "package-lock.json", "bench/package-lock.json")
# A test that needs any of these builds the site or opens a browser.
BUILD_OR_BROWSER = ("served_site", "built_site", "site_url", "browser", "chromium_browser")


def dry_run(folder, target: str) -> list[str]:
    """The commands `make -n target` would run in `folder`, as a person's shell would run it: under
    `make test`, make's own variables would have the inner make print the folders it enters."""
    outside_make = {name: value for name, value in os.environ.items() if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "-n", target], cwd=folder, capture_output=True, text=True, check=True, env=outside_make)
    return done.stdout.splitlines()


def stamps(commands: list[str]) -> list[str]:
    """The files an install recipe touches when it is done (its stamp)."""
    return [command.split()[1] for command in commands if command.startswith("touch ")]


def test_an_environment_installed_from_the_same_locks_is_not_installed_again(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copy(ROOT / "Makefile", clone)
    for lock in LOCKS:
        (clone / lock).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / lock, clone / lock)
    first = dry_run(clone, "test")
    assert any("pip install" in command for command in first) and any("npm ci" in command for command in first)
    # Installed once, the environment a link (as in a worktree) and the node modules a folder.
    (tmp_path / "venv").mkdir()
    (clone / ".venv").symlink_to(tmp_path / "venv")
    (clone / "node_modules").mkdir()
    for stamp in stamps(first):
        (clone / stamp).touch()
    # A fresh checkout writes the locks after the environment was made.
    later = time.time() + 60
    for lock in LOCKS:
        os.utime(clone / lock, (later, later))
    [command] = dry_run(clone, "test")
    assert "pytest" in command
    # A lock that says something else installs again.
    with (clone / "requirements.txt").open("a") as requirements:
        requirements.write("# another pin\n")
    assert any("pip install" in command for command in dry_run(clone, "test"))


def test_make_test_fast_runs_tests_that_neither_build_nor_open_a_browser():
    [command] = [line for line in dry_run(ROOT, "test-fast") if "pytest" in line]
    # What pytest would set up for each test it collects, in one process, running none.
    plan = subprocess.run([*command.split(), "-n", "0", "--setup-plan"], cwd=ROOT, capture_output=True, text=True)
    assert plan.returncode == 0, plan.stdout[-2000:] + plan.stderr[-2000:]
    tests = re.findall(r"^\s*(tests/\S+::\S+)", plan.stdout, re.M)
    assert len(tests) > 1000 and not [test for test in tests if test.startswith(("tests/build/", "tests/browser/"))]
    fixtures = set(re.findall(r"SETUP\s+[SPMCF]\s+(\w+)", plan.stdout))
    assert "tmp_path" in fixtures and not fixtures & set(BUILD_OR_BROWSER), sorted(fixtures)


def _satisfies(version: tuple, node_range: str) -> bool:
    """Whether a Node `version` (major, minor, patch) meets an npm `engines` range: alternatives
    joined by `||`, each comparators (`>=18.16`, `<22`, a bare `14` or `6.*` matching that line)."""
    def meets(comparator: str) -> bool:
        op, wanted = re.fullmatch(r"(>=|<=|>|<|=)?\s*v?([\d.x*]+)", comparator).groups()
        parts = [p for p in wanted.split(".") if p not in ("x", "*")]
        bound = tuple(int(p) for p in parts)
        have = version[:len(bound)]
        return {None: have == bound, "=": have == bound, ">=": have >= bound, ">": have > bound,
                "<": have < bound, "<=": have <= bound}[op]
    alternatives = [re.findall(r"(?:>=|<=|>|<|=)?\s*v?[\d.x*]+", alt) for alt in node_range.split("||")]
    return node_range.strip() in ("", "*") or any(alt and all(meets(c) for c in alt) for alt in alternatives)


def test_every_package_make_bench_installs_runs_on_the_node_the_readme_asks_for():
    # The README's floor ("Node 20+"): an npm package declaring a newer one installs with warnings there.
    floor = int(re.search(r"\bNode (\d+)\+", (ROOT / "README.md").read_text("utf-8")).group(1))
    packages = json.loads((ROOT / "bench" / "package-lock.json").read_text("utf-8"))["packages"]
    above = {path: info["engines"]["node"] for path, info in packages.items()
             if isinstance(info.get("engines"), dict) and not _satisfies((floor, 0, 0), info["engines"].get("node", ""))}
    assert above == {}


def test_no_package_either_lock_installs_is_named_by_a_moving_tag():
    # A dependency asked for as "latest" is resolved by `npm ci` on the day it runs: once the tag moves,
    # the lock no longer satisfies it and a fresh clone's install fails. Each such one is pinned by an
    # override in its package.json, which `npm ci` reads instead of the tag.
    for folder in (ROOT, ROOT / "bench"):
        overrides = json.loads((folder / "package.json").read_text("utf-8")).get("overrides", {})
        packages = json.loads((folder / "package-lock.json").read_text("utf-8"))["packages"]
        by_tag = {(path.rsplit("node_modules/", 1)[-1], name)
                  for path, info in packages.items() for name, wanted in (info.get("dependencies") or {}).items()
                  if not re.search(r"\d|^\*$", wanted)}
        unpinned = {(parent, name) for parent, name in by_tag if name not in overrides.get(parent, {})}
        assert unpinned == set(), folder
