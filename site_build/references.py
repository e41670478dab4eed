"""The papers and sources the prose names (references.toml), as Markdown link definitions that the
build adds to every page: a page writes `[the ZeRO paper][zero]` and the address is kept once."""

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

FILE = Path(__file__).resolve().parent / "references.toml"


@dataclass(frozen=True)
class Reference:
    key: str  # the label a page links with: [text][key]
    title: str
    url: str
    names: tuple  # how the prose names the work


@functools.cache
def references() -> tuple:
    data = tomllib.loads(FILE.read_text("utf-8"))
    return tuple(Reference(key, entry["title"], entry["url"], tuple(entry["names"])) for key, entry in data.items())


def definitions() -> str:
    """Every reference as a Markdown link definition, its title shown on hover."""
    return "\n".join(f'[{r.key}]: {r.url} "{r.title}"' for r in references())


def with_definitions(markdown: str) -> str:
    """A page's Markdown with the definitions after it, where they print nothing."""
    return f"{markdown}\n\n{definitions()}\n"
