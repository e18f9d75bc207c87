"""Verdicts of constructed claims on real runs: FinanceBench variants and tau-bench rationality.

Run as a script (needs ``../shared/data``; builds the runs in a temporary folder through the CLI)::

    python benchmarks/claims_real_runs.py [--seed 0]

- FinanceBench (16 configurations × 113 questions, the gate with no LLM judge): base
  ``gpt-4_oracle``, head each other configuration; statements ``Claim: composite=-5pp`` (the
  configuration is 5 points below the oracle-context GPT-4) and ``Guard: sourcing >= -5pp``.
- tau-bench airline tasks 0–39 (160 trials): base the ``stub`` rationality backend, head the
  ``heuristic`` one; ``Claim: <axis>=+5pp`` on each axis.

The statements are constructed to exercise every verdict on real data, not chosen from the
results: the same two lines for every FinanceBench configuration, one line per axis for tau-bench.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from assay.effects import check_effects, parse_statements, run_scores

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "assay.cli", *args], check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"skipped: {DATA} not found")
        return 0
    tally: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        cli("import", "financebench", str(DATA / "financebench"), "--out", str(t / "fb.jsonl"))
        cli("eval", str(t / "fb.jsonl"), "--out", str(t), "--name", "fb")
        fb = run_scores(json.loads((t / "fb.local.json").read_text()), "fb")
        statements = parse_statements("Claim: composite=-5pp\nGuard: sourcing >= -5pp")
        print("FinanceBench: head − gpt-4_oracle (113 questions)")
        print(f"{'head':<40} {'statement':<34} {'n':>4} {'diff':>7} {'95% CI':>18}  verdict")
        for head in fb.variants:
            if head == "gpt-4_oracle":
                continue
            report = check_effects(fb, fb, statements, base_variant="gpt-4_oracle", head_variant=head, seed=args.seed)
            for c in report.checks:
                tally[c.verdict] += 1
                print(
                    f"{head:<40} {c.statement.text:<34} {c.n_pairs:>4} {c.diff:>+7.3f} "
                    f"[{c.ci[0]:+.3f}, {c.ci[1]:+.3f}]  {c.verdict}"
                )
        cli("import", "taubench", str(DATA / "tau_bench" / "gpt-4o-airline.tasks00-39.json"), "--out", str(t / "tau"))
        runs = {}
        for backend in ("stub", "heuristic"):
            cli(
                "judge",
                "rationality",
                "--eval-summary",
                str(t / "tau" / "summary.json"),
                "--out",
                str(t),
                "--name",
                backend,
                "--backend",
                backend,
            )
            runs[backend] = run_scores(json.loads((t / f"{backend}.local.json").read_text()), backend)
        axes = sorted(runs["stub"].dimensions())
        statements = parse_statements("\n".join(f"Claim: {a}=+5pp" for a in axes))
        report = check_effects(runs["stub"], runs["heuristic"], statements, seed=args.seed)
        print("\ntau-bench airline 0–39: heuristic − stub (160 trials)")
        for c in report.checks:
            tally[c.verdict] += 1
            ci = "—" if c.ci is None else f"[{c.ci[0]:+.3f}, {c.ci[1]:+.3f}]"
            diff = "—" if c.diff is None else f"{c.diff:+.3f}"
            print(f"{c.statement.text:<50} {c.n_pairs:>4} {diff:>7} {ci:>18}  {c.verdict}")
    print("\nverdicts:", dict(sorted(tally.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
