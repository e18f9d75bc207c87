"""Write workloads of assay's stores, run by several processes at once (issue 10).

Each workload writes ``n`` rows per process through the store's public API, one transaction
per write, and has a check that the database holds exactly what the writers committed:

- ``memo_cache``: :meth:`MemoCache.store` of keys ``k0 … k{n-1}`` — the SAME keys in every
  process (upserts racing on one key) plus the shared per-status request count (one hot row);
  expected: ``n`` rows, each a whole memo, and ``miss`` counted exactly ``procs × n`` times.
- ``llm_cache``: :meth:`ResponseCache.put` — the first half of the requests shared by every
  process (inserts racing on one key), the second half its own; expected:
  ``n/2 + procs × n/2`` rows, every key once, every reply readable.

- ``deliveries``: :func:`assay.memory.feedback.deliveries.log_deliveries` of one delivery per write, ids
  own to each process; expected: every ``procs × n`` delivery once, under its search id.

A new store adds its workload to :data:`WORKLOADS`; the concurrency, lost-connection and
benchmark runners pick up every entry.

Run as a script this is a small command (``python tests/store_workloads.py --db URL WORKLOAD
--proc P --n N [--resume] [--pause-before-commit K --pause-file F]``) whose errors go through
``assay.cli.common.user_errors`` exactly like assay's own commands: one ``error: …`` line, exit 2.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import typer
from sqlalchemy import Engine, event, select

__all__ = ["Workload", "WORKLOADS"]


@dataclass(frozen=True)
class Workload:
    """``write(url, proc, n, skip)`` writes process ``proc``'s ``n`` rows (leaving out the
    indexes in ``skip``) through a store opened on ``url`` as a user would; ``present(url, proc,
    n)`` → indexes of ``proc`` already stored; ``check(url, procs, n)`` → problems (``[]`` when
    the database is exactly as expected)."""

    write: Callable[[str, int, int, set[int]], None]
    present: Callable[[str, int, int], set[int]]
    check: Callable[[str, int, int], list[str]]


# --- memo cache -----------------------------------------------------------------------------


def _memo():
    """One memo that passes the gate (stored under every key)."""
    from assay.cache.memo import build_memo
    from assay.cache.soak import cited_synthesizer
    from assay.facts import Fact, Snapshot

    snap = Snapshot(
        facts=tuple(
            Fact(id=f"F{i}", label=f"item {i}", value=100 * i, unit="USD millions", period="FY2024")
            for i in range(1, 6)
        )
    )
    memo = build_memo(snap, cited_synthesizer, fingerprint=snap.fingerprint(), synthesis_version="", gate_mode="auto")
    assert memo.gate.status == "pass", memo.gate
    return memo


def _memo_write(url: str, proc: int, n: int, skip: set[int]) -> None:
    from assay.cache import MemoCache

    cache, memo = MemoCache(url), _memo()
    for i in range(n):
        if i not in skip:
            cache.store(f"k{i}", memo, ttl_s=3600, gate_mode="auto")
    cache.engine.dispose()


def _memo_present(url: str, proc: int, n: int) -> set[int]:
    from assay.cache import memo_cache
    from assay.storage import init_db, make_engine

    engine = make_engine(url)
    init_db(engine)
    with engine.connect() as conn:
        return {int(k[1:]) for k in conn.execute(select(memo_cache.c.key)).scalars()}


def _memo_check(url: str, procs: int, n: int) -> list[str]:
    from assay.cache import Memo, MemoCache, memo_cache
    from assay.storage import make_engine

    engine, problems = make_engine(url), []
    with engine.connect() as conn:
        keys = list(conn.execute(select(memo_cache.c.key)).scalars())
        memos = list(conn.execute(select(memo_cache.c.memo)).scalars())
    if sorted(keys) != sorted(f"k{i}" for i in range(n)):
        problems.append(f"memo_cache: {len(keys)} rows ({len(set(keys))} distinct keys), expected keys k0…k{n - 1}")
    expected = _memo().answer
    torn = sum(Memo.model_validate_json(m).answer != expected for m in memos)
    if torn:
        problems.append(f"memo_cache: {torn} rows hold another memo")
    misses = MemoCache(engine=engine).stats()["by_status"]["miss"]
    if misses != procs * n:
        problems.append(f"memo_cache_counts: miss counted {misses} times, expected {procs * n} (lost increments)")
    return problems


# --- LLM response cache ----------------------------------------------------------------------


def _llm_request(proc: int, i: int, n: int):
    from assay.llm.base import LLMRequest

    owner = "shared" if i < n // 2 else f"p{proc}"
    return LLMRequest(model="m", messages=({"role": "user", "content": f"{owner}:{i}"},))


def _llm_reply(proc: int, i: int, n: int):
    from assay.llm.base import LLMResponse

    return LLMResponse(
        text=f"reply {i}", parsed={"i": i}, prompt_tokens=3, completion_tokens=2, model="m", backend="stub"
    )


def _llm_write(url: str, proc: int, n: int, skip: set[int]) -> None:
    from assay.llm.cache import ResponseCache

    cache = ResponseCache.open(db_url=url)
    for i in range(n):
        if i not in skip:
            cache.put("stub", _llm_request(proc, i, n), _llm_reply(proc, i, n))
    cache.engine.dispose()


def _llm_present(url: str, proc: int, n: int) -> set[int]:
    from assay.llm.cache import ResponseCache

    cache = ResponseCache.open(db_url=url)
    return {i for i in range(n) if cache.get("stub", _llm_request(proc, i, n)) is not None}


def _llm_check(url: str, procs: int, n: int) -> list[str]:
    from assay.llm.base import request_key
    from assay.llm.cache import ResponseCache, llm_cache

    cache, problems = ResponseCache.open(db_url=url), []
    with cache.engine.connect() as conn:
        keys = list(conn.execute(select(llm_cache.c.key)).scalars())
    expected = {request_key("stub", _llm_request(p, i, n)) for p in range(procs) for i in range(n)}
    if len(keys) != len(set(keys)) or set(keys) != expected:
        problems.append(f"llm_cache: {len(keys)} rows ({len(set(keys))} distinct), expected {len(expected)} keys")
    bad = sum(
        (r := cache.get("stub", _llm_request(p, i, n))) is None or r.parsed != {"i": i}
        for p in range(procs)
        for i in range(0, n, max(1, n // 50))
    )
    if bad:
        problems.append(f"llm_cache: {bad} sampled replies missing or wrong")
    return problems


# --- memory deliveries -----------------------------------------------------------------------


def _delivery(proc: int, i: int) -> dict:
    from datetime import datetime

    return {
        "id": f"p{proc}-{i}",
        "search_id": f"s{proc}-{i // 5}",
        "memory_id": f"m{i % 50}",
        "query": f"query {i}",
        "rank": i % 5 + 1,
        "score": 1.0 / (i % 5 + 1),
        "score_components": {"bm25": 0.5},
        "arm": "incumbent",
        "version": "v1",
        "created_at": datetime.now(UTC),
    }


def _deliveries_write(url: str, proc: int, n: int, skip: set[int]) -> None:
    from assay.memory.feedback.deliveries import log_deliveries
    from assay.storage import init_db, make_engine

    engine = make_engine(url)
    init_db(engine)
    for i in range(n):
        if i not in skip:
            log_deliveries(engine, [_delivery(proc, i)])
    engine.dispose()


def _deliveries_present(url: str, proc: int, n: int) -> set[int]:
    from assay.memory.tables import memory_deliveries
    from assay.storage import init_db, make_engine

    engine = make_engine(url)
    init_db(engine)
    with engine.connect() as conn:
        ids = conn.execute(
            select(memory_deliveries.c.id).where(memory_deliveries.c.id.startswith(f"p{proc}-"))
        ).scalars()
        return {int(x.split("-", 1)[1]) for x in ids}


def _deliveries_check(url: str, procs: int, n: int) -> list[str]:
    from assay.memory.tables import memory_deliveries
    from assay.storage import make_engine

    engine = make_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            select(memory_deliveries.c.id, memory_deliveries.c.search_id, memory_deliveries.c.rank)
        ).all()
    expected = {f"p{p}-{i}" for p in range(procs) for i in range(n)}
    ids = [r.id for r in rows]
    problems = []
    if len(ids) != len(set(ids)) or set(ids) != expected:
        problems.append(f"memory_deliveries: {len(ids)} rows ({len(set(ids))} distinct), expected {len(expected)}")
    wrong = sum(r.search_id != _delivery(*map(int, r.id[1:].split("-")))["search_id"] for r in rows)
    if wrong:
        problems.append(f"memory_deliveries: {wrong} rows under another search id")
    return problems


WORKLOADS: dict[str, Workload] = {
    "memo_cache": Workload(_memo_write, _memo_present, _memo_check),
    "llm_cache": Workload(_llm_write, _llm_present, _llm_check),
    "deliveries": Workload(_deliveries_write, _deliveries_present, _deliveries_check),
}


def run_writer(url: str, workload: str, proc: int, n: int) -> float:
    """One process's writes (multiprocessing target); returns the seconds spent writing
    (the schema exists already: the caller ran ``init_db``)."""
    t0 = time.perf_counter()
    WORKLOADS[workload].write(url, proc, n, set())
    return time.perf_counter() - t0


def _pause_before_commit(k: int, flag: Path) -> None:
    """Before this process's ``k``-th commit (any engine): create ``flag.reached`` and wait until
    ``flag`` exists (the test stops the server meanwhile), so the connection dies inside an open
    transaction."""
    seen = [0]

    @event.listens_for(Engine, "commit")
    def _hook(conn) -> None:
        seen[0] += 1
        if seen[0] == k:
            Path(f"{flag}.reached").write_text(str(k))
            deadline = time.monotonic() + 60
            while not flag.exists() and time.monotonic() < deadline:
                time.sleep(0.02)


def main() -> None:
    """The command form (see the module docstring)."""
    from assay.cli.common import out, user_errors

    app = typer.Typer(add_completion=False)

    @app.command()
    def write(
        ctx: typer.Context,
        workload: str,
        db: str = typer.Option(..., "--db"),
        proc: int = 0,
        n: int = 100,
        resume: bool = False,
        pause_before_commit: int = 0,
        pause_file: Path = Path("pause"),
    ) -> None:
        ctx.obj = {"db": db, "debug": False}
        with user_errors(ctx):
            skip = WORKLOADS[workload].present(db, proc, n) if resume else set()
            if pause_before_commit:
                _pause_before_commit(pause_before_commit, pause_file)
            WORKLOADS[workload].write(db, proc, n, skip)
        out.print(f"wrote {n - len(skip)} rows ({len(skip)} already present)")

    app()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
