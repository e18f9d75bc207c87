"""`assay eval` at scale: 10,000 cases (no LLM) → all four reports in ≤60 s and ≤1 GB peak RSS.

Runs the real CLI in a child process on a generated file (2,500 questions × 4 variants, each
with a 20-fact snapshot and a cited memo, a quarter of them with a sourcing error), and reads
the child's peak RSS from `resource.getrusage(RUSAGE_CHILDREN)`. Baseline measured in the
same run: loading and validating the same case file (the floor any run pays).

    python benchmarks/bench_eval_10k.py
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, report
from assay.cases import load_cases


def write_cases(
    path: Path,
    n_ids: int = 2500,
    variants: tuple[str, ...] = ("single_pass", "debate", "model_b", "model_c"),
    seed: int = 0,
) -> int:
    """Write ``n_ids × len(variants)`` cases; returns the count."""
    rng = random.Random(seed)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for i in range(n_ids):
            facts = [
                {
                    "id": f"F{k}",
                    "label": f"Line item {k}",
                    "value": round(rng.uniform(10, 9999), 1),
                    "unit": "USD millions",
                    "period": "FY2023",
                }
                for k in range(20)
            ]
            for v in variants:
                picks = rng.sample(facts, 3)
                vals = [p["value"] + (rng.choice([0.1, 1.0]) if rng.random() < 0.25 else 0) for p in picks]
                answer = " ".join(
                    f"{p['label']} was ${x:,.1f} million [{p['id']}]." for p, x in zip(picks, vals, strict=True)
                )
                if rng.random() < 0.05:
                    answer = "I cannot answer from the data provided."
                case = {
                    "id": f"q{i}",
                    "variant": v,
                    "slice": f"s{i % 5}",
                    "answer": answer,
                    "facts": facts,
                    "reference": f"${picks[0]['value']:,.1f} million",
                }
                f.write(json.dumps(case) + "\n")
                n += 1
    return n


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        cases_file = Path(tmp) / "cases.jsonl"
        n = write_cases(cases_file)
        t = time.perf_counter()
        load_cases(cases_file)
        load_s = time.perf_counter() - t
        cmd = [
            str(REPO / ".venv" / "bin" / "assay"),
            "eval",
            str(cases_file),
            "--out",
            str(Path(tmp) / "out"),
            "--name",
            "bench",
            "--baseline",
            "single_pass",
        ]
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            print(proc.stderr[-2000:])
            return 1
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        reports = [line for line in proc.stdout.splitlines() if line.startswith("/")]
        print(f"{n} cases → {len(reports)} reports")
        ok = report(
            "eval wall time",
            wall,
            "s",
            60,
            higher_is_better=False,
            baseline=load_s,
            baseline_name="load+validate cases",
        )
        ok &= report("eval peak RSS", peak_mb, "MB", 1024, higher_is_better=False)
        return 0 if ok and len(reports) == 4 else 1


if __name__ == "__main__":
    sys.exit(main())
