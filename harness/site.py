"""The site as an author builds it and a server serves it: `mkdocs build --strict`
in a subprocess, a throwaway copy of the docs, and a quiet static server."""

import contextlib
import fcntl
import functools
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import yaml

from harness import markup

ROOT = Path(__file__).resolve().parent.parent


def mkdocs_build(config_file: Path, site_dir: Path, site_url: str | None = None, timeout: float | None = None,
                 repo_url: str | None = None) -> subprocess.CompletedProcess:
    """Run `mkdocs build --strict` in a subprocess, as an author would; `repo_url`, the repository the
    pages' edit links open (mkdocs.yml reads it from REPO_URL)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if site_url:
        env["SITE_URL"] = site_url
    if repo_url:
        env["REPO_URL"] = repo_url
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config_file), "--site-dir", str(site_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


class ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml for its nav and hooks, taking an `!ENV [NAME, default]` tag as its default."""


ConfigLoader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node)[-1])


def nav_sources() -> list[str]:
    """The Markdown file of every page in mkdocs.yml's nav, in its order ("index.md", "training.md", ...)."""
    nav = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)["nav"]
    return [source for entry in nav for source in entry.values()]


def nav_paths() -> list[str]:
    """The URL path of every page in mkdocs.yml's nav ("/", "/training/", ...): a new page is tested
    as soon as it is in the nav."""
    return ["/" if source == "index.md" else f"/{source.removesuffix('.md')}/" for source in nav_sources()]


# A page's call of a widget (CONTRIBUTING.md, "Writing a page"), and the widget it names.
_WIDGET_CALL = re.compile(r"""\{\{\s*widget\(\s*["'](\w+)["']""")


def widget_pages() -> dict[str, set]:
    """{URL path: the names of the widgets it calls} of every page in the nav that holds a widget, in the
    nav's order: a widget put on a new page is found as soon as the page is in the nav."""
    # A page the build writes (How the numbers were made) has no Markdown of its own, and no widget.
    markdown = {path: ROOT / "docs" / source for source, path in zip(nav_sources(), nav_paths())}
    calls = {path: set(_WIDGET_CALL.findall(file.read_text("utf-8"))) for path, file in markdown.items() if file.is_file()}
    return {path: names for path, names in calls.items() if names}


def throwaway_project(folder: Path, pages: dict, with_docs: bool = True) -> Path:
    """A project in `folder` with the real config and the extra `pages` ({file name: Markdown}),
    beside a copy of the real docs (or of their files other than pages); returns its mkdocs.yml."""
    docs = folder / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=None if with_docs else shutil.ignore_patterns("*.md"))
    for name, markdown in pages.items():
        (docs / name).write_text(markdown, "utf-8")
    real = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)
    extra_nav = [{Path(name).stem: name} for name in pages]
    # INHERIT keeps every setting (and its !ENV tags) of the real config; paths are made absolute.
    config = {
        "INHERIT": str(ROOT / "mkdocs.yml"),
        "docs_dir": str(docs),
        "hooks": [str(ROOT / hook) for hook in real["hooks"]],
        "theme": {"custom_dir": str(ROOT / real["theme"]["custom_dir"])},  # merged into the real theme's settings
        "nav": (real["nav"] if with_docs else []) + extra_nav,
    }
    # mkdocs-macros looks for its module beside the config file.
    (folder / "macros").symlink_to(ROOT / "macros")
    config_file = folder / "mkdocs.yml"
    config_file.write_text(yaml.safe_dump(config), "utf-8")
    return config_file


# Everything a build reads, copied; what it writes or never reads, left out.
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "site", "tests", "bench", "__pycache__", ".*cache", ".hypothesis")


def copy_project(folder: Path, with_cache: bool = False) -> Path:
    """A copy of the whole project in `folder`, with an empty build cache (build/), or with a copy
    of the checkout's (`with_cache`: what the session's builds made, under the same keys for the
    same sources, so only what the test changes is built again); returns it.

    node_modules is linked, not copied: the build only reads it.
    """
    shutil.copytree(ROOT, folder, ignore=NOT_COPIED)
    (folder / "node_modules").symlink_to(ROOT / "node_modules")
    if with_cache and (ROOT / "build" / "cache").is_dir():
        # A build running beside the test writes each entry as a dot-file first (cache._write_atomically).
        shutil.copytree(ROOT / "build" / "cache", folder / "build" / "cache", ignore=shutil.ignore_patterns(".*"))
    return folder


def only_pages(project: Path, pages: dict) -> Path:
    """Reduce a copy of the project (`copy_project`) to the given `pages` ({file name: Markdown}),
    every other page of its docs removed, in a nav of their own; returns the config that builds them.
    A behaviour that holds page by page is shown on a site of one or two pages in a fraction of the build."""
    for markdown in (project / "docs").rglob("*.md"):
        markdown.unlink()
    # A glossary term's card links to the page that tells more (site_build/glossary.py): each such page stays, its
    # title alone, so that every link lands without the build making what the page holds.
    from site_build import glossary

    linked = {term.link: f"---\ntitle: {glossary.title(term.link)}\n---\n" for term in glossary.load() if term.link}
    for name, markdown in {**linked, **pages}.items():
        (project / "docs" / name).write_text(markdown, "utf-8")
    # INHERIT keeps every setting (and its !ENV tags) of the real config; only the nav changes.
    config_file = project / "pages.yml"
    config_file.write_text(yaml.safe_dump({"INHERIT": "mkdocs.yml", "nav": list(pages)}), "utf-8")
    return config_file


def nav_pages(paths) -> dict:
    """{file name: Markdown} for `only_pages`: the nav's pages at the URL `paths` ("/training/", ...) whole,
    each other page of the nav its title alone, so that every link from one page to another lands."""
    nav = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=ConfigLoader)["nav"]
    whole = {source for source, path in zip(nav_sources(), nav_paths()) if path in paths}
    return {source: (ROOT / "docs" / source).read_text("utf-8") if source in whole else f"---\ntitle: {json.dumps(title)}\n---\n"
            for entry in nav for title, source in entry.items() if (ROOT / "docs" / source).is_file()}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str:
    """The body at `url`, or "" if the server does not answer (yet)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return ""


def _make_serve_words() -> list[str]:
    recipe = subprocess.run(["make", "-n", "serve"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return shlex.split(next(line for line in recipe.splitlines() if "mkdocs serve" in line))


def make_serve_environment() -> dict:
    """The variables `make serve` sets on its mkdocs command line, read from the Makefile's recipe."""
    return dict(word.split("=", 1) for word in _make_serve_words() if "=" in word and not word.startswith("-"))


def make_serve_flags() -> list[str]:
    """The options `make serve` gives `mkdocs serve` (`--strict`, `--dirty`), its address aside."""
    words = _make_serve_words()
    return [word for word in words[words.index("serve") + 1:] if word.startswith("-") and word != "--dev-addr"]


@contextlib.contextmanager
def mkdocs_serve(config_file: Path, log: Path, *extra: str, flags: tuple | None = None):
    """`mkdocs serve` of `config_file` as `make serve` starts it (with its options, or `flags`, and
    the `extra` options), on a free port, its output in `log`; yields its URL.

    A copied project (copy_project) still serves its own code: its hook puts
    its folder first on sys.path.
    """
    port = free_port()
    env = {**os.environ, **make_serve_environment(), "NO_MKDOCS_2_WARNING": "1", "PYTHONUNBUFFERED": "1"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", *(make_serve_flags() if flags is None else flags), *extra, "--config-file", str(config_file),
             "--dev-addr", f"127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=30)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle(self):
        # A browser that aborts a download it no longer needs is not a server error.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass


@contextlib.contextmanager
def serving(handler_class, folder: Path):
    """(server, url): `handler_class` serving `folder` on an ephemeral port of 127.0.0.1, stopped on exit.

    The URL is known before anything is built into `folder`, because
    mkdocs-material's instant navigation only follows links that match
    site_url, port included.
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler_class, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def pages(site: Path) -> list[str]:
    """Every page of a built site as a URL path ("/", "/training/", ...), the 404 page left out."""
    return sorted("/" + "".join(f"{part}/" for part in index.parent.relative_to(site).parts) for index in site.rglob("index.html"))


def build_for(config_file: Path, site: Path, url: str, repo_url: str | None = None):
    """Build `config_file` with --strict into `site`, to be served at `url` (a failed build raises)."""
    done = mkdocs_build(config_file, site, site_url=url + "/", repo_url=repo_url)
    if done.returncode != 0:
        raise RuntimeError(f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}")


@contextlib.contextmanager
def built_and_served(config_file: Path, site: Path, repo_url: str | None = None):
    """Build `config_file` with --strict into `site` and serve it; yields the URL (a failed build raises)."""
    with serving(QuietHandler, site) as (_, url):
        build_for(config_file, site, url, repo_url=repo_url)
        yield url


def built_once(folder: Path, build: Callable[[], None]):
    """`build()` once among the processes that share `folder` (pytest-xdist's workers): the first to come
    builds while the others wait for it, then find it built; a failed build fails each of them, with its message."""
    folder.mkdir(parents=True, exist_ok=True)
    built, failed = folder / ".built", folder / ".failed"
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():
            raise RuntimeError(failed.read_text("utf-8"))
        if built.exists():
            return
        try:
            build()
        except Exception as error:
            failed.write_text(str(error), "utf-8")
            raise
        built.touch()


def listed(site: Path, src_uri: str) -> str:
    """The built list of the numbers of the page whose Markdown is `src_uri` (site_build/cards.py), ""
    for a page that prints none (the build writes no list for it)."""
    from site_build import cards

    path = site / cards.list_page(src_uri).removesuffix(".md") / "index.html"
    return path.read_text("utf-8") if path.is_file() else ""


def number_cards(page_html: str, list_html: str | None = None) -> list:
    """(shown text, card) of each number in prose of a built page, the card read from the list page's
    HTML (site_build/cards.py; `page_html` itself when it holds the list) as cards.js reads it: each
    link within the list replaced by what it links to."""
    page = markup.parse(page_html)
    listing = page if list_html is None else markup.parse(list_html)
    linked = {e.attrs["id"]: e for e in listing.iter(id=True) if e.tag in ("li", "dt")}

    def text(element: markup.Element) -> str:
        return "".join(child if isinstance(child, str)
                       else text(linked[child.attrs["href"][1:]]) if child.tag == "a" and child.attrs.get("href", "").startswith("#")
                       else text(child) for child in element.children)

    lines = {}  # each term of a list of cards, with the lines under it: the card, line by line
    for listed_terms in listing.iter("dl"):
        for child in listed_terms.children:
            if isinstance(child, markup.Element) and child.tag == "dt":
                term = lines[child.attrs.get("id")] = [child]
            elif isinstance(child, markup.Element) and child.tag == "dd":
                term.append(child)

    numbers = [(link, link.attrs["href"].split("#", 1)[1]) for data in page.iter("data", value=True)
               for link in data.children[:1] if isinstance(link, markup.Element) and link.tag == "a" and "#" in link.attrs.get("href", "")]
    return [(text(link), "\n".join(text(line) for line in lines[entry])) for link, entry in numbers]
