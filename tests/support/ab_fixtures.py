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
    label_deliveries(
        store, arm_of, p_a=p_a, p_b=p_b, per_memory=deliveries_per_memory, seed=seed, procedure=procedure, graded=graded
    )
    return per_arm


def stamp_worker(url: str, name: str, wid: int, n_units: int, batch: int, barrier, queue) -> None:
    """Process body: assign ``n_units`` units ``w<wid>-<i>`` and write one stamped memory each, ``batch``
    units per transaction; reports ``(wid, {unit: arm}, problems)``."""
    from assay.memory.experiments import ExperimentStore

    ab = ExperimentStore(url)
    store = hashing_store(url)
    barrier.wait(timeout=300)
    arms: dict[str, str] = {}
    problems: list[str] = []
    for start in range(0, n_units, batch):
        items: list = []
        for i in range(start, min(start + batch, n_units)):
            unit = f"w{wid}-{i}"
            arm = ab.assign(name, unit)
            arms[unit] = arm.name
            items.extend(stamp([{"id": f"{unit}-m", "text": f"worker {wid} unit {i} wrote this"}], arm))
        try:
            store.add(items)
        except Exception as e:  # noqa: BLE001 - reported to the parent, which fails the test
            problems.append(f"{start}: {type(e).__name__}: {e}")
    queue.put((wid, arms, problems))


def tick_worker(url: str, barrier, queue) -> None:
    """Process body: one ``tick`` after the barrier; reports ``[(name, promoted)]``."""
    from assay.memory.experiments import ExperimentStore

    ab = ExperimentStore(url)
    barrier.wait(timeout=300)
    try:
        queue.put([(n, d.promoted) for n, d in ab.tick(actor="race")])
    except Exception as e:  # noqa: BLE001
        queue.put(f"{type(e).__name__}: {e}")


def label_deliveries(
    store: MemoryStore,
    arm_of: dict[str, str],
    *,
    p_a: float,
    p_b: float,
    per_memory: int = 2,
    seed: int = 0,
    procedure: str = "lexical",
    graded: bool = True,
) -> int:
    """Insert ``per_memory`` labelled deliveries (lexical engagement, graded) for each memory id of
    ``arm_of`` (memory id → arm); returns the rows written."""
    rng = np.random.default_rng(seed)
    now = datetime.now(UTC)
    rows = []
    for mid, arm_name in arm_of.items():
        for _ in range(per_memory):
            engaged = bool(rng.random() < (p_b if arm_name == "B" else p_a))
            rows.append(_delivery(mid, engaged, now, procedure, graded))
    with store.engine.begin() as conn:
        for i in range(0, len(rows), 500):
            conn.execute(insert(memory_deliveries), rows[i : i + 500])
    return len(rows)


def _delivery(mid: str, engaged: bool, now: datetime, procedure: str, graded: bool) -> dict:
    return {
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
