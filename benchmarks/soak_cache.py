"""Soak: 10,000 perturbation trials against the memo cache; target 0 stale serves.

Run as a script::

    python benchmarks/soak_cache.py [--trials 10000] [--seed 0] [--db sqlite:///…]

Each trial stores a memo for a random snapshot (1–12 facts, 0–2 passages), then requests it
again after one change drawn uniformly from: a fact's value / unit / label / id / period, a
passage edit (all must be ``stale_fingerprint``), nothing or only fields outside the data
(``hit``), the TTL elapsing (``expired``), a gate version bump (``stale_gate``), a synthesis
version bump (``stale_synthesis``), or the stored answer's number moved by one displayed unit
(``regate_failed``). See :mod:`assay.cache.soak` for what counts as a stale serve. Exits 1 on
any stale serve or unexpected status. A 300-trial version runs in the test suite.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from assay.cache import MemoCache
from assay.cache.soak import run_soak


class _Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file in a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="assay-soak-") as tmp:
        clock = _Clock()
        cache = MemoCache(args.db or f"sqlite:///{Path(tmp) / 'soak.db'}", clock=clock)
        t0 = time.perf_counter()
        report = run_soak(cache, args.trials, seed=args.seed, clock=clock)
        secs = time.perf_counter() - t0
    width = max(len(k) for k in report["by_kind"])
    for kind, statuses in report["by_kind"].items():
        print(f"  {kind:<{width}}  " + ", ".join(f"{s} {n}" for s, n in sorted(statuses.items())))
    ok = report["stale_serves"] == 0 and report["unexpected"] == 0
    print(
        f"trials {report['trials']} in {secs:.1f} s; hits {report['hits']}; "
        f"stale serves {report['stale_serves']} (target 0); unexpected statuses {report['unexpected']}   "
        f"{'OK' if ok else 'MISSED'}"
    )
    for line in report["examples"]:
        print("  " + line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
