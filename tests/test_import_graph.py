"""The core modules import each other without cycles (signature and boundaries sit below cgd and
gaps), and the names that moved keep their old import paths."""

from __future__ import annotations

import ast
import importlib.util


def _sitar_imports(module: str) -> set[str]:
    """Every ``sitar.*`` module that ``module`` imports, at top level or inside functions."""
    path = importlib.util.find_spec(module).origin
    found = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sitar"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("sitar"))
    return found


def test_no_import_cycle_between_cgd_gaps_signature():
    # The core modules form an acyclic graph: signature and boundaries sit below cgd and gaps.
    core = ["sitar.cgd", "sitar.gaps", "sitar.signature", "sitar.text", "sitar.boundaries"]
    graph = {m: _sitar_imports(m) & set(core) for m in core}
    assert "sitar.cgd" not in graph["sitar.signature"]
    done: set[str] = set()

    def visit(node, stack):
        assert node not in stack, f"import cycle: {' -> '.join([*stack, node])}"
        if node in done:
            return
        for nxt in graph[node]:
            visit(nxt, [*stack, node])
        done.add(node)

    for module in core:
        visit(module, [])
    # The names that lived in sitar.cgd stay importable from there.
    from sitar.boundaries import BOUNDARY_WORDS
    from sitar.cgd import BOUNDARY_PUNCTUATION, BOUNDARY_WORDS_VERSION  # noqa: F401
    from sitar.cgd import BOUNDARY_WORDS as cgd_words

    assert cgd_words is BOUNDARY_WORDS
