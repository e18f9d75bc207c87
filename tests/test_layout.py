"""The shape of the source tree (issue 14): module sizes and import cycles.

Both are habits the next engineer relies on — a module past ~400 lines is usually two, and an
import cycle makes every change to one side a change to the other. The allowlist of oversized
modules lives in ``pyproject.toml`` (``[tool.assay.module-size]``), each entry with its reason.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["assay"]["module-size"]


def _sizes() -> dict[str, int]:
    return {
        p.relative_to(SRC).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in sorted((SRC / "assay").rglob("*.py"))
    }


def test_no_module_over_the_limit_unless_allowlisted_with_a_reason():
    cfg = _config()
    limit, allow = cfg["max-lines"], cfg.get("allow", {})
    over = {path: n for path, n in _sizes().items() if n > limit and path not in allow}
    assert not over, f"modules over {limit} lines (split them, or allowlist with a reason in pyproject.toml): {over}"
    for path, reason in allow.items():
        assert isinstance(reason, str) and len(reason) >= 20, f"{path}: the allowlist entry needs its reason"


def test_allowlist_names_only_modules_that_still_need_it():
    cfg = _config()
    sizes = _sizes()
    stale = [p for p in cfg.get("allow", {}) if sizes.get(p, 0) <= cfg["max-lines"]]
    assert not stale, f"allowlisted but missing or within the limit (remove from pyproject.toml): {stale}"


def test_no_import_cycle_between_modules():
    """Module-level import graph of ``assay`` (grimp, import-linter's engine): no strongly connected
    component of more than one module. Imports inside functions count too: a lazy import that
    dodges a cycle is still a cycle."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the dev extra)")
    graph = grimp.build_graph("assay", include_external_packages=False)
    cycles = _strongly_connected(graph.modules, lambda m: graph.find_modules_directly_imported_by(m))
    cycles = [sorted(c) for c in cycles if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def _strongly_connected(nodes, successors) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph has hundreds of modules; recursion is fine too, but
    an explicit stack keeps the limit out of the picture)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[set[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(successors(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(successors(nxt)))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == node:
                        break
                out.append(comp)
    return out


def test_cycle_finder_finds_a_cycle_and_accepts_a_chain():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    comps = [c for c in _strongly_connected(edges, lambda m: edges.get(m, set())) if len(c) > 1]
    assert comps == [{"a", "b", "c"}]
    chain = {"a": {"b"}, "b": {"c"}, "c": set()}
    assert all(len(c) == 1 for c in _strongly_connected(chain, lambda m: chain[m]))
