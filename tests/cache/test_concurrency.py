"""Two processes on one SQLite cache (WAL): same key at once → both may synthesise (said so in
the docs), neither fails, the table holds one whole row; and a hammer of flipping data where
every served memo must belong to the requester's snapshot (no half-written or foreign row)."""

from __future__ import annotations

import multiprocessing as mp
import time

from sqlalchemy import func, select

from assay.cache import Memo, MemoCache, memo_cache
from assay.cache.soak import cited_synthesizer
from assay.facts import Fact, Snapshot
from assay.grounding.gate import check_answer

KEY = "memo:RACE:brief"


def snapshot(version: int, n: int = 40) -> Snapshot:
    return Snapshot(
        facts=tuple(
            Fact(id=f"F{i}", label=f"item {i}", value=1000 * i + version, unit="USD millions", period="FY2024")
            for i in range(1, n + 1)
        ),
        sources=(f"data version {version}",),
    )


def _slow_synth(snap: Snapshot) -> str:
    time.sleep(0.3)
    return cited_synthesizer(snap)


def _same_key_worker(url: str, barrier, queue) -> None:
    try:
        cache = MemoCache(url)  # a fresh database: both processes also race to create the tables
        barrier.wait(timeout=60)
        r = cache.get_or_create(KEY, snapshot(1), _slow_synth, ttl_s=3600)
        queue.put((r.status, r.answer))
    except BaseException as e:  # reported to the parent, which fails the test at once
        queue.put(("error", f"{type(e).__name__}: {e}"))
        raise


def _hammer_worker(url: str, seed: int, n: int, barrier, queue) -> None:
    import random

    rng = random.Random(seed)
    snaps = [snapshot(v) for v in (1, 2, 3)]
    problems, statuses = [], {}
    try:
        cache = MemoCache(url)
        barrier.wait(timeout=60)
    except BaseException as e:
        queue.put(({}, [f"setup: {type(e).__name__}: {e}"]))
        raise
    for i in range(n):
        snap = rng.choice(snaps)
        key = f"memo:HAMMER{rng.randint(0, 2)}:brief"
        try:
            r = cache.get_or_create(key, snap, cited_synthesizer, ttl_s=3600)
        except Exception as e:  # noqa: BLE001 - reported to the parent, which fails the test
            problems.append(f"{i}: {type(e).__name__}: {e}")
            continue
        statuses[r.status] = statuses.get(r.status, 0) + 1
        if r.memo.fingerprint != snap.fingerprint() or r.answer != cited_synthesizer(snap):
            problems.append(f"{i}: {r.status} served a memo of other data")
    queue.put((statuses, problems))


def _run(target, args_list):
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(len(args_list)), ctx.Queue()
    procs = [ctx.Process(target=target, args=(*args, barrier, queue)) for args in args_list]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [p.exitcode for p in procs] == [0] * len(procs), results
    return results


def test_two_processes_same_key_at_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'race.db'}"
    results = _run(_same_key_worker, [(url,), (url,)])
    assert all(s != "error" for s, _ in results), results
    statuses = sorted(s for s, _ in results)
    # Both looked up before either stored (0.3 s synthesis): synthesis ran twice, by design.
    assert statuses in (["miss", "miss"], ["hit", "miss"])
    assert all(a == cited_synthesizer(snapshot(1)) for _, a in results)
    cache = MemoCache(url)
    with cache.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(memo_cache)).scalar_one() == 1
        memo = Memo.model_validate_json(conn.execute(select(memo_cache.c.memo)).scalar_one())
    assert check_answer(memo.answer, snapshot(1)).status == "pass"
    assert cache.get_or_create(KEY, snapshot(1), _slow_synth, ttl_s=3600).status == "hit"
    assert cache.stats()["by_status"]["miss"] + cache.stats()["by_status"]["hit"] == 3


def test_two_processes_hammering_flipping_data_never_get_foreign_or_torn_memos(tmp_path):
    url = f"sqlite:///{tmp_path / 'hammer.db'}"
    n = 150
    results = _run(_hammer_worker, [(url, 1, n), (url, 2, n)])
    problems = [p for _, ps in results for p in ps]
    assert problems == []
    total: dict[str, int] = {}
    for statuses, _ in results:
        for s, k in statuses.items():
            total[s] = total.get(s, 0) + k
    assert sum(total.values()) == 2 * n and total.get("hit", 0) > 0 and total.get("stale_fingerprint", 0) > 0
    assert set(total) <= {"hit", "miss", "stale_fingerprint"}
    stats = MemoCache(url).stats()
    assert stats["lookups"] == 2 * n and stats["entries"] == 3
