"""Shared helpers of the benchmark scripts: locating ../shared/data and reporting a figure."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data_or_exit(sub: str) -> Path:
    """``../shared/data/<sub>``; exits 0 with a one-line reason when absent (1 under CI=true)."""
    p = SHARED_DATA / sub
    if not p.exists():
        print(f"SKIP: {p} not found (public data lives in ../shared/data)")
        sys.exit(1 if os.environ.get("CI") == "true" else 0)
    return p


def one_core() -> None:
    """Pin the process to one CPU core where the OS allows it (targets are per core)."""
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    except (AttributeError, OSError):
        pass


def package_memos() -> list[Callable[..., Any]]:
    """Every ``functools.lru_cache`` function defined in the loaded ``assay`` modules (each once,
    in its own module)."""
    out = []
    for name, mod in list(sys.modules.items()):
        if name == "assay" or name.startswith("assay."):
            for obj in list(vars(mod).values()):
                if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", None) == name:
                    out.append(obj)
    return out


def clear_sentence_memos() -> int:
    """Clear every memo of the loaded ``assay`` modules keyed by an answer's sentence (a
    :func:`package_memos` function whose first parameter is ``text`` or ``sentence``; in a tree
    with ``assay.grounding.sentence_memo``, those it sizes, and ``label_signs.own_clause``, keyed
    by a fact's context and refilled by the pass's first answer of each snapshot) and return how
    many were cleared.

    A benchmark that gates the same answers in several timed passes calls it before each, so
    every pass reads sentences it has not seen — the figure does not depend on how many of an
    earlier pass's sentences a memo still holds (a 4,096-entry memo held all of TAT-QA's, a
    256-entry one a few memos'). Reads keyed by a label, a period or a question stay warm, as in
    a service; the same rule applies to any tree run with ``--before``."""
    n = 0
    for fn in package_memos():
        wrapped = getattr(fn, "__wrapped__", None)
        try:
            first = next(iter(inspect.signature(wrapped).parameters), None) if wrapped is not None else None
        except (TypeError, ValueError):
            continue
        if first in ("text", "sentence"):
            fn.cache_clear()
            n += 1
    return n


def report(
    name: str,
    figure: float,
    unit: str,
    target: float,
    *,
    higher_is_better: bool,
    baseline: float | None = None,
    baseline_name: str = "",
) -> bool:
    """Print one line: figure, target, ratio to target (and to a same-run baseline); return met?"""
    met = figure >= target if higher_is_better else figure <= target
    ratio = figure / target if target else float("nan")
    sign = "≥" if higher_is_better else "≤"
    line = f"{name}: {figure:,.3f} {unit} (target {sign} {target:,} {unit}; ratio to target {ratio:.2f})"
    if baseline is not None:
        line += f"; same-run baseline [{baseline_name}] {baseline:,.3f} {unit}, ratio {figure / baseline:.2f}"
    print(line + ("  OK" if met else "  MISSED"))
    return met


def statuses_under(src: str, script: str, worktree_hint: str) -> Any:
    """The JSON that ``script`` prints last when run with ``--statuses-only`` under the tree at
    ``src`` (``PYTHONPATH``; a hunt benchmark's ``--before``), or None after a one-line SKIP when
    ``src`` is not a folder (``worktree_hint``: how to make it)."""
    import json
    import subprocess

    if not Path(src).is_dir():
        print(f"SKIP before: {src} not found ({worktree_hint})")
        return None
    done = subprocess.run(
        [sys.executable, script, "--statuses-only"],
        env={**os.environ, "PYTHONPATH": src},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])
