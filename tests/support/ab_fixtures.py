"""Write-side experiment fixtures: a round of stamped memories and labelled deliveries, fast.

Memories go through the real path (assignment → :func:`stamp` → one ``MemoryStore.add``);
deliveries are inserted straight into the delivery log with their labels (engagement, grade,
hard negative), as ``search`` + ``grade`` + ``engage`` would leave them, so a round of
thousands of deliveries takes well under a second.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
from sqlalchemy import insert

from assay.memory import MemorySettings, MemoryStore
from assay.memory.experiments import ExperimentStore, stamp
from assay.memory.tables import memory_deliveries


def hashing_store(url: str) -> MemoryStore:
    return MemoryStore(url, settings=MemorySettings(embedder="hashing"))


def fill_round(
    ab: ExperimentStore,
    store: MemoryStore,
    name: str,
    *,
    n_units: int,
    p_a: float,
    p_b: float,
    seed: int = 0,
    memories_per_unit: int = 2,
    deliveries_per_memory: int = 2,
    procedure: str = "lexical",
    graded: bool = True,
    prefix: str = "u",
) -> dict[str, int]:
    """Write ``memories_per_unit`` stamped memories for each of ``n_units`` units of ``name``'s
    current round, then ``deliveries_per_memory`` labelled deliveries of each: engaged with
    probability ``p_a`` / ``p_b`` by arm, grade 2 (engaged) or 1, no hard negative. Returns the
    units per arm."""
    rng = np.random.default_rng(seed)
    items: list = []
    per_arm = {"A": 0, "B": 0}
    arm_of: dict[str, str] = {}
    cfg = ab.config(name, fresh=True)
    assert cfg is not None
    for u in range(n_units):
        unit = f"{prefix}{cfg.round}-{u}"
        arm = ab.assign(name, unit)
        per_arm[arm.name] += 1
        mems = [
            {"id": f"{unit}-m{j}", "text": f"{name} round {cfg.round} {unit} fact {j}"}
            for j in range(memories_per_unit)
        ]
        for m in mems:
            arm_of[m["id"]] = arm.name
        items.extend(stamp(mems, arm))
    store.add(items)
    now = datetime.now(UTC)
    rows = []
    for mid, arm_name in arm_of.items():
        for _ in range(deliveries_per_memory):
            engaged = bool(rng.random() < (p_b if arm_name == "B" else p_a))
            rows.append(
                {
                    "id": uuid.uuid4().hex,
                    "search_id": uuid.uuid4().hex,
                    "memory_id": mid,
                    "query": "q",
                    "rank": 1,
                    "score": 0.5,
                    "score_components": {},
                    "arm": "composite",
                    "version": "composite-v1",
                    "created_at": now,
                    "engaged": engaged,
                    "engagement_procedure": procedure,
                    "engaged_method": "lexical",
                    "grade": (2 if engaged else 1) if graded else None,
                    "hard_negative": False if graded else None,
                }
            )
    with store.engine.begin() as conn:
        for i in range(0, len(rows), 500):
            conn.execute(insert(memory_deliveries), rows[i : i + 500])
    return per_arm
