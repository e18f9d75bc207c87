"""Gate soundness per perturbation class: false-accept rate (95% Wilson CI) next to gold acceptance.

Sets: TAT-QA gold figures and templated sentences (cited and uncited), FinanceBench correct
answers (uncited) and the bundled example memos. Targets (issue 15), on the 95% upper bound:
cited ≤ 1% per class (≤ 2% ``moved_unit``), uncited ≤ 5%. Prints one table (and ``--json``
the figures); a dataset missing from ../shared/data is skipped with a line.

    python benchmarks/bench_gate_validity.py [--json]
"""

from __future__ import annotations

import json
import sys

from _common import REPO, SHARED_DATA
from assay.grounding.suite import dataset_sets, format_table, run_suite


def main() -> int:
    results = []
    for dataset, src in (
        ("tatqa", SHARED_DATA / "tatqa"),
        ("financebench", SHARED_DATA / "financebench"),
        ("example", REPO / "examples" / "apple_fy2023_memos.jsonl"),
    ):
        if not src.exists():
            print(f"SKIP {dataset}: {src} not found (public data lives in ../shared/data)")
            continue
        for name, mode, cases in dataset_sets(dataset, src):  # type: ignore[arg-type]
            results.append(run_suite(name, cases, mode))
    print(format_table(results))
    if "--json" in sys.argv:
        print(json.dumps([r.to_dict() for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
