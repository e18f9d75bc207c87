"""Four processes assign and stamp 2,000 units each on one database (SQLite and PostgreSQL), then two
``tick`` processes race: no stamp lost or wrong, exactly one promotion event."""

from __future__ import annotations

import multiprocessing as mp

import pytest
from sqlalchemy import select

from ab_fixtures import hashing_store, label_deliveries, stamp_worker, tick_worker
from assay.memory.experiments import ExperimentSettings, ExperimentStore, GateParams, assign
from assay.memory.tables import memories

PROCESSES = 4
UNITS = 2000  # per process
BATCH = 20  # units per write transaction


@pytest.mark.slow
def test_four_writers_lose_no_stamp_and_two_ticks_promote_once(db_url):
    ab = ExperimentStore(db_url, settings=ExperimentSettings(cache_ttl_s=0))
    ab.start(
        "race",
        control_version="gen-7",
        control_rules="Be brief.",
        candidate_version="gen-7+b3",
        instruction="Record units.",
        gate=GateParams(min_delivered=200, guards=()),
    )
    ab.queue("race", version="gen-7+b4", instruction="Cite the source.")
    cfg = ab.config("race")
    hashing_store(db_url)  # the memory schema and state row exist before the workers start
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [
        ctx.Process(target=stamp_worker, args=(db_url, "race", w, UNITS, BATCH, barrier, queue))
        for w in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    results = [queue.get(timeout=900) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(not problems for _, _, problems in results), [r[2][:3] for r in results]
    expected = {unit: arm for _, arms, _ in results for unit, arm in arms.items()}
    assert len(expected) == PROCESSES * UNITS
    assert all(assign(cfg, u).name == a for u, a in expected.items())  # every process assigned alike
    store = hashing_store(db_url)
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(memories.c.id, memories.c.ab_unit, memories.c.ab_arm, memories.c.ab_round).where(
                memories.c.ab_experiment == "race"
            )
        ).all()
    assert len(rows) == PROCESSES * UNITS  # no lost stamp
    assert {r.ab_unit: r.ab_arm for r in rows} == expected and {r.ab_round for r in rows} == {1}
    label_deliveries(store, {r.id: r.ab_arm for r in rows}, p_a=0.25, p_b=0.45, per_memory=1, seed=7)

    barrier2, queue2 = ctx.Barrier(2), ctx.Queue()
    ticks = [ctx.Process(target=tick_worker, args=(db_url, barrier2, queue2)) for _ in range(2)]
    for p in ticks:
        p.start()
    outcomes = [queue2.get(timeout=600) for _ in ticks]
    for p in ticks:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(isinstance(o, list) for o in outcomes), outcomes
    promoted = [flag for o in outcomes for _, flag in o]
    assert promoted.count(True) == 1, outcomes
    events = ab.events("race")
    assert [e.kind for e in events].count("promoted") == 1
    after = ab.config("race")
    assert (after.round, after.control_version, after.candidate_version) == (2, "gen-7+b3", "gen-7+b4")
