"""Benchmark: coverage of the paired bootstrap CI that ``assay claims check`` decides with.

Run as a script::

    python benchmarks/bench_claims_coverage.py [--seeds 2000] [--resamples 2000] [--quick]

Simulates paired runs with a known true delta and counts how often the 95% CI of
``mean(head - base)`` contains it, for the percentile interval (the default), BCa and
Hesterberg's expanded percentile, at n = 200 and n = 30 pairs. Three score distributions (per
case, base and head scores paired through a Gaussian copula with correlation 0.7, so each
marginal is exact and the true delta is the difference of the marginal means):

- ``normal``: base ~ N(0.50, 0.15²), head ~ N(0.55, 0.15²) (delta = 0.05; unbounded, the
  textbook case);
- ``beta``: base ~ Beta(2, 5), head ~ Beta(2.6, 5) (scores in [0, 1], mildly skewed;
  delta = 2.6/7.6 − 2/7 ≈ 0.0564);
- ``skewed``: base ~ Beta(0.3, 3), head ~ Beta(0.4, 3) (most scores near 0, a long right tail, as
  a sparse-success rate is; delta = 0.4/3.4 − 0.3/3.3 ≈ 0.0267).

Target (exit 1 when missed): coverage at n = 200 within [0.93, 0.97] for the default interval on
every distribution. The n = 30 figures are reported, not targeted: the percentile bootstrap is
known to undercover at small n (Efron & Tibshirani 1993, §14.1; Davison & Hinkley 1997, §5.3).
Each figure is printed with its binomial 95% CI (Clopper–Pearson) over the seeds.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats as sps

from assay.stats import bootstrap_ci
from assay.stats.paired import bca_ci, expanded_percentile_ci

DISTRIBUTIONS = {
    "normal": (sps.norm(0.50, 0.15), sps.norm(0.55, 0.15)),
    "beta": (sps.beta(2, 5), sps.beta(2.6, 5)),
    "skewed": (sps.beta(0.3, 3), sps.beta(0.4, 3)),
}
RHO = 0.7


def simulate(dist: str, n: int, seed: int) -> tuple[np.ndarray, float]:
    """``(d, true_delta)``: ``n`` paired differences head − base drawn through the copula."""
    base_d, head_d = DISTRIBUTIONS[dist]
    rng = np.random.default_rng(seed)
    z = rng.multivariate_normal([0.0, 0.0], [[1.0, RHO], [RHO, 1.0]], size=n)
    u = sps.norm.cdf(z)
    return head_d.ppf(u[:, 1]) - base_d.ppf(u[:, 0]), float(head_d.mean() - base_d.mean())


def coverage(dist: str, n: int, seeds: int, resamples: int) -> dict[str, tuple[float, float, float]]:
    hits = {"percentile": 0, "bca": 0, "expanded": 0}
    for s in range(seeds):
        d, delta = simulate(dist, n, 10_000 * n + s)
        for name, ci in (
            ("percentile", bootstrap_ci(d.tolist(), n_resamples=resamples, seed=s)),
            ("bca", bca_ci(d, n_resamples=resamples, seed=s)),
            ("expanded", expanded_percentile_ci(d, n_resamples=resamples, seed=s)),
        ):
            assert ci is not None
            hits[name] += ci[0] <= delta <= ci[1]
    out = {}
    for name, k in hits.items():
        ci = sps.binomtest(k, seeds).proportion_ci(0.95, method="exact")
        out[name] = (k / seeds, ci.low, ci.high)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--quick", action="store_true", help="200 seeds: a smoke run, not the target")
    args = ap.parse_args()
    seeds = 200 if args.quick else args.seeds
    t0 = time.perf_counter()
    print(f"coverage of the 95% paired bootstrap CI over {seeds} seeds, {args.resamples} resamples each")
    print(f"{'distribution':<10} {'n':>4} {'percentile':>24} {'BCa':>24} {'expanded':>24}")
    missed = []
    for dist in DISTRIBUTIONS:
        for n in (200, 30):
            c = coverage(dist, n, seeds, args.resamples)
            cells = [f"{v:.3f} [{lo:.3f}, {hi:.3f}]" for v, lo, hi in (c["percentile"], c["bca"], c["expanded"])]
            print(f"{dist:<10} {n:>4} {cells[0]:>24} {cells[1]:>24} {cells[2]:>24}")
            if n == 200 and not 0.93 <= c["percentile"][0] <= 0.97:
                missed.append(f"{dist} n=200 percentile {c['percentile'][0]:.3f}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    if missed and not args.quick:
        print("target missed: " + "; ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
