"""MkDocs hook for the docs site: pages include text from its one home in the repository.

The pages under ``docs/`` hold little prose of their own. They pull in the README's sections,
``training/README.md``, the model card, the data cards and the ledger with ``pymdownx.snippets``
(``--8<-- "README.md:serve"``; the README marks its sections with HTML comments that GitHub does not
render). A link in an included file is written relative to that file, not to the page that includes
it, so this hook replaces the snippets preprocessor with one that rewrites each included link:

* to the site page that holds the target: a whole file included by a page, any ``docs/`` page, or, for
  a README anchor, the page that includes the README section with that heading;
* otherwise to the file in the repository on GitHub (``repo_url``), e.g. a JSONL file or a module.

Rewritten page links are absolute (``/cli.md#anchor``) and MkDocs checks them against the docs
(``validation.links.absolute_links: relative_to_docs``), anchors included, so a link that no page can
hold fails the strict build. A relative link whose target is not in the repository is logged as a
warning, which fails the strict build too.

Fenced blocks marked for the README example runner (```` ```bash no-run ````, see
``tests/packaging/readme_examples.py``) keep only their language on the site: Python-Markdown's
fences take one word after the backticks, and the marker would otherwise turn the block into a
paragraph and upset the pairing of every later fence on the page (:func:`site_fences`).

It also makes one page per data card (``data_cards/*.md``, generated under ``data-cards/``) and puts
them in the nav where it lists the glob ``data_cards/*.md``, so a new card is published without
editing the site.
"""

from __future__ import annotations

import functools
import logging
import posixpath
import re
import unicodedata
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from pymdownx.snippets import SnippetExtension, SnippetPreprocessor

log = logging.getLogger("mkdocs.hooks.repo_links")

ROOT = Path(__file__).resolve().parents[1]
CARDS_GLOB = "data_cards/*.md"
CARDS_DIR = "data-cards"

_SNIPPET = re.compile(r"""^\s*-{1,}8<-{1,}\s+(["'])(?P<path>[^"']+)\1\s*$""")
_SECTION = re.compile(
    r"-{1,}8<-{1,}\s+\[\s*(?P<type>start|end)\s*:\s*(?P<name>[a-z][-_0-9a-z]*)\s*\]"
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
# A code span: a run of backticks up to the same run, possibly over lines but not over a blank line.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n)[\s\S])*?(?<!`)\1(?!`)")
_INLINE = re.compile(r"(\]\(\s*)(<[^>]*>|[^\s)]+)")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]]+\]:[ \t]*)(\S+)", re.MULTILINE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (the site's headings use the same rule: ``toc.slugify``)."""
    text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = []
    for ch in text:
        if ch in " -_" or unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) == "Mn":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def _prose(lines: list[str]):
    """Yield (index, line) of the lines outside fenced code blocks."""
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield i, line


_ANCHOR_TAG = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


@functools.cache
def file_anchors(path: str) -> dict[str, frozenset[str]]:
    """GitHub's heading anchors of a repository markdown file, each with the snippet sections
    (``<!-- --8<-- [start:name] -->``) that hold it."""
    lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
    seen: dict[str, int] = {}
    inside: set[str] = set()
    found: dict[str, frozenset[str]] = {}
    for _, line in _prose(lines):
        marker = _SECTION.search(line)
        if marker:
            name = marker.group("name")
            (inside.add if marker.group("type") == "start" else inside.discard)(name)
            continue
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found[base if count == 0 else f"{base}-{count}"] = frozenset(inside)
        for name in _ANCHOR_TAG.findall(line):
            found[name] = frozenset(inside)
    return found


class SiteMap:
    """Which site page holds each repository file, and each README anchor."""

    def __init__(self, repo_url: str) -> None:
        self.repo_url = repo_url.rstrip("/")
        self.pages: dict[str, str] = {}  # repository path -> site page (src_uri)
        self.anchors: dict[str, dict[str, str]] = {}  # repository path -> anchor -> page

    def add_page(self, page: str, text: str) -> None:
        """Record what a page includes (whole files, or named sections of a file)."""
        for line in text.splitlines():
            match = _SNIPPET.match(line)
            if not match:
                continue
            path, _, section = match.group("path").partition(":")
            if section:
                for anchor, sections in file_anchors(path).items():
                    if section in sections:
                        self.anchors.setdefault(path, {})[anchor] = page
            else:
                self.pages[path] = page

    def link(self, target: str, source: str) -> str:
        """The site link for ``target`` written in the repository file ``source``."""
        if _SCHEME.match(target) or target.startswith("/"):
            return target
        path, _, anchor = target.partition("#")
        resolved = (
            posixpath.normpath(posixpath.join(posixpath.dirname(source), path)) if path else source
        )
        fragment = f"#{anchor}" if anchor else ""
        if resolved.startswith("../") or not (ROOT / resolved).exists():
            log.warning("%s links to %r, which is not in the repository", source, target)
            return target
        if anchor and resolved.endswith(".md") and anchor not in file_anchors(resolved):
            log.warning(
                "%s links to %r, but %s has no heading with that anchor", source, target, resolved
            )
            return target
        if anchor and resolved in self.anchors:
            page = self.anchors[resolved].get(anchor)
        else:
            page = self.pages.get(resolved)
            if page is None and resolved == "README.md" and not anchor:
                page = "index.md"
        if page is not None:
            return f"/{page}{fragment}"
        kind = "tree" if (ROOT / resolved).is_dir() else "blob"
        return f"{self.repo_url}/{kind}/main/{resolved}{fragment}"

    def rewrite(self, lines: list[str], source: str) -> list[str]:
        """Rewrite the links of ``lines`` (from ``source``), leaving code blocks and spans alone."""

        def fix(match: re.Match[str]) -> str:
            return match.group(1) + self.link(match.group(2).strip("<>"), source)

        def links(text: str) -> str:
            return _REFERENCE.sub(fix, _INLINE.sub(fix, text))

        def prose(chunk: list[str]) -> list[str]:
            # Code spans may run over several lines, so read the whole run of prose lines at once.
            text, pieces, pos = "\n".join(chunk), [], 0
            for span in _CODE_SPAN.finditer(text):
                pieces += [links(text[pos : span.start()]), span.group(0)]
                pos = span.end()
            return ("".join(pieces) + links(text[pos:])).split("\n")

        out: list[str] = []
        chunk: list[str] = []
        fenced = False
        for line in lines:
            if _FENCE.match(line):
                out.extend(prose(chunk) if not fenced else chunk)
                chunk = []
                out.append(line)
                fenced = not fenced
            else:
                chunk.append(line)
        out.extend(prose(chunk) if not fenced else chunk)
        return out


SITE: SiteMap | None = None

#: A fence opener with the runner's marker: ```` ```bash no-run ````.
_MARKED_FENCE = re.compile(r"^(\s*(?:`{3,}|~{3,})[\w+-]+)\s+no-run\s*$")


def site_fences(lines: list[str]) -> list[str]:
    """``lines`` with the runner's ``no-run`` marker dropped from fence openers."""
    return [_MARKED_FENCE.sub(r"\1", line) for line in lines]


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """The page's own fences without the runner's marker (included files: the snippets step)."""
    return "\n".join(site_fences(markdown.split("\n")))


class _RepoSnippetPreprocessor(SnippetPreprocessor):
    def process_snippet_lines(self, lines: list[str], target: dict[str, Any]) -> list[str]:
        if SITE is None or target.get("is_url"):
            return site_fences(lines)
        source = Path(target["snippet"]).resolve().relative_to(ROOT).as_posix()
        return site_fences(SITE.rewrite(lines, source))


class RepoSnippetExtension(SnippetExtension):
    """``pymdownx.snippets`` whose included links are rewritten for the site (see the module doc)."""

    def extendMarkdown(self, md: Any) -> None:
        self.md = md
        md.registerExtension(self)
        md.preprocessors.register(_RepoSnippetPreprocessor(self.getConfigs(), md), "snippet", 32)


def _cards() -> list[Path]:
    return sorted(ROOT.glob(CARDS_GLOB))


@event_priority(100)  # before other plugins read the markdown extensions
def on_config(config: Any) -> Any:
    global SITE
    file_anchors.cache_clear()  # `mkdocs serve` rebuilds after edits
    SITE = SiteMap(config["repo_url"])
    extensions = config["markdown_extensions"]
    index = extensions.index("pymdownx.snippets")
    options = config["mdx_configs"].pop("pymdownx.snippets", {})
    options["base_path"] = [str(ROOT)]  # included paths are repository paths, wherever mkdocs runs
    extensions[index] = RepoSnippetExtension(**options)
    card_pages = [f"{CARDS_DIR}/{card.name}" for card in _cards()]

    def expand(items: list[Any]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            if item == CARDS_GLOB:
                out += card_pages
            elif isinstance(item, dict):
                out.append({k: expand(v) if isinstance(v, list) else v for k, v in item.items()})
            else:
                out.append(item)
        return out

    config["nav"] = expand(config["nav"] or [])
    return config


def on_files(files: Files, config: Any) -> Files:
    if SITE is None:  # on_config has not run: not built by mkdocs
        raise RuntimeError("docs/hooks.py: on_files ran before on_config")
    for card in _cards():
        src_uri = f"{CARDS_DIR}/{card.name}"
        files.append(File.generated(config, src_uri, content=f'--8<-- "data_cards/{card.name}"\n'))
    for file in files.documentation_pages():
        SITE.pages[f"docs/{file.src_uri}"] = file.src_uri
        SITE.add_page(file.src_uri, file.content_string)
    return files
