"""Shared helpers of the benchmark scripts: locating ../shared/data and reporting a figure."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
