"""A page's derivation cards, each written once, at the page's end.

A number in prose is a link to its card's entry in "How these numbers were
made", a list the page ends with: the card's first line as the entry's term,
then a line per estimator it went through, linking to its formula, and a line
per input, linking to its source. Formulas and sources are written once below
the list. Two numbers with the same card share one entry, and a source cited
by fifty inputs is written once, so a long page carries its provenance once
rather than once per number.

With JavaScript off the number's link is the way to its card; with it,
site_build/browser/cards.js reads the entry when the card opens and shows it
as a tooltip, each source link replaced by the source's text, so the tooltip
reads as `derivation.card` writes it.
"""

import functools
import html

from site_build import derivation

# Everything the list writes is element text, never an attribute: its quotes need no escaping, and
# the expressions quote every preset key.
_text = functools.partial(html.escape, quote=False)

SECTION_ID = "how-these-numbers-were-made"
HEADING = "How these numbers were made"
ENTRY_ID = "how-{}"
FORMULA_ID = "formula-{}"
SOURCE_ID = "source-{}"


class PageCards:
    """The cards, formulas and sources of the page being rendered, numbered in the order its
    numbers first cite them."""

    def __init__(self):
        self.entries: dict = {}  # card_parts -> entry number
        self.formulas: dict = {}  # (name, formula) -> formula number
        self.sources: dict = {}  # source text -> source number

    def start_page(self) -> None:
        for table in (self.entries, self.formulas, self.sources):
            table.clear()

    def number(self, text: str, value: derivation.Traced) -> str:
        """A printed number: its text, linked to its card's entry, inside a `<data>` holding its value;
        on paper, the entry's number as a note mark."""
        parts = derivation.card_parts(text, value)
        _, formulas, inputs = parts
        for step in formulas:
            self.formulas.setdefault(step, len(self.formulas) + 1)
        for _, source in inputs:
            if source:
                self.sources.setdefault(source, len(self.sources) + 1)
        index = self.entries.setdefault(parts, len(self.entries) + 1)
        # data-note: the entry's number, which a printed page writes after the number (print.css)
        return f'<data class="number" value="{float(value)!r}"><a href="#{ENTRY_ID.format(index)}" data-note="{index}">{text}</a></data>'

    def section(self) -> str:
        """The list every number links to, as one block of raw HTML (Markdown leaves it as written);
        "" for a page that prints no number. Search skips it: it repeats the prose's numbers.

        An entry's line that names a formula or cites a source links to it; cards.js puts the
        linked text in the link's place, so the tooltip reads as `derivation.card` writes it."""
        if not self.entries:
            return ""
        out = [f'<section class="provenance" id="{SECTION_ID}" data-search-exclude>', f"<h2>{HEADING}</h2>", "<dl>"]
        for (first, formulas, inputs), index in self.entries.items():
            out.append(f'<dt id="{ENTRY_ID.format(index)}">{_text(first)}</dt>')
            out += [f'<dd><a href="#{FORMULA_ID.format(self.formulas[step])}">{_text(step[0])}</a></dd>' for step in formulas]
            out += [f"<dd>{self._input(line, source)}</dd>" for line, source in inputs]
        out.append("</dl>")
        if self.formulas:
            out.append(f"<h3>Formulas</h3>\n<ul>{_items(FORMULA_ID, {f'{name}: {said}': i for (name, said), i in self.formulas.items()})}</ul>")
        if self.sources:
            out.append(f"<h3>Sources</h3>\n<ol>{_items(SOURCE_ID, self.sources)}</ol>")
        out.append("</section>")
        return "\n".join(out)

    def _input(self, line: str, source: str) -> str:
        if not source:
            return _text(line)
        number = self.sources[source]
        return f'{_text(line)} (source: <a href="#{SOURCE_ID.format(number)}">{number}</a>)'


def _items(ids: str, numbered: dict) -> str:
    return "".join(f'<li id="{ids.format(index)}">{_text(text)}</li>' for text, index in numbered.items())
