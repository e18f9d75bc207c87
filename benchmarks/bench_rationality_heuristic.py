"""Target (issue #5): the rationality heuristic judges 10,000 traces in ≤ 30 s, end to end.

End to end = ``judge_rationality(summary, backend="heuristic")``: read the summary, resolve and load
10,000 trace files, apply the rules (steps included), aggregate (bootstrap CIs, histograms, bottom-k).
Baseline measured in the same run: ``json.loads`` of the same 10,000 files (the parse floor).
Prints the figure and the ratio to the baseline; exits 1 when the target is missed.
Run: ``.venv/bin/python benchmarks/bench_rationality_heuristic.py``
"""

from __future__ import annotations

import json
import shutil
import sys
import time

from _rationality_workload import build

from assay.judges.rationality import judge_rationality

TARGET_S = 30.0


def main() -> int:
    summary, what = build()
    try:
        rows = json.loads(summary.read_text())["case_results"]
        t0 = time.perf_counter()
        for r in rows:
            json.loads((summary.parent / r["trace_path"]).read_text(encoding="utf-8"))
        parse_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        local, agg = judge_rationality(summary, backend="heuristic")
        judge_s = time.perf_counter() - t0
    finally:
        shutil.rmtree(summary.parent, ignore_errors=True)
    assert agg["n"] == len(rows) and agg["n_missing_trace"] == 0
    ok = judge_s <= TARGET_S
    print(f"rationality heuristic, {what}: {judge_s:.2f} s end to end (target ≤ {TARGET_S:.0f} s); "
          f"json.loads baseline {parse_s:.2f} s; ratio {judge_s / parse_s:.2f}× — {'MET' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
