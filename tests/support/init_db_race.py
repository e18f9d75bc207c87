"""N processes calling ``init_db`` on one database at the same moment (a barrier releases them
together): what two services starting at once do. Spawned processes import this module by name
(tests/support is on pytest's pythonpath, which a spawn child inherits)."""

from __future__ import annotations

import multiprocessing as mp


def race_init_db(url: str, processes: int, *, timeout_s: float = 180) -> list[tuple[str, object]]:
    """``[("ok", version) | ("error", "Type: message"), …]``, one per process, in finishing order."""
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(processes), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(url, barrier, queue)) for _ in range(processes)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=timeout_s) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    return results


def _worker(url: str, barrier, queue) -> None:
    from assay.storage import init_db, make_engine

    engine = make_engine(url)
    barrier.wait(timeout=60)
    try:
        queue.put(("ok", init_db(engine)))
    except Exception as e:  # noqa: BLE001 - reported to the parent, which fails the test
        queue.put(("error", f"{type(e).__name__}: {e}"))
