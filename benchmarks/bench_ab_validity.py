"""Benchmark: validity and power of the write-side promotion gate, by simulation (issue 17).

Run as a script::

    python benchmarks/bench_ab_validity.py [--experiments 1000] [--horizon 5000] [--look-every 20] [--seed 17]

Simulates seeded experiments (:mod:`assay.memory.experiments.simulate`: writers, deliveries and
engagement with a known true effect, ICC 0.1 within a writing unit, 5 deliveries per unit on
average) with the gate evaluated after every ``--look-every`` new deliveries up to
``--horizon`` deliveries per arm, next to a naive fixed 95% CI re-checked at every look. Prints,
with and without guards, for a true effect of 0 (false promotions), +0.05 on a 0.30 base rate
(power, median deliveries per arm to promotion) and −0.05 (harmful promotions): each rate with
its exact binomial 95% CI, and the naive/anytime ratio. Exits 1 when a target is missed:

- no effect: anytime-valid false-promotion rate ≤ alpha (0.05);
- −0.05: anytime-valid promotions ≤ 0.5%.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats as sps

from assay.memory.experiments.config import GateParams
from assay.memory.experiments.simulate import simulate

ALPHA = 0.05
TARGET_HARM = 0.005


def _rate(k: int, n: int) -> str:
    ci = sps.binomtest(k, n).proportion_ci(method="exact")
    return f"{k / n:.4f} [{ci.low:.4f}, {ci.high:.4f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=1000, help="simulated experiments per scenario")
    parser.add_argument("--horizon", type=int, default=5000, help="deliveries per arm")
    parser.add_argument("--look-every", type=int, default=20, help="deliveries (both arms) between looks")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args(argv)
    params = GateParams(alpha=ALPHA)
    n = args.experiments
    print(
        f"# {n} experiments per row, look every {args.look_every} deliveries, horizon {args.horizon} per arm, "
        f"base 0.30, ICC 0.1, alpha {ALPHA}, margin {params.margin}, min {params.min_delivered} per arm"
    )
    print(
        "| guards | true effect | anytime-valid promotions [95% CI] | naive promotions [95% CI] | naive/anytime "
        "| median deliveries/arm to promotion (anytime, naive) |"
    )
    print("|---|---|---|---|---|---|")
    failed = []
    for guards in (False, True):
        for i, effect in enumerate((0.0, 0.05, -0.05)):
            t0 = time.perf_counter()
            r = simulate(
                n,
                effect=effect,
                horizon=args.horizon,
                look_every=args.look_every,
                guards=guards,
                params=params,
                seed=args.seed + 10 * i + (100 if guards else 0),
            )
            k_cs, k_nv = int(r.cs_promoted.sum()), int(r.naive_promoted.sum())
            ratio = f"{k_nv / k_cs:.1f}x" if k_cs else ("inf" if k_nv else "-")
            med_cs = int(np.median(r.cs_deliveries[r.cs_promoted])) if k_cs else None
            med_nv = int(np.median(r.naive_deliveries[r.naive_promoted])) if k_nv else None
            print(
                f"| {'on' if guards else 'off'} | {effect:+.2f} | {_rate(k_cs, n)} | {_rate(k_nv, n)} | {ratio} "
                f"| {med_cs}, {med_nv} |  ({time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
            if effect == 0.0 and k_cs / n > ALPHA:
                failed.append(f"false promotions {k_cs / n:.4f} > {ALPHA} (guards {guards})")
            if effect < 0 and k_cs / n > TARGET_HARM:
                failed.append(f"harmful promotions {k_cs / n:.4f} > {TARGET_HARM} (guards {guards})")
    for f in failed:
        print(f"TARGET MISSED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
