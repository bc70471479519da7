"""Every module of ``sitar/`` imports the others without a circle, counting imports inside functions
too (a lazy import is still a dependency); the names that moved keep their old import paths."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SITAR = Path(__file__).resolve().parents[2] / "sitar"


def _module_files() -> dict[str, Path]:
    """``sitar.x.y`` -> its file, for every module and package under ``sitar/``."""
    out = {}
    for path in sorted(SITAR.rglob("*.py")):
        parts = list(path.relative_to(SITAR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The ``sitar`` modules that ``module`` imports, at top level or inside functions.

    ``from pkg import name`` counts ``pkg.name`` when that is a module and ``pkg`` otherwise; the
    parent packages that Python imports on the way are not counted (every submodule has them).
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            if not source.startswith("sitar"):
                continue
            submodules = {f"{source}.{a.name}" for a in node.names} & known
            found.update(submodules)
            if len(submodules) < len(node.names):
                found.add(source)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("sitar"))
    return (found & known) - {module}


def _graph() -> dict[str, set[str]]:
    files = _module_files()
    return {m: _imports(m, p, set(files)) for m, p in files.items()}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path = [root]
        stack = [iter(sorted(graph[root]))]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_graph_covers_all_of_sitar():
    graph = _graph()
    assert len(graph) > 40
    for module in ("sitar", "sitar.cgd", "sitar.scorer", "sitar.checkpoint", "sitar.integrity"):
        assert module in graph
    # spot checks of the parser: a plain, a lazy and a submodule import
    assert "sitar.integrity" in graph["sitar.checkpoint"]
    assert "sitar.cgd" in graph["sitar.diagnostics"]  # inside a function
    assert "sitar.modeling.quantize" in graph["sitar.modeling.export"]  # from pkg import module


def test_no_import_cycle_in_sitar():
    cycle = _find_cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"a2"}, "a2": set(), "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_cycle_finder(graph, expected):
    assert _find_cycle(graph) == expected


def test_checkpoint_and_integrity_no_longer_import_each_other():
    graph = _graph()
    assert "sitar.checkpoint" not in graph["sitar.integrity"]
    assert "sitar.integrity" in graph["sitar.checkpoint"]


def test_moved_names_keep_their_old_import_paths():
    from sitar.boundaries import BOUNDARY_WORDS
    from sitar.cgd import BOUNDARY_PUNCTUATION, BOUNDARY_WORDS_VERSION  # noqa: F401
    from sitar.cgd import BOUNDARY_WORDS as cgd_words
    from sitar.cgd import AtomicGap as cgd_atomic
    from sitar.cgd import decompose as cgd_decompose
    from sitar.decomposition import AtomicGap, decompose

    assert cgd_words is BOUNDARY_WORDS
    assert cgd_decompose is decompose and cgd_atomic is AtomicGap
