""""Cite this page": each page's citation, as plain text and as BibTeX, dated by the build.

The date is the build's (`reproducible.build_time`: SOURCE_DATE_EPOCH, else the last commit's
time), so two builds of one commit cite alike; the commit is the one the site was built from,
left out of a build without git. `section` writes the block the page ends with.
"""

import dataclasses
import datetime
import functools
import html
import re

from site_build.reproducible import day

_text = functools.partial(html.escape, quote=False)  # element text, never an attribute
# What BibTeX reads as markup, and how a field writes each literally.
_BIBTEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
           "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
SECTION_ID = "cite-this-page"


@dataclasses.dataclass(frozen=True)
class Citation:
    site: str  # the site's name, its corporate author
    title: str  # the page's
    url: str
    built: int  # the build's date, seconds since the epoch
    commit: str | None  # the full hash, None without git

    @property
    def key(self) -> str:
        """A BibTeX key: the site's name and the page's path, in letters, digits and dashes."""
        path = self.url.split("://", 1)[-1].partition("/")[2].strip("/") or "home"
        return _slug(self.site) + ":" + _slug(path)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _bibtex_text(text: str) -> str:
    return "".join(_BIBTEX.get(c, c) for c in text)


def plain(c: Citation) -> str:
    """`How LLMs are trained. "Training & Fine-Tuning." Built 1 December 2026 from commit f849e1c. URL`"""
    made = f"Built {day(c.built)}" + (f" from commit {c.commit[:7]}" if c.commit else "")
    return f'{c.site}. "{c.title}." {made}. {c.url}'


def bibtex(c: Citation) -> str:
    when = datetime.datetime.fromtimestamp(c.built, datetime.timezone.utc)
    note = f"Built {when:%Y-%m-%d}" + (f" from commit {c.commit}" if c.commit else "")
    fields = [
        ("title", f"{{{_bibtex_text(c.title)}}}"),
        ("author", f"{{{_bibtex_text(c.site)}}}"),  # double braces: a name BibTeX keeps whole
        ("year", when.strftime("%Y")),
        ("month", when.strftime("%b").lower()),
        ("url", c.url),
        ("note", _bibtex_text(note)),
    ]
    lines = [f"  {name} = {{{value}}}," if name != "month" else f"  {name} = {value}," for name, value in fields]
    return "\n".join([f"@misc{{{c.key},", *lines, "}"])


def section(c: Citation) -> str:
    """The page's "Cite this page" block, as Markdown: a heading, then each form in a code block."""
    return "\n".join([
        f"## Cite this page {{#{SECTION_ID}}}",
        "",
        '<div class="cite" data-search-exclude>',  # every page has one: search would find them all
        "<p>As text:</p>",
        f'<pre class="cite__plain"><code>{_text(plain(c))}</code></pre>',
        "<p>As BibTeX:</p>",
        f'<pre class="cite__bibtex"><code>{_text(bibtex(c))}</code></pre>',
        "</div>",
    ])
