"""`make serve`'s rebuild of only the pages an edit touched (mkdocs' `--dirty`, made exact).

mkdocs' dirty build re-renders a page only when its Markdown is newer than its HTML, which alone
would miss an edit to what every page is made of. So each rebuild first takes the key of that
shared part: the project's imported packages (their code, presets.toml, the templates, the theme),
the config file, which pages exist, the git state the citations and What changed read, and the
build's date. An unchanged key lets the pages whose Markdown is unchanged keep their HTML; a
changed one, or a failed last build, re-renders every page.

What a kept page put into the build's shared outputs (its printed numbers in the manifest and
their cards on the list page, its inline scripts' hashes in `_headers`) is remembered as a `PageRecord` and put back, so those
outputs read as a full build's. Standard library only; the hook holds the records across builds.
"""

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from site_build import history
from site_build.cache import tree_hash


@dataclasses.dataclass(frozen=True)
class PageRecord:
    """What one page's rendering added to the build's shared outputs."""

    entries: tuple  # its numbers manifest entries (site_build.numbers.Entry), in the order printed
    script_hashes: frozenset
    cards: object = None  # what it put on the list page (site_build.cards.SiteCards.page_of), if it printed numbers


def shared_key(folders: Iterable[Path], config_file: Path, pages: Iterable[str]) -> str:
    """A hash of everything every page is made of besides its own Markdown: the files under
    `folders`, `config_file`, the names of the `pages`, git's state and SOURCE_DATE_EPOCH."""
    inputs = [tree_hash([*folders, Path(config_file)]), sorted(pages), history.state(), os.environ.get("SOURCE_DATE_EPOCH")]
    return hashlib.sha256(json.dumps(inputs).encode()).hexdigest()


def records(entries: Iterable, script_hashes: dict, pages: Iterable[str], cards: dict | None = None) -> dict:
    """{page: its PageRecord} for the `pages` a build rendered, from the build's manifest `entries`,
    {page: the hashes of its inline scripts} and {page: what it put on the list page}."""
    cards = cards or {}
    pages = set(pages)
    by_page = {page: [] for page in pages}
    for entry in entries:
        if entry.page in pages:
            by_page[entry.page].append(entry)
    return {page: PageRecord(tuple(found), frozenset(script_hashes.get(page, ())), cards.get(page))
            for page, found in by_page.items()}
