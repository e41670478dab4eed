"""The hand-typed-number lint: no quantity is typed into the site's Markdown.

Every figure a reader sees is either an input in ``estimators/presets.toml``, with its source, or
the output of an estimator, put on the page by a macro (see ARCHITECTURE.md, "Numbers"). A number typed
into prose silently drifts from the code, so this lint names the file, line and column of each one.

Usage::

    python -m site_build.lint [PATHS...]     # default: docs

Each path is a Markdown file or a directory searched for ``*.md``. Exit status: 0 when no
quantity is found, 1 when one is (one ``path:line:col:`` line per offender, then a summary),
2 when a path does not exist (so a typo cannot pass as a clean run).

What is not read at all (it is code, markup or an address, not prose):

- mkdocs-macros / Jinja: ``{{ ... }}``, ``{% ... %}``, ``{# ... #}``, over any number of lines;
- YAML front matter, fenced code blocks (``` and ~~~), inline code spans, HTML comments,
  ``<script>`` and ``<style>`` elements, HTML tags with their attribute values, HTML entities
  such as ``&#215;``;
- link and image targets ``](...)``, reference definitions ``[x]: url``, bare URLs, footnote
  labels ``[^1]``, attribute lists such as ``{#step-3}`` or ``{ width="300" }``, snippet markers
  ``--8<--``, arXiv identifiers ``arXiv:2407.21783`` and DOIs ``10.48550/...``.

What passes in prose, and why:

- Digits glued to letters on their left, or after a letter and a hyphen, are part of a name or
  identifier: GPT-2, H100, GB200, DeepSeek-V3, ZeRO-3, top-2, FP8, BF16, NF4, uint32, Qwen2.5.
- Digits glued to letters on their right, when those letters are not a unit (see below), are an
  identifier or a formula: 3D, 6ND, 2N, 16Ψ, 1F1B; ordinals 1st, 2nd, 3rd, 4th; decades 1990s.
- A coefficient of a formula: a number times or over a one-letter symbol, "C = 6 × N × D",
  "16 · Ψ", "T/2" (any letter but "a", so "94× a run" is still a multiple).
- "N-bit" names a number format (8-bit Adam, 16-bit floats), as FP16 or INT8 do.
- A version number after a name in ``VERSIONED_NAMES`` (Llama 3, Claude 3.5, ZeRO 3), and an
  index after a word in ``INDEX_WORDS`` (stage 3, stages 0–3, step 1, section 2, layer 12,
  table 5), including lists and ranges that continue it ("steps 1, 2 and 3").
- Years: a four-digit number from 1900 to 2099 with no unit after it ("Hoffmann et al. 2022",
  "(2024)"), and dates ("20 Oct 2026", "Oct 20, 2026", "2026-10-20").
- Ordered-list markers at the start of a line ("1. ", "2) "), also in a heading ("## 3. Data"),
  and citation markers ("[1]", "[2, 3]", "[1–4]").

What fails, as a hand-typed quantity:

- Any other number: "405", "15.6", "3.79e25", "10^25", "1,024", a range "38–43%" (both ends);
  Unicode digits count too: superscripts "10²⁵", vulgar fractions "½".
- A number glued to a magnitude or unit: "16K", "70B", "15.6T", "10GB", "989TFLOPS",
  "16.2EFLOP/s", "40ms", "3h", "40%", "94×", "~5x". A model size is a quantity, so the "8B" of
  "Llama 3 8B" fails even though the "3" passes.
- A number followed by a unit word, after a space or a hyphen ("16 bytes", "30-minute", "2048
  tokens"): this overrides the year and name allowances above.

Known limits: a unitless number from 1900 to 2099 reads as a year ("a context of 2048" passes),
and a number written in words ("ten steps") is never a digit, so never flagged.

Escape hatch, for a rare false positive: ``<!-- lint-numbers: allow -->`` anywhere on a line
allows every number on that line. Prefer a macro; use this only for text that is not a quantity.
"""

from __future__ import annotations

import argparse
import bisect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

MESSAGE = (
    "hand-typed quantity '{text}' — "
    "compute it with a macro or put it in estimators/presets.toml with a source"
)

_ALLOW_LINE = re.compile(r"<!--\s*lint-numbers:\s*allow\s*-->")

# Names that are followed by a version number as a separate word: "Llama 3", "Claude 3.5".
VERSIONED_NAMES = (
    "Llama", "GPT", "Gemini", "Claude", "Mistral", "Qwen", "DeepSeek", "Phi", "Gemma", "Falcon",
    "PaLM", "Chinchilla", "Grok", "OLMo", "ZeRO", "Python", "PyTorch", "CUDA", "RTX",
)
# Words that are followed by an index, not an amount: "stage 3", "section 2".
INDEX_WORDS = (
    "stages?", "steps?", "sections?", "layers?", "figures?", "fig", "tables?", "appendix",
    "equations?", "eq", "chapters?", "parts?", "phases?", "versions?", "pages?", "pp?",
)

# Digits as a reader sees them: any Unicode decimal digit, and superscripts and subscripts.
_D = r"[\d⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉]"
_FRACTIONS = "¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
# One number: grouped or decimal digits, an optional exponent (3.79e25, 1e-4, 10^25), or a fraction.
_NUMBER = re.compile(
    rf"{_D}+(?:[.,]{_D}+)*(?:[eE][+-]?{_D}+|\^[+-]?{_D}+)?[{_FRACTIONS}]?|[{_FRACTIONS}]"
)
_ASCII_NUMBER = r"\d+(?:[.,]\d+)*"

_SPACE = r"[ \t\u00a0\u202f]"  # authors may keep "405 B" together with a no-break space
_END_OF_WORD = r"(?![^\W_])"   # the next character is not a letter or digit

# A unit written straight after the digits: 70B, 16K, 10GB, 989TFLOPS, 40ms, 40%, 94×.
_GLUED_UNIT = re.compile(
    r"(?:"
    r"(?:[kKMGTPE]i?)?(?:B|b|bits?|bytes?|bps|FLOPs?|FLOPS|flops|OPS|Hz|W)(?:/s)?"  # bytes, FLOPs
    r"|[kKmMbBgGtTpP]|bn"                                                       # bare magnitude
    r"|ms|µs|ns|s|min|mins|h|hr|hrs|d"                                          # time
    r"|[%×xX]"                                                                  # share, multiple
    rf"){_END_OF_WORD}"
)
# Letters straight after the digits that make an ordinal (1st, 4th) rather than a unit (4 Th).
_ORDINAL_SUFFIX = re.compile(rf"(?:st|nd|rd|th){_END_OF_WORD}")
# "-bit" after the digits names a number format (8-bit Adam), as FP16 or INT8 do.
_BIT_FORMAT = re.compile(rf"-bits?{_END_OF_WORD}")
_DECADE_SUFFIX = re.compile(rf"s{_END_OF_WORD}")
# A one-letter symbol, a formula's variable (N, D, Ψ, d, r); not "a", which is mostly the article.
_SYMBOL = r"(?<![^\W_])[^\W\d_a](?![^\W_])"
# A number times or over such a symbol is a formula's coefficient: "6 × N × D", "T/2".
_COEFFICIENT_BEFORE_SYMBOL = re.compile(rf"{_SPACE}*[×·⋅/]{_SPACE}*{_SYMBOL}")
_COEFFICIENT_AFTER_SYMBOL = re.compile(rf"{_SYMBOL}{_SPACE}*[×·⋅/]{_SPACE}*\Z")
# A unit word after a space or a hyphen: "16 bytes", "30-minute", "405-billion", "40 %".
_SPACED_UNIT = re.compile(
    rf"(?:{_SPACE}+|-)(?:"
    r"(?i:bytes?|bits?|tokens?|params?|parameters?|GPUs?|TPUs?|nodes?|servers?|racks?|chips?"
    r"|layers?|experts?|heads?|steps?|epochs?|seconds?|secs?|minutes?|mins?|hours?|hrs?"
    r"|days?|weeks?|months?|years?|percent|per cent|times|thousand|million|billion|trillion"
    r"|FLOPs?|FLOP/s|GPU-hours?|watts?)"
    r"|[kKMGTPE]i?B(?:/s)?|[kMGTPE]?FLOPS|[kMGTPE]FLOP/s|ms|s|h|d|[kMG]?W|[KMBTG]"
    rf"){_END_OF_WORD}|{_SPACE}*[%×]"
)
# An index or version word, then any list or range of numbers, ending where the number starts.
_INDEX_OR_VERSION_BEFORE = re.compile(
    rf"\b(?i:{'|'.join(VERSIONED_NAMES + INDEX_WORDS)})(?:\.?{_SPACE}+|-)"
    rf"(?:{_ASCII_NUMBER}(?:{_SPACE}*[-–—,&/]{_SPACE}*|{_SPACE}+(?:and|or|to){_SPACE}+))*\Z"
)

# One attribute of an attribute list: "#id", ".class" or key=value.
_ATTR = r"""(?:[#.][\w-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}]+))"""

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"

# Regions blanked out before numbers are looked for, in this order. Each is code, markup, an
# address or an allowed name, never a typed quantity. Order matters: attribute lists go before
# Jinja because "{#id}" would otherwise open a Jinja comment; fences go before code spans and
# HTML comments because inside a fence a backtick or "<!--" is literal.
_MASKS = tuple(
    re.compile(pattern, flags)
    for pattern, flags in (
        (r"\A---[ \t]*\n.*?^(?:---|\.\.\.)[ \t]*$", re.S | re.M),          # YAML front matter
        (rf"\{{:?[ \t]*{_ATTR}(?:[ \t]+{_ATTR})*[ \t]*\}}", 0),               # attribute lists
        (r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S),                        # Jinja
        # Fenced code; a backtick fence's info string holds no backtick, or it is a code span.
        (r"^[ \t]*(?P<fence>`{3,}(?=[^`\n]*$)|~{3,}).*?(?:^[ \t]*(?P=fence)[`~]*[ \t]*$|\Z)",
         re.S | re.M),
        (r"<!--.*?-->", re.S),                                             # HTML comments
        (r"<(script|style)\b.*?</\1\s*>", re.S | re.I),
        (r"(?<!`)(?P<ticks>`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)(?P=ticks)(?!`)", re.S),  # code
        (r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>", 0),                         # tags, attributes
        (r"&(?:#\d+|#[xX][\da-fA-F]+|\w+);", 0),                           # entities
        (r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)", 0),  # link targets
        (r"^[ \t]*\[(?!\^)[^\]\n]+\]:[ \t]*\S.*$", re.M),                  # reference definitions
        (r"\b(?:https?|ftp)://[^\s<>)\]]+", 0),                            # bare URLs
        (r"\barXiv:[ \t]*\d{4}\.\d{4,5}(?:v\d+)?|\b10\.\d{4,9}/[^\s)\]]+", re.I),  # papers' ids
        (r"-{2}8<-{2}.*$", re.M),                                          # snippet markers
        (r"\[\^[^\]\s]+\]", 0),                                            # footnote labels
        (r"\[\d+(?:[ \t]*[-–,][ \t]*\d+)*\]", 0),                          # citation markers
        (r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?\b", 0),   # ISO dates
        (rf"\b{_DAY}{_SPACE}+{_MONTH}\b\.?(?:,?{_SPACE}+\d{{4}}\b)?", 0),   # 20 Oct 2026
        (rf"\b{_MONTH}\.?{_SPACE}+{_DAY}\b(?:,?{_SPACE}+\d{{4}}\b)?", 0),   # Oct 20, 2026
        (r"^(?:[ \t]*>)*[ \t]*(?:#{1,6}[ \t]+)?\d{1,9}[.)](?=[ \t]|$)", re.M),  # list ordinals
    )
)


@dataclass(frozen=True)
class Finding:
    line: int  # 1-based
    col: int   # 1-based, in characters
    text: str  # the quantity as typed, with its unit when one is attached


def _blank(match: re.Match[str]) -> str:
    # Same length and same newlines, so every later position is still the source's position.
    return re.sub(r"[^\n]", " ", match.group())


def mask_ignored(text: str) -> str:
    """Return `text` with everything that is not prose replaced by spaces."""
    for mask in _MASKS:
        text = mask.sub(_blank, text)
    return text


def _is_year(number: str) -> bool:
    return len(number) == 4 and number.isascii() and number.isdigit() and 1900 <= int(number) < 2100


def _quantity_at(masked: str, match: re.Match[str], line_start: int) -> str | None:
    """The quantity that `match` (a number in `masked`) starts, or None if it is allowed."""
    start, end = match.span()
    number = match.group()
    before = masked[start - 1] if start else " "
    if before.isalnum() or before == "_":
        return None  # H100, FP8, V3: digits inside a name
    if before == "-" and start >= 2 and masked[start - 2].isalpha():
        return None  # GPT-2, ZeRO-3, top-2
    if _ORDINAL_SUFFIX.match(masked, end):
        return None  # 1st, 4th
    if _is_year(number) and number.endswith("0") and _DECADE_SUFFIX.match(masked, end):
        return None  # the 1990s
    if _COEFFICIENT_BEFORE_SYMBOL.match(masked, end) or _COEFFICIENT_AFTER_SYMBOL.search(
            masked, line_start, start):
        return None  # 6 × N × D, 16 · Ψ, T/2
    if unit := _GLUED_UNIT.match(masked, end):
        return masked[start:unit.end()]
    if end < len(masked) and masked[end].isalpha():
        return None  # 3D, 6ND, 1F1B: an identifier or a formula
    if _BIT_FORMAT.match(masked, end):
        return None  # 8-bit Adam, 16-bit floats
    if unit := _SPACED_UNIT.match(masked, end):
        return masked[start:unit.end()]
    if _is_year(number) or _INDEX_OR_VERSION_BEFORE.search(masked, line_start, start):
        return None
    return number


def find_quantities(text: str) -> list[Finding]:
    """Every hand-typed quantity in the Markdown `text`, in order."""
    masked = mask_ignored(text)
    line_starts = [0] + [i + 1 for i, char in enumerate(masked) if char == "\n"]
    allowed_lines = {n for n, line in enumerate(text.split("\n"), 1) if _ALLOW_LINE.search(line)}
    findings = []
    for match in _NUMBER.finditer(masked):
        line = bisect.bisect_right(line_starts, match.start())
        if line in allowed_lines:
            continue
        line_start = line_starts[line - 1]
        if (quantity := _quantity_at(masked, match, line_start)) is not None:
            findings.append(Finding(line, match.start() - line_start + 1, quantity))
    return findings


def markdown_files(paths: list[Path]) -> list[Path]:
    """The Markdown files named by `paths`, directories searched recursively, in sorted order."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.md")) if path.is_dir() else [path])
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m site_build.lint", description=__doc__.partition("\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[Path("docs")],
                        help="Markdown files or directories to search for *.md (default: docs)")
    paths = parser.parse_args(argv).paths
    if missing := [str(path) for path in paths if not path.exists()]:
        print(f"lint-numbers: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    files = markdown_files(paths)
    offenders, offending_files = 0, 0
    for path in files:
        findings = find_quantities(path.read_text(encoding="utf-8"))
        offenders += len(findings)
        offending_files += bool(findings)
        for finding in findings:
            print(f"{path}:{finding.line}:{finding.col}: {MESSAGE.format(text=finding.text)}")
    if offenders:
        noun = "quantity" if offenders == 1 else "quantities"
        print(f"lint-numbers: {offenders} hand-typed {noun} in {offending_files} of {len(files)}"
              " Markdown file(s)")
        return 1
    print(f"lint-numbers: no hand-typed quantity in {len(files)} Markdown file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
