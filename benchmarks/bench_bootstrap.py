"""Benchmark: ``assay.stats.bootstrap_ci`` against ``scipy.stats.bootstrap`` (percentile).

Run as a script::

    python benchmarks/bench_bootstrap.py [--runs 30] [--n 221] [--resamples 10000]

Generates n=221 seeded scores in [0, 1] (a FinanceBench-sized eval), times ``bootstrap_ci``
and ``scipy.stats.bootstrap(..., method="percentile")`` in the same process (median of the
timed runs, after warm-up), and compares the CI ends. Exits 1 when a target is missed:

- ``bootstrap_ci`` median time <= 20 ms;
- max |Δ| of the CI ends vs scipy <= 0.005 (both are Monte Carlo estimates with different
  streams, so this bounds the difference in method, not the seed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

from assay.stats import bootstrap_ci

TARGET_MS = 20.0
TARGET_DELTA = 0.005


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=221, help="number of values (default 221)")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--runs", type=int, default=30, help="timed runs per implementation")
    parser.add_argument("--warmup", type=int, default=3, help="untimed warm-up runs")
    parser.add_argument("--seed", type=int, default=221, help="seed of the generated data")
    args = parser.parse_args(argv)

    data = _make_data(args.n, args.seed)

    def ours() -> tuple[float, float]:
        ci = bootstrap_ci(data, n_resamples=args.resamples, seed=0)
        assert ci is not None
        return ci

    def theirs() -> tuple[float, float]:
        res = sps.bootstrap(
            (data,),
            np.mean,
            method="percentile",
            n_resamples=args.resamples,
            confidence_level=0.95,
            random_state=np.random.default_rng(1),
        )
        return float(res.confidence_interval.low), float(res.confidence_interval.high)

    ours_ms, ours_ci = _median_ms(ours, args.runs, args.warmup)
    scipy_ms, scipy_ci = _median_ms(theirs, args.runs, args.warmup)
    delta = max(abs(ours_ci[0] - scipy_ci[0]), abs(ours_ci[1] - scipy_ci[1]))

    time_ok = ours_ms <= TARGET_MS
    delta_ok = delta <= TARGET_DELTA
    print(f"data: n={args.n}, resamples={args.resamples}, runs={args.runs} (median)")
    print(f"assay bootstrap_ci : {ours_ms:8.2f} ms   target <= {TARGET_MS:.0f} ms   {'OK' if time_ok else 'MISSED'}")
    print(f"scipy bootstrap    : {scipy_ms:8.2f} ms   ratio assay/scipy = {ours_ms / scipy_ms:.2f}")
    print(f"CI assay           : [{ours_ci[0]:.6f}, {ours_ci[1]:.6f}]")
    print(f"CI scipy           : [{scipy_ci[0]:.6f}, {scipy_ci[1]:.6f}]")
    print(f"max |Δ| CI ends    : {delta:.6f}   target <= {TARGET_DELTA}   {'OK' if delta_ok else 'MISSED'}")
    return 0 if (time_ok and delta_ok) else 1


def _make_data(n: int, seed: int) -> np.ndarray:
    """Scores in [0, 1], 4 decimals, skewed like judge scores (Beta(2, 1.2))."""
    rng = np.random.default_rng(seed)
    return np.round(rng.beta(2.0, 1.2, size=n), 4)


def _median_ms(fn: Callable[[], tuple[float, float]], runs: int, warmup: int) -> tuple[float, tuple[float, float]]:
    """Median wall time of ``fn`` in ms over ``runs`` calls after ``warmup`` calls; its result."""
    result = fn()
    for _ in range(max(0, warmup - 1)):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), result


if __name__ == "__main__":
    sys.exit(main())
