"""Target (issue #5): the rationality stub judges 10,000 traces in ≤ 5 s, end to end.

End to end = ``judge_rationality(summary, backend="stub")``: read the summary, resolve and load
10,000 trace files, score three axes each, aggregate (bootstrap CIs, histograms, bottom-k).
Baseline measured in the same run: ``json.loads`` of the same 10,000 files (the parse floor).
Prints the figure and the ratio to the baseline; exits 1 when the target is missed.
Run: ``.venv/bin/python benchmarks/bench_rationality_stub.py``
"""

from __future__ import annotations

import sys

from _rationality_workload import time_backend

if __name__ == "__main__":
    sys.exit(time_backend("stub", 5.0))
