"""Benchmark: ``VerdictStore.retrieve`` top-5 over 100,000 verdicts with 3–8 cost codes each.

Run as a script::

    python benchmarks/bench_verdicts_retrieve.py [--n 100000] [--queries 300] [--baseline-queries 3]

Builds a SQLite store in a temporary folder with ``n`` generated verdicts of the reference
domain (codes drawn Zipf-like from 5,000, so frequent codes have long postings; 40 measure
types; savings log-uniform over 1e2–1e8), loads the index once (cold load reported), then times
``retrieve(query, k=5)`` end to end (revision check, vectorised scoring, top-k, fetching the 5
rows) on one pinned core. Same-run baseline: a Python loop over the rows calling the scalar
``similarity`` — whose top-5 must equal retrieve's for the same queries. Exits 1 when p50 > 20 ms
or the results differ.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import one_core, report

TARGET_P50_MS = 20.0


def make_verdicts(n: int, seed: int = 7) -> list[dict]:
    """``n`` reference-domain verdicts: 3–8 distinct codes (Zipf-like over 5,000; a repeated draw is
    replaced by a uniform one), 40 measure types, savings log-uniform 1e2–1e8. Deterministic in ``seed``."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"CC-{i:04d}" for i in range(5000)])
    weights = 1.0 / np.arange(1, 5001) ** 0.8
    weights /= weights.sum()
    sizes = rng.integers(3, 9, size=n)
    codes = rng.choice(5000, size=int(sizes.sum()), p=weights)
    types = rng.integers(0, 40, size=n)
    savings = np.round(10 ** rng.uniform(2, 8, size=n), 2)
    fill = rng.integers(0, 5000, size=8 * n + 64)  # uniform draws that replace repeated codes
    out, pos = [], 0
    for i in range(n):
        picked = list(dict.fromkeys(codes[pos : pos + sizes[i]].tolist()))
        pos += sizes[i]
        j = 8 * i
        while len(picked) < sizes[i]:
            if fill[j] not in picked:
                picked.append(int(fill[j]))
            j += 1
        cc = vocab[picked].tolist()
        out.append(
            {
                "id": f"v{i:07d}",
                "fields": {
                    "cost_codes": cc,
                    "measure_type": f"type-{types[i]:02d}",
                    "claimed_saving": float(savings[i]),
                },
                "decision": "approve" if i % 3 else "reject",
                "rationale": f"Rationale {i}: checked against invoices.",
                "description": f"Proposal {i} on {', '.join(cc)}.",
            }
        )
    return out


def make_queries(verdicts: list[dict], count: int, seed: int = 11) -> list[dict]:
    """Queries perturbed from stored verdicts (drop/add codes), so most have real matches."""
    rng = np.random.default_rng(seed)
    qs = []
    for j in rng.integers(0, len(verdicts), size=count):
        f = verdicts[j]["fields"]
        codes = list(f["cost_codes"])[: max(1, len(f["cost_codes"]) - 1)] + [f"CC-{rng.integers(0, 5000):04d}"]
        qs.append(
            {
                "fields": {
                    "cost_codes": codes,
                    "measure_type": f["measure_type"],
                    "claimed_saving": f["claimed_saving"] * 1.3,
                }
            }
        )
    return qs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300, help="timed retrieve calls")
    parser.add_argument("--baseline-queries", type=int, default=3, help="queries for the Python-loop baseline")
    args = parser.parse_args(argv)
    one_core()

    from assay.verdicts import DEFAULT_SPEC, VerdictStore, parse_query, similarity

    verdicts = make_verdicts(args.n)
    queries = make_queries(verdicts, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        t0 = time.perf_counter()
        VerdictStore(url).add(verdicts)
        insert_s = time.perf_counter() - t0
        store = VerdictStore(url)
        t0 = time.perf_counter()
        store.retrieve(queries[0], k=5)
        cold_s = time.perf_counter() - t0
        for q in queries[:10]:  # warm-up
            store.retrieve(q, k=5)
        times = []
        for q in queries:
            t0 = time.perf_counter()
            store.retrieve(q, k=5)
            times.append((time.perf_counter() - t0) * 1000)
        p50, p95 = statistics.median(times), float(np.percentile(times, 95))

        # same-run baseline: scalar similarity in a Python loop; also the correctness check
        canon = [(v["id"], DEFAULT_SPEC.validate_fields(v["fields"])) for v in verdicts]
        base_times, same = [], True
        for q in queries[: args.baseline_queries]:
            qf = parse_query(q, DEFAULT_SPEC).fields
            t0 = time.perf_counter()
            scored = [(-similarity(qf, f, DEFAULT_SPEC)[0], vid) for vid, f in canon]
            top = sorted(scored)[:5]
            base_times.append((time.perf_counter() - t0) * 1000)
            got = [(-h.score, h.verdict.id) for h in store.retrieve(q, k=5)]
            same &= got == top
    base = statistics.median(base_times)

    print(
        f"store: n={args.n:,} verdicts, {sum(len(v['fields']['cost_codes']) for v in verdicts):,} codes; "
        f"insert {insert_s:.1f} s; cold index load + first query {cold_s * 1000:.0f} ms"
    )
    print(f"retrieve top-5: {len(times)} queries, p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    ok = report(
        "retrieve top-5 p50",
        p50,
        "ms",
        TARGET_P50_MS,
        higher_is_better=False,
        baseline=base,
        baseline_name="Python loop over rows",
    )
    print(f"speed-up over the Python loop: {base / p50:,.0f}x")
    print(f"top-5 identical to the Python-loop baseline on {len(base_times)} queries: {'yes' if same else 'NO'}")
    return 0 if (ok and same) else 1


if __name__ == "__main__":
    sys.exit(main())
