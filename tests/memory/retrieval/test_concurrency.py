"""Four processes search one SQLite memory at once: 4 × 2,000 delivery writes → 8,000 rows, none lost
(WAL, busy timeout, and the delivery log's retry on a locked database)."""

from __future__ import annotations

import multiprocessing as mp

import pytest
from sqlalchemy import func, select

from assay.memory import MemorySettings, MemoryStore
from assay.memory.tables import memory_deliveries

PROCESSES = 4
WRITES = 2000  # delivery rows per process
K = 2  # deliveries per search: 1,000 write transactions per process

TOPICS = ["invoice", "offsite", "catering", "budget", "hiring", "roadmap", "security", "travel", "매출", "계약"]


def _worker(url: str, wid: int, barrier, queue) -> None:
    store = MemoryStore(url, settings=MemorySettings(embedder="hashing"))
    barrier.wait(timeout=120)
    problems, sids = [], set()
    for i in range(WRITES // K):
        try:
            res = store.search(f"{TOPICS[(i + wid) % len(TOPICS)]} question {i}", K, session_id=f"w{wid}")
            if len(res.hits) != K:
                problems.append(f"{i}: {len(res.hits)} hits")
            sids.add(res.search_id)
        except Exception as e:  # noqa: BLE001 - reported to the parent, which fails the test
            problems.append(f"{i}: {type(e).__name__}: {e}")
    queue.put((wid, len(sids), problems))


@pytest.mark.slow
def test_four_processes_lose_no_delivery(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    MemoryStore(url, settings=MemorySettings(embedder="hashing")).add(
        [{"id": f"m{i}", "text": f"note about {t} number {i}"} for i, t in enumerate(TOPICS * 3)]
    )
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(PROCESSES), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(url, w, barrier, queue)) for w in range(PROCESSES)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(not problems for _, _, problems in results), [p[:3] for _, _, p in results]
    assert sum(n for _, n, _ in results) == PROCESSES * WRITES // K  # distinct search ids
    store = MemoryStore(url, settings=MemorySettings(embedder="hashing"))
    with store.engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(memory_deliveries)).scalar_one()
        per_session = dict(
            conn.execute(
                select(memory_deliveries.c.session_id, func.count()).group_by(memory_deliveries.c.session_id)
            ).all()
        )
        searches = conn.execute(select(func.count(func.distinct(memory_deliveries.c.search_id)))).scalar_one()
    assert total == PROCESSES * WRITES == 8000
    assert per_session == {f"w{w}": WRITES for w in range(PROCESSES)}
    assert searches == PROCESSES * WRITES // K
