"""Gate + completeness throughput on real FinanceBench answers, one core (target ≥1,000/s).

Baseline measured in the same run: the naive check this gate replaces (every number-looking
token of the answer appears verbatim in the evidence text) — fast and wrong on "1,577" vs
"1577", "(42)", "20%" vs 0.2; the ratio shows what the real parsing and matching cost.
Snapshots are indexed once per evidence set (as `assay eval` does: variants share the data);
index building is included in the timing. The figure is the best of three passes over every answer
after a warm-up pass, each pass's sentences unseen (``_common.clear_sentence_memos`` before it:
until issue 15's tenth pass a 4,096-entry memo held the warm-up's sentences, so the passes re-read
none of them). ``--before SRC`` also times the gate part under
another tree's ``src`` (e.g. main before issue 15 at 609bb0e: ``git worktree add
/tmp/gate-before 609bb0e``) in a subprocess of the same run, and prints the ratio to it.

    python benchmarks/bench_gate_financebench.py [--before /tmp/gate-before/src]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

from _common import clear_sentence_memos, one_core, report, shared_data_or_exit
from assay.grounding import SnapshotIndex, check_answer
from assay.grounding.completeness import completeness
from assay.importers.financebench import import_financebench


def main() -> int:
    one_core()
    cases = list(import_financebench(shared_data_or_exit("financebench")))
    snaps = [c.snapshot() for c in cases]

    def run_gate() -> None:
        indexes: dict[str, SnapshotIndex] = {}
        for case, snap in zip(cases, snaps, strict=True):
            key = snap.fingerprint()
            idx = indexes.get(key)
            if idx is None:
                idx = indexes[key] = SnapshotIndex.build(snap)
            g = check_answer(case.answer, snap, mode="uncited", index=idx)
            completeness(case.answer, snap, g, reference=case.reference)

    number = re.compile(r"\d[\d,.]*")

    def run_naive() -> None:
        for case in cases:
            text = "\n".join(case.sources)
            all(tok in text for tok in number.findall(case.answer))

    run_gate()  # warm-up (imports, regex compilation)
    best = min(_timed(run_gate, before=clear_sentence_memos) for _ in range(3))  # each pass: sentences unseen
    if "--gate-only" in sys.argv:  # the --before subprocess
        print(json.dumps({"answers_per_s": len(cases) / best}))
        return 0
    naive = min(_timed(run_naive) for _ in range(3))
    per_s = len(cases) / best
    if "--before" in sys.argv:
        env = {**os.environ, "PYTHONPATH": sys.argv[sys.argv.index("--before") + 1]}
        done = subprocess.run(
            [sys.executable, __file__, "--gate-only"], env=env, capture_output=True, text=True, check=True
        )
        before = json.loads(done.stdout.strip().splitlines()[-1])["answers_per_s"]
        print(f"main's gate (--before): {before:,.1f} answers/s; ratio {per_s / before:.2f}")
    ok = report(
        f"gate+completeness, {len(cases)} FinanceBench answers",
        per_s,
        "answers/s",
        1000,
        higher_is_better=True,
        baseline=len(cases) / naive,
        baseline_name="verbatim-substring check",
    )
    return 0 if ok else 1


def _timed(fn, before=None) -> float:
    """CPU seconds of ``fn()`` (the target is per core; CPU time is robust to a busy machine), after
    ``before()`` (untimed) when given."""
    if before is not None:
        before()
    t = time.process_time()
    fn()
    return time.process_time() - t


if __name__ == "__main__":
    sys.exit(main())
