"""The site's Content-Security-Policy: what a page may load and run.

Scripts come from the site itself, plus the theme's few inline scripts, each
allowed by the sha256 of its exact text (computed from the built page, so a
theme update cannot silently break them); nothing is allowed by
'unsafe-inline' or 'unsafe-eval'. Pyodide compiles WebAssembly, which needs
'wasm-unsafe-eval' (it allows WebAssembly only, not JavaScript's eval), and
Vega's expressions run in vega-interpreter rather than through Function().
Styles may be inline: the theme and Vega's SVG set style attributes.
"""

import base64
import hashlib
import re
from pathlib import Path

# An inline <script> the browser runs: no src, and no type or a JavaScript one
# (a type="application/json" block is data, never run).
_SCRIPT = re.compile(r"<script(?P<attributes>[^>]*)>(?P<text>.*?)</script>", re.S | re.I)
_DATA_TYPE = re.compile(r"""\stype\s*=\s*["']?(?!(text/javascript|module)["'\s>])""", re.I)
# The policy goes right after the charset (which must stay in the first 1024 bytes), or <head>.
_HEAD = re.compile(r"<head[^>]*>\s*(<meta charset[^>]*>)?", re.I)

DIRECTIVES = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'wasm-unsafe-eval'"),  # + the inline scripts' hashes
    ("worker-src", "'self'"),
    ("connect-src", "'self'"),
    ("img-src", "'self' data:"),
    ("style-src", "'self' 'unsafe-inline'"),
    ("font-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
)
# A file named by its content's hash (the theme's bundle.a5f9d56c.min.js) never changes: cached for a year.
HASHED_NAME = re.compile(r"\.[0-9a-f]{8}\.min\.(js|css)$")
# Types a host may not know: Pyodide's worker imports .mjs modules and compiles .wasm as a stream.
TYPES = {".mjs": "text/javascript", ".wasm": "application/wasm"}


def inline_script_hashes(html: str) -> set:
    """'sha256-…' of each inline script a browser would run in `html`."""
    hashes = set()
    for match in _SCRIPT.finditer(html):
        attributes = match.group("attributes")
        if re.search(r"\ssrc\s*=", attributes, re.I) or _DATA_TYPE.search(attributes):
            continue
        digest = hashlib.sha256(match.group("text").encode("utf-8")).digest()
        hashes.add(f"'sha256-{base64.b64encode(digest).decode()}'")
    return hashes


def policy(script_hashes) -> str:
    return "; ".join(
        f"{name} {sources}" + (" " + " ".join(sorted(script_hashes)) if name == "script-src" and script_hashes else "")
        for name, sources in DIRECTIVES
    )


def with_policy(html: str, seen: set) -> str:
    """The page with its policy as the first element of <head> (it governs only what follows it);
    the page's hashes are added to `seen`. A document without <head> (the sitemap) is returned as is."""
    head = _HEAD.search(html)
    if not head:
        return html
    hashes = inline_script_hashes(html)
    seen.update(hashes)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(hashes)}">'
    return html[: head.end()] + meta + html[head.end():]


def headers_file(script_hashes, paths) -> str:
    """`_headers` (Netlify, Cloudflare Pages) for the site's files (`paths`, from its root): the policy
    for every path, with every page's hashes (a page's own <meta> narrows it to its own); the type
    of each .mjs and .wasm file; a year's cache for each file with a hashed name."""
    rules = [("/*", [("Content-Security-Policy", policy(script_hashes)), ("X-Content-Type-Options", "nosniff")])]
    for path in sorted(paths):
        headers = [("Content-Type", kind) for suffix, kind in TYPES.items() if path.endswith(suffix)]
        headers += [("Cache-Control", "public, max-age=31536000, immutable")] if HASHED_NAME.search(path) else []
        if headers:
            rules.append((f"/{path}", headers))
    return "".join(f"{path}\n" + "".join(f"  {name}: {value}\n" for name, value in headers) for path, headers in rules)


def write_headers_file(site: Path, script_hashes):
    """`_headers` in the built `site`, for every file in it."""
    paths = [path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()]
    (site / "_headers").write_text(headers_file(script_hashes, paths), "utf-8")
