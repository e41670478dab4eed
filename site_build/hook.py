"""mkdocs hook: each event of the build, in the order mkdocs runs them, handed to
the build package's module for that job (`reproducible`, `project`, `checks`,
`glossary`, `held`, `sections`, `pack`, `assets`, `cache`, `csp`, `failed_build`; the numbers manifest is the macros module's).

Findings are logged as warnings, which `--strict` (build and serve alike) turns
into a failed build. The project's modules are imported inside each event, not
at the top: mkdocs loads this file once per process, and each build must use
the modules that on_config had imported afresh.
"""

import logging
import sys
from pathlib import Path

import jinja2
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent

log = logging.getLogger("mkdocs.hooks.site_build")
_wheel: Path | None = None
_command: str | None = None  # "build", "gh-deploy" or "serve"
_site_dir: str | None = None
_script_hashes: set = set()  # every page's inline scripts, for the _headers policy


def _import_project():
    # mkdocs puts only a hook's own folder on sys.path, and only while it loads the hook.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def on_startup(command, dirty):
    global _command
    _command = command
    _import_project()
    from site_build import reproducible

    reproducible.date_by_last_commit()


@event_priority(100)  # before mkdocs-macros imports the macros module in its own on_config
def on_config(config):
    """Import the project afresh, and refuse to start on bad presets or a bad glossary."""
    global _site_dir
    _site_dir = config.site_dir
    _script_hashes.clear()
    _import_project()
    from site_build import project

    project.forget_modules()
    from site_build import checks, glossary

    if problem := checks.presets_problem():
        raise PluginError(problem)
    terms = glossary.load()
    if problems := glossary.findings(terms):
        raise PluginError("\n".join(problems))
    # The abbr extension marks every use of a term on every page, from the one data file
    # (on_page_content keeps the first in each section).
    config.mdx_configs.setdefault("abbr", {})["glossary"] = glossary.abbreviations(terms)
    if not config.repo_url:  # no repository to edit in (REPO_URL unset): no edit link, rather than mkdocs' warning
        config.edit_uri = None
    return config


def on_pre_build(config):
    global _wheel
    from site_build import checks, pack

    for finding in checks.widget_declaration_findings():
        log.warning(finding)
    _wheel = pack.build_wheel()


def on_files(files, config):
    """The assets, and the list page of every page's derivation cards: last, so that it is rendered
    after every page whose numbers it lists."""
    from mkdocs.structure.files import File
    from site_build import assets, cards

    for file in assets.site_files(config, _wheel):
        files.append(file)
    if files.get_file_from_path(cards.LIST_PAGE):
        raise PluginError(f"docs/{cards.LIST_PAGE}: the build writes this page (every page's derivation cards); rename the file")
    files.append(File.generated(config, cards.LIST_PAGE, content=cards.LIST_MARKDOWN))
    return files


@event_priority(50)  # before mkdocs-macros renders the page: the lint reads what the author typed
def on_page_markdown(markdown, page, config, files):
    from site_build import checks

    if page.file.generated_by:  # the build's own page, no author's
        return markdown
    for finding in checks.page_findings(page.file.abs_src_path, page.file.src_path, markdown):
        log.warning(finding)
    return markdown


def on_env(env, config, files):
    """Keep the theme's compiled templates across builds (most of a rebuild is compiling them again).

    Jinja's bytecode cache stores each template under its name and a checksum
    of its source, so an edited template is compiled afresh, never stale.
    """
    from site_build.cache import CACHE

    folder = CACHE / "jinja"
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
    return env


def on_page_content(html, page, config, files):
    """The raw HTML held out of Markdown's way put back (`held`); each h2 section of the page in a
    section of its own; in each, a term's first use carded."""
    from site_build import glossary, held, sections

    return sections.wrapped(glossary.marked_once(sections.parts(held.put_back(html))))


def on_post_template(output_content, template_name, config):
    from site_build import csp

    return csp.with_policy(output_content, _script_hashes)  # 404.html; other templates have no <head>


def on_post_page(output, page, config):
    from site_build import assets, checks, csp

    for finding in checks.duplicate_ids(page.file.src_path, output):
        log.warning(finding)
    assets.write_chart_specs(output, config.site_dir)
    return csp.with_policy(output, _script_hashes)


def on_post_build(config):
    from site_build import csp

    site = Path(config.site_dir)
    csp.write_headers_file(site, _script_hashes)


def on_serve(server, config, builder):
    from site_build import project

    for folder in project.imported_folders():
        server.watch(str(folder))
    return server


def on_build_error(error):
    # `mkdocs serve` keeps serving the last good pages; a built folder must not pass for one.
    if _command == "serve" or _site_dir is None or not Path(_site_dir).is_dir():
        return
    from site_build import failed_build

    failed_build.leave_marker(_site_dir, error)
