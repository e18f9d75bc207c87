"""Memory's rooms import top to bottom only: experiments/replay/agents → learning → retrieval → feedback → top.

Read from the source (every ``import`` statement, at module level or not), so a cycle cannot hide
behind a function-level import: no module of ``assay.memory`` imports a higher room or the package
``assay.memory`` itself, and the import graph inside ``assay.memory`` has no cycle. The package
``__init__`` is the one place allowed to import every room (it wires learning's reranker
resolution into the store it exports).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import assay.memory

MEMORY = Path(assay.memory.__file__).parent
#: Higher imports lower; the top-level modules are 0. ``agents`` (the Agent Framework provider) is an
#: integration over the rooms, beside experiments and replay.
ROOMS = {"experiments": 4, "replay": 4, "agents": 4, "learning": 3, "retrieval": 2, "feedback": 1}


def _modules() -> dict[str, Path]:
    out = {}
    for path in MEMORY.rglob("*.py"):
        parts = ("assay", "memory", *path.relative_to(MEMORY).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known)
    return found


def _layer(module: str) -> int:
    parts = module.split(".")
    return ROOMS.get(parts[2], 0) if len(parts) > 2 else 0


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: _imports(p, set(mods)) - {m} for m, p in mods.items()}


def test_rooms_import_downwards_only():
    graph = _graph()
    assert len(graph) > 25  # the walk found the package
    upward = sorted(
        (m, dep)
        for m, deps in graph.items()
        if m != "assay.memory"
        for dep in deps
        if dep == "assay.memory" or _layer(dep) > _layer(m)
    )
    assert upward == []


def test_no_import_cycle_inside_memory():
    graph = _graph()
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for dep in sorted(graph[m]):
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []


def test_retrieval_serves_what_it_is_given_and_the_package_store_resolves(tmp_path):
    from assay.memory.retrieval.store import MemoryStore as RetrievalStore

    settings = assay.memory.MemorySettings(embedder="hashing", reranker="no-such-reranker")
    url = f"sqlite:///{tmp_path / 'm.db'}"
    assert RetrievalStore(url, settings=settings).reranker is None  # retrieval never chooses one
    with pytest.raises(ValueError, match="unknown reranker 'no-such-reranker'"):
        _ = assay.memory.MemoryStore(url, settings=settings).reranker  # learning resolves the name
