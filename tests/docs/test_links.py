"""Every markdown link in the repository resolves inside it, and nothing points at the workplace's
``../shared`` folder (the spec lives in docs/spec.md).

A link in any tracked ``.md`` file fails when its target is an absolute path, lies outside the
repository, does not exist, or names a heading anchor (``file.md#anchor``, ``#anchor``) that the
target markdown file does not have. Links with a scheme (``https:``, ``mailto:``) are not checked.
Code blocks and code spans are not links.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_INLINE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+\"[^\"]*\")?\s*\)"
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(\S+)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ANCHOR_TAG = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def _tracked(pattern: str) -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the tracked files)")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", pattern],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return [ROOT / name for name in out.split("\0") if name and (ROOT / name).is_file()]


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, with code spans blanked."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, _CODE_SPAN.sub("", line)))
    return lines


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and reference definition."""
    found = []
    for number, line in _prose_lines(text):
        for match in _INLINE.finditer(line):
            found.append((number, match.group(1).strip("<>")))
        match = _REFERENCE.match(line)
        if match:
            found.append((number, match.group(1).strip("<>")))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = []
    for ch in text:
        if ch in " -_" or unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) == "Mn":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


@cache
def anchors(path: Path) -> frozenset[str]:
    text = path.read_text(encoding="utf-8")
    seen: dict[str, int] = {}
    out = set()
    for _, line in _prose_lines(text):
        match = _HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    out.update(_ANCHOR_TAG.findall(text))
    return frozenset(out)


def problems(path: Path) -> list[str]:
    out = []
    for number, target in links(path.read_text(encoding="utf-8")):
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if _SCHEME.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        if file_part.startswith("/"):
            out.append(f"{where}: an absolute path (link relative to the file)")
            continue
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.is_relative_to(ROOT):
            out.append(f"{where}: points outside the repository")
        elif not resolved.exists():
            out.append(f"{where}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            out.append(f"{where}: no heading with anchor #{fragment}")
    return out


def test_every_markdown_link_resolves_inside_the_repository():
    found = [p for path in _tracked("*.md") for p in problems(path)]
    assert not found, "broken or outside links:\n" + "\n".join(found)


def test_nothing_refers_to_the_shared_folder_outside_the_repository():
    needles = ("../shared", "shared/SPEC.md")
    found = []
    for path in _tracked("*"):
        if path == THIS or path.stat().st_size > 2_000_000:
            continue  # this file names the needles; large files are data (graphs, corpora)
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files
        for number, line in enumerate(text.splitlines(), 1):
            if any(needle in line for needle in needles):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "references to the shared folder (use docs/spec.md):\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("see [spec](../shared/SPEC.md)", "outside the repository"),
        ("see [spec](/work/shared/SPEC.md)", "absolute path"),
        ("see [gone](docs/missing.md)", "no such file"),
        ("see [s5](docs/spec.md#no-such-section)", "no heading"),
        ("[spec]: ../../outside.md", "outside the repository"),
        ("see [self](#nowhere)", "no heading"),
    ],
)
def test_the_checker_catches_bad_links(tmp_path, monkeypatch, text, bad):
    page = ROOT / "README.md"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text)
    assert any(bad in p for p in problems(page)), problems(page)


def test_the_checker_accepts_good_links_and_ignores_code():
    text = (
        "[spec §5](docs/spec.md#5-score-from-tiers) and [web](https://example.org)\n"
        "`[not a link](../shared/x.md)`\n```\n[nor this](../../x)\n```\n"
    )
    assert links(text) == [(1, "docs/spec.md#5-score-from-tiers"), (1, "https://example.org")]
    assert "5-score-from-tiers" in anchors(ROOT / "docs" / "spec.md")
    assert slug("7b. Gap-aware head [C]") == "7b-gap-aware-head-c"
