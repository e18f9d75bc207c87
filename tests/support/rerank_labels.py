"""Synthetic exported-label sets for the reranker tests: the right order is known by construction.

Each query is about one topic; its grade-3 memories mention that topic, its grade-0 memories
other topics. ``composite`` sets the recorded composite score: ``"perfect"`` (orders every pair
right), ``"reversed"`` (every pair wrong) or ``"none"`` (no score recorded: a tie).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

TOPICS = {
    "coffee": "espresso beans grinder latte",
    "dog": "puppy leash walk kennel",
    "rent": "landlord lease apartment deposit",
    "flight": "airport boarding gate plane",
    "garden": "tomatoes soil watering seeds",
    "piano": "keys lessons scales recital",
    "tax": "refund deduction filing receipts",
    "bike": "tyre pedal helmet saddle",
    "cake": "flour oven frosting birthday",
    "exam": "revision chapters grades test",
}


def label_records(
    n_queries: int = 24, *, seed: int = 0, composite: str = "none", scopes: int = 6, engaged: bool = False
) -> list[dict]:
    """Export-format label dicts: per query 2 grade-3 and 2 grade-0 memories (+ engagement when asked)."""
    rng = random.Random(seed)
    names = sorted(TOPICS)
    out = []
    for qi in range(n_queries):
        t = names[qi % len(names)]
        words = TOPICS[t].split()
        query = f"what do I know about the {t} and the {rng.choice(words)}?"
        pos = [f"note: the {t} {rng.choice(words)} matters, {rng.choice(words)} too" for _ in range(2)]
        neg = [
            f"note: the {o} {rng.choice(TOPICS[o].split())} matters"
            for o in rng.sample([x for x in names if x != t], 2)
        ]
        for j, (text, g) in enumerate([(p, 3) for p in pos] + [(x, 0) for x in neg]):
            rec = {
                "query_id": f"q{qi}",
                "query": query,
                "memory_id": f"q{qi}m{j}",
                "memory_text": text,
                "grade": g,
                "hard_negative": False,
                "engaged": (g == 3) if engaged else None,
                "engaged_method": "lexical" if engaged else None,
                "engaged_score": 0.8 if engaged and g == 3 else None,
                "scope": f"s{qi % scopes}",
                "reranker_model": None,
                "score": None,
            }
            if composite == "perfect":
                rec["score"] = 0.5 + 0.1 * g
            elif composite == "reversed":
                rec["score"] = 0.9 - 0.1 * g
            out.append(rec)
    return out


def write_labels(path: Path, records: list[dict]) -> Path:
    """Write ``records`` as JSONL; returns ``path``."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
