"""Student training throughput and peak RSS on 2 CPU cores: 10,000 pairs/epoch ≤ 8 min, ≤ 3 GB (issue #9).

Run as a script::

    python benchmarks/bench_train_throughput.py [--pairs 2000] [--threads 2] [--max-length 128]

Pairs are LoCoMo questions with a relevant memory (positive) and another memory of the same
conversation (negative) — real lengths (synthetic notes without ../shared/data). The process is
pinned to 2 cores with 2 torch threads; :func:`assay.memory.learning.train.train_pairwise` runs one
epoch over ``--pairs`` pairs (default 2,000 to keep the run bounded; ``--pairs 10000`` runs a
full target epoch) at the defaults (batch 16, ``max_length`` 128). Reported: pairs/s, the time
a 10,000-pair epoch takes at that rate (target ≤ 480 s), and the process's peak RSS (target
≤ 3 GB; ``ru_maxrss``: model, optimiser state, activations). Same-run baseline: forward-only
scoring throughput of the same pairs (both sides scored), so the ratio shows what the backward
pass and the optimiser cost. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time

from _common import SHARED_DATA, report

TARGET_EPOCH_S = 480.0
TARGET_RSS_GB = 3.0
EPOCH_PAIRS = 10_000


def make_pairs(n: int, seed: int = 0):
    """``n`` :class:`~assay.memory.learning.pairs.Pair` objects (see the module docstring)."""
    from assay.memory.learning.pairs import Item, Pair

    rng = random.Random(seed)
    loc = SHARED_DATA / "locomo"
    base = []
    if loc.exists():
        from assay.importers.locomo import import_locomo

        imp = import_locomo(loc)
        text = {m["id"]: m["text"] for m in imp.memories}
        by_scope: dict[str, list[str]] = {}
        for m in imp.memories:
            by_scope.setdefault(m["scope"], []).append(m["id"])
        for q in imp.queries:
            for r in q["relevant"]:
                neg = rng.choice([m for m in by_scope[q["scope"]] if m not in q["relevant"]])
                base.append((q["query"], text[r], text[neg]))
    else:
        words = (
            "budget offsite invoice catering lisbon april march paid team vegetarian project deadline review".split()
        )
        base = [
            (
                " ".join(rng.choices(words, k=10)) + "?",
                " ".join(rng.choices(words, k=18)),
                " ".join(rng.choices(words, k=18)),
            )
            for _ in range(500)
        ]
    rng.shuffle(base)
    out = []
    for i in range(n):
        q, p, ng = base[i % len(base)]
        out.append(
            Pair(f"q{i}", f"q{i}", q, Item(f"p{i}", p, 3, None, None, None), Item(f"n{i}", ng, 0, None, None, None))
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=128)
    args = ap.parse_args(argv)
    try:
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.threads]))
    except (AttributeError, OSError):
        pass
    import torch

    from assay.memory.learning.rerankers import quiet_loading
    from assay.memory.learning.train import TrainConfig, base_model_path, train_pairwise

    torch.set_num_threads(args.threads)
    pairs = make_pairs(args.pairs)
    print(
        f"{len(pairs)} pairs, {args.threads} cores/threads, max_length {args.max_length}; "
        f"load average {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores"
    )
    # baseline: forward-only scoring of the same pairs with the same base model
    from sentence_transformers import CrossEncoder

    with quiet_loading():
        ce = CrossEncoder(
            base_model_path(None)[0], num_labels=1, max_length=args.max_length, local_files_only=True, device="cpu"
        )
    sample = pairs[: min(len(pairs), 1000)]
    flat = [(p.query, p.pos.text) for p in sample] + [(p.query, p.neg.text) for p in sample]
    t = time.perf_counter()
    with torch.inference_mode():
        ce.predict(flat, batch_size=32, show_progress_bar=False)
    fwd_pps = len(sample) / (time.perf_counter() - t)
    del ce
    res = train_pairwise(pairs, TrainConfig(max_length=args.max_length, threads=args.threads, device="cpu"))
    pps = res.pairs_per_s
    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9
    print(
        f"trained {res.pairs} pairs in {res.seconds:.1f} s "
        f"({res.steps} steps; loss {res.loss_first:.3f} → {res.loss_last:.3f}); "
        f"load average at end {os.getloadavg()[0]:.2f}"
    )
    ok = report(
        "training throughput",
        pps,
        "pairs/s",
        EPOCH_PAIRS / TARGET_EPOCH_S,
        higher_is_better=True,
        baseline=fwd_pps,
        baseline_name="forward-only scoring",
    )
    ok &= report("10,000-pair epoch (projected)", EPOCH_PAIRS / pps, "s", TARGET_EPOCH_S, higher_is_better=False)
    ok &= report("peak RSS", rss_gb, "GB", TARGET_RSS_GB, higher_is_better=False)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
