"""mkdocs hook: each event of the build, in the order mkdocs runs them, handed to
the build package's module for that job (`reproducible`, `project`, `checks`,
`glossary`, `references`, `held`, `sections`, `pack`, `prefetch` (with `render` and `corrections`), `assets`, `cache`, `csp`, `incremental`, `failed_build`; the numbers manifest is
the macros module's).

The build's state (the wheel, the command, the pages' script hashes, what a
`--dirty` rebuild keeps) lives on one plugin object, as mkdocs-material's
plugins keep theirs on a `BasePlugin[Config]` instance; its methods are the
hook's event functions. Findings are logged as warnings, which `--strict` (build and serve alike) turns
into a failed build. The project's modules are imported inside each event, not
at the top: mkdocs loads this file once per process, and each build must use
the modules that on_config kept or had imported afresh.
"""

import logging
import sys
from pathlib import Path

import jinja2
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

ROOT = Path(__file__).resolve().parent.parent

log = logging.getLogger("mkdocs.hooks.site_build")
_DIRTY_WARNING = "A 'dirty' build is being performed"


def _import_project():
    # mkdocs puts only a hook's own folder on sys.path, and only while it loads the hook.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


class SiteBuildConfig(Config):
    """The hook's options: none (mkdocs.yml lists it under `hooks`, which take none)."""


class SiteBuild(BasePlugin[SiteBuildConfig]):
    """The build's jobs at each event, and what they keep between events and, under `mkdocs serve`, between builds."""

    def __init__(self):
        self.wheel: Path | None = None
        self.command: str | None = None  # "build", "gh-deploy" or "serve"
        self.site_dir: str | None = None
        self.script_hashes: set = set()  # every page's inline scripts, for the _headers policy
        self.page_hashes: dict = {}  # {page: its inline scripts' hashes}, this build's
        # `mkdocs serve --dirty` (make serve): what each page added to the shared outputs, kept across
        # rebuilds (mkdocs loads this file once per process), and the shared key they were made under.
        self.dirty = False
        self.records: dict = {}
        self.shared_key: str | None = None
        self.kept_pages: set = set()  # this build's pages whose HTML is the last build's
        self.stamp: frozenset | None = None  # the project's files as the modules this process holds were imported from
        self.terms: tuple = ()  # the glossary's, as this build loaded them

    def on_startup(self, command, dirty):
        self.command = command
        self.dirty = command == "serve" and dirty
        if self.dirty:
            # mkdocs warns that a dirty build may leave other pages stale (which --strict would fail);
            # this hook re-renders every page whenever anything they share changed (on_files).
            logging.getLogger("mkdocs.commands.build").addFilter(lambda record: not record.getMessage().startswith(_DIRTY_WARNING))
        _import_project()
        from site_build import reproducible

        reproducible.date_by_last_commit()

    @event_priority(100)  # before mkdocs-macros imports the macros module in its own on_config
    def on_config(self, config):
        """Import the project afresh if a file of it changed, refuse to start on bad presets or a bad glossary,
        and start the second process on its jobs."""
        self.site_dir = config.site_dir
        self.script_hashes.clear()
        self.page_hashes.clear()
        _import_project()
        from site_build import project

        stamp = project.stamp(Path(config.config_file_path))
        if stamp != self.stamp:
            project.forget_modules()
        self.stamp = stamp
        from site_build import checks, glossary, held, lean

        lean.start_ahead()
        held.forget()

        if problem := checks.presets_problem():
            raise PluginError(problem)
        terms = self.terms = glossary.load()
        if problems := glossary.findings(terms):
            raise PluginError("\n".join(problems))
        # The abbr extension marks every use of a term on every page, from the one data file
        # (on_page_content keeps the first on each page).
        config.mdx_configs.setdefault("abbr", {})["glossary"] = glossary.abbreviations(terms)
        if not config.repo_url:  # no repository to edit in (REPO_URL unset): no edit link, rather than mkdocs' warning
            config.edit_uri = None
        self._start_second_process(config)
        return config

    def _start_second_process(self, config):
        """On the other core, from here on, while this one configures the other plugins, packs the wheel and
        renders the pages up to their widgets: What changed first, whose length the build needs to know in
        on_files (how many pages it takes); then the widgets from the last page's back, so that this process,
        rendering from the first page on, meets the other midway rather than waiting at each widget for the
        one it is making. The figures' optimizer processes are started before it (`lean.start_ahead`)."""
        from mkdocs.structure.files import get_files
        from site_build import corrections, prefetch, render

        pages = [file.content_string for file in get_files(config).documentation_pages()]
        prefetch.start({**corrections.jobs(pages), **dict(reversed(render.jobs(pages).items()))})

    def on_pre_build(self, config):
        from site_build import checks, pack

        for finding in checks.widget_declaration_findings():
            log.warning(finding)
        self.wheel = pack.build_wheel()

    def on_files(self, files, config):
        """The assets; What changed's older pages; the lists of each page's derivation cards with
        their index: last, so that they are rendered after every page whose numbers they list."""
        from mkdocs.structure.files import File
        from site_build import assets, cards, corrections

        for file in assets.site_files(config, self.wheel):
            files.append(file)
        # What changed's older entries on pages of their own, so that each page keeps within the budget.
        for file in [f for f in files.documentation_pages() if "what_changed(" in f.content_string]:
            for src, markdown in corrections.further_pages(file.src_uri):
                files.append(File.generated(config, src, content=markdown))
        pages = [file.src_uri for file in files.documentation_pages()]
        if taken := [src for src in pages if cards.is_list(src)]:
            raise PluginError(f"docs/{taken[0]}: the build writes this page (a list of derivation cards); rename the file")
        for src in pages:  # a list for each page, that of a page which prints no number left out once known (on_env)
            files.append(File.generated(config, cards.list_page(src), content=cards.list_markdown(src)))
        files.append(File.generated(config, cards.LIST_PAGE, content=cards.LIST_MARKDOWN))
        if self.dirty:
            self._keep_unchanged_pages(files, config)
        return files

    def _keep_unchanged_pages(self, files, config):
        """Under `--dirty`, a page whose Markdown is unchanged keeps its HTML only if nothing every page
        shares changed and the last rebuild succeeded (a failed one, --strict's warnings too, reaches
        on_build_error); otherwise every page is rendered again."""
        from site_build import cards, incremental, project

        # The lists of numbers are written at every build, that of a page which printed none never.
        pages = [f for f in files.documentation_pages() if not cards.is_list(f.src_uri)]
        key = incremental.shared_key(project.imported_folders(), Path(config.config_file_path), [f.src_uri for f in pages])
        changed = [f for f in pages if f.is_modified()]
        # Material's search merges a dirty rebuild's entries into the last index by dropping the last
        # entries under the first rebuilt page's URL, which for the home page ("") is every page's.
        whole = (key != self.shared_key or any(f.src_uri not in self.records for f in pages)
                 or any(f.url in ("", ".", "./") for f in changed))
        self.shared_key = key
        if whole:
            self.records.clear()
            for file in pages:
                file.is_modified = lambda: True
            for plugin in config.plugins.values():
                if hasattr(plugin, "search_index_prev"):  # material's search: the index starts afresh
                    plugin.search_index_prev = None
        self.kept_pages.clear()
        self.kept_pages.update(f.src_uri for f in pages if not f.is_modified())
        # The list page, rendered at every build (mkdocs writes a generated page each time), lists a kept page's cards too.
        listed = config.plugins["macros"].site_build.cards
        for page in self.kept_pages:
            if self.records[page].cards:
                listed.keep(self.records[page].cards)

    @event_priority(50)  # before mkdocs-macros renders the page: the lint reads what the author typed
    def on_page_markdown(self, markdown, page, config, files):
        from site_build import checks, references

        if page.file.generated_by:  # the build's own page, no author's
            return markdown
        for finding in checks.page_findings(page.file.abs_src_path, page.file.src_path, markdown):
            log.warning(finding)
        return references.with_definitions(markdown)

    def on_env(self, env, config, files):
        """Leave out the list of each page that printed no number (every page is read by now, and none is
        written yet), and keep the theme's compiled templates across builds (most of a rebuild is
        compiling them again).

        Jinja's bytecode cache stores each template under its name and a checksum
        of its source, so an edited template is compiled afresh, never stale.
        """
        from site_build import cards
        from site_build.cache import CACHE

        printed = {cards.list_page(page.src_uri) for page in config.plugins["macros"].site_build.cards.pages.values()}
        for file in list(files.documentation_pages()):
            if cards.is_list(file.src_uri) and file.src_uri not in {cards.LIST_PAGE, *printed}:
                files.remove(file)
        folder = CACHE / "jinja"
        folder.mkdir(parents=True, exist_ok=True)
        env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        return env

    def on_page_content(self, html, page, config, files):
        """The raw HTML held out of Markdown's way put back (`held`); each h2 section of the page in a
        section of its own; a term's first use on the page carded."""
        from site_build import glossary, held, sections

        links = glossary.card_links(self.terms, page.file, files)
        return sections.wrapped(glossary.marked_once(sections.parts(held.put_back(html)), links))

    def on_post_template(self, output_content, template_name, config):
        from site_build import csp

        return csp.with_policy(output_content, self.script_hashes)  # 404.html; other templates have no <head>

    def on_post_page(self, output, page, config):
        from site_build import assets, checks, compact, csp

        for finding in checks.duplicate_ids(page.file.src_path, output):
            log.warning(finding)
        assets.write_chart_specs(output, config.site_dir)
        hashes = self.page_hashes.setdefault(page.file.src_uri, set())
        output = csp.with_policy(compact.page(output), hashes)
        self.script_hashes.update(hashes)
        return output

    @event_priority(100)  # before mkdocs-macros writes the numbers manifest in its own on_post_build
    def on_post_build(self, config):
        from site_build import csp, incremental

        if self.dirty:
            # A kept page's numbers and scripts into this build's outputs; a rendered page's remembered.
            manifest = config.plugins["macros"].site_build.manifest
            listed = config.plugins["macros"].site_build.cards
            rendered = incremental.records(manifest.entries, self.page_hashes, self.page_hashes,
                                           {page: listed.page_of(page) for page in self.page_hashes})
            for page in sorted(self.kept_pages):
                manifest.entries.extend(self.records[page].entries)
                self.script_hashes.update(self.records[page].script_hashes)
            self.records.update(rendered)
        site = Path(config.site_dir)
        csp.write_headers_file(site, self.script_hashes)
        self._stop_helper_processes()

    def _stop_helper_processes(self):
        from site_build import lean, prefetch

        prefetch.stop()
        lean.stop()  # the figures' optimizer process, if this build started one

    def on_serve(self, server, config, builder):
        from site_build import project

        for folder in project.imported_folders():
            server.watch(str(folder))
        return server

    def on_build_error(self, error):
        self.shared_key = None  # the next rebuild renders every page
        self.stamp = None  # with the project imported afresh
        self._stop_helper_processes()
        # `mkdocs serve` keeps serving the last good pages; a built folder must not pass for one.
        if self.command == "serve" or self.site_dir is None or not Path(self.site_dir).is_dir():
            return
        from site_build import failed_build

        failed_build.leave_marker(self.site_dir, error)


# mkdocs calls a hook module's on_<event> functions: here the methods of the one plugin object this process keeps.
_BUILD = SiteBuild()
on_startup = _BUILD.on_startup
on_config = _BUILD.on_config
on_pre_build = _BUILD.on_pre_build
on_files = _BUILD.on_files
on_page_markdown = _BUILD.on_page_markdown
on_env = _BUILD.on_env
on_page_content = _BUILD.on_page_content
on_post_template = _BUILD.on_post_template
on_post_page = _BUILD.on_post_page
on_post_build = _BUILD.on_post_build
on_serve = _BUILD.on_serve
on_build_error = _BUILD.on_build_error
