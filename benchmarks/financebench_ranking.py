"""FinanceBench: the 16 model configurations ranked by the old and the new eval headline (issue 16).

Old (schema 1): ``composite`` over the answers with a checkable claim only (``no_claims`` left
out) — schema 2's ``composite_answered``. New (schema 2): the headline ``composite``, where a
``no_claims`` answer scores 0 (no FinanceBench question is an expected refusal: its ``Refusal``
labels are answers that declined answerable questions). Each ranking is compared with the human
accuracy of each configuration (share of its answers labelled ``Correct Answer``) by Spearman's ρ
(scipy). Deterministic backends only: the gate, completeness and impersonal rules, no LLM judge.

    python benchmarks/financebench_ranking.py [--resamples 2000]
"""

from __future__ import annotations

import argparse
import sys
import time

from scipy.stats import spearmanr

from _common import shared_data_or_exit
from assay.evaluate import EvalConfig, run_eval
from assay.importers.financebench import import_financebench

CORRECT = "Correct Answer"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per CI")
    args = parser.parse_args()
    cases = list(import_financebench(shared_data_or_exit("financebench")))
    started = time.perf_counter()
    _, agg = run_eval(cases, EvalConfig(name="financebench", n_resamples=args.resamples, seed=0))
    elapsed = time.perf_counter() - started

    accuracy: dict[str, list[bool]] = {}
    for c in cases:
        accuracy.setdefault(c.variant, []).append(c.meta.get("human_label") == CORRECT)
    rows = []
    for name, v in agg["variants"].items():
        dims = v["dims"]
        rows.append(
            {
                "variant": name,
                "n": v["n"],
                "human": sum(accuracy[name]) / len(accuracy[name]),
                "composite": dims["composite"],
                "coverage": dims["coverage"],
                "answered": dims["composite_answered"],
            }
        )
    rank_new = _ranks(rows, lambda r: r["composite"]["mean"])
    rank_old = _ranks(rows, lambda r: r["answered"]["mean"])
    rank_human = _ranks(rows, lambda r: r["human"])

    print(f"FinanceBench: {len(cases)} answers, {len(rows)} configurations, eval in {elapsed:.1f} s (no LLM judge)")
    header = (
        f"{'configuration':<36} {'n':>4} {'human acc':>9} | {'composite [95% CI]':>22} {'new#':>4} | "
        f"{'coverage [95% CI]':>22} | {'answered-only (old)':>19} {'old#':>4} | {'human#':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in sorted(rows, key=lambda r: rank_new[r["variant"]]):
        name = r["variant"]
        print(
            f"{name:<36} {r['n']:>4} {r['human']:>9.3f} | {_ci(r['composite']):>22} {rank_new[name]:>4} | "
            f"{_ci(r['coverage']):>22} | {_mean(r['answered']):>19} {rank_old[name]:>4} | {rank_human[name]:>6}"
        )
    human = [r["human"] for r in rows]
    for label, key in (
        ("new headline composite", "composite"),
        ("old composite (answered only)", "answered"),
        ("coverage", "coverage"),
    ):
        values = [r[key]["mean"] for r in rows]
        rho, p = spearmanr(values, human)
        print(f"Spearman rho vs human accuracy, {label:<30}: {rho:+.3f} (p = {p:.3g}, n = {len(rows)})")
    return 0


def _ranks(rows: list[dict], key) -> dict[str, int]:  # noqa: ANN001  (a callable on a row)
    ordered = sorted(rows, key=lambda r: (-(key(r) if key(r) is not None else -1.0), r["variant"]))
    return {r["variant"]: i + 1 for i, r in enumerate(ordered)}


def _mean(stat: dict) -> str:
    return "—" if stat["mean"] is None else f"{stat['mean']:.3f}"


def _ci(stat: dict) -> str:
    if stat["mean"] is None:
        return "—"
    ci = stat["ci"]
    return f"{stat['mean']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{stat['mean']:.3f}"


if __name__ == "__main__":
    sys.exit(main())
