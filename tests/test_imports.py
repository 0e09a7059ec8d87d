"""Imports inside the package run one way: no module reaches itself through others (DEVELOPERS'
standard), counted on every import, those made only for type checking too, since a circle there
is still a design where two modules each need the other."""

from __future__ import annotations

import ast
from pathlib import Path

import reclaim

ROOT = Path(reclaim.__file__).parent


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    mods = {_module(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            out |= {t for t in targets if t in mods and t != name}
        graph[name] = out
    return graph


def _circle(graph: dict[str, set[str]], within: str) -> list[str] | None:
    """One circle among the modules under ``within`` (a package's modules; its __init__ left out,
    which gathers names from every module by design), or None."""
    nodes = {n for n in graph if n.startswith(within + ".")}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        path.append(n)
        for m in sorted(graph[n] & nodes):
            if state.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in state and (found := visit(m)):
                return found
        path.pop()
        state[n] = 2
        return None

    for n in sorted(nodes):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_graph_sees_imports():
    graph = _graph()
    assert "reclaim.runner.settings" in graph["reclaim.runner.lifecycle"]
    assert _circle({"p.a": {"p.b"}, "p.b": {"p.a"}}, "p") == ["p.a", "p.b", "p.a"]


def test_runner_imports_run_one_way():
    assert _circle(_graph(), "reclaim.runner") is None
