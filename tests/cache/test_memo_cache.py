"""MemoCache: every status, TTL, gate-version injection, the never-store-a-failing-memo rule,
stats/clear, the storage upsert helper, and ``assay eval`` never touching the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, func, select, update

from assay.cache import STATUSES, CacheResult, MemoCache, gate_answer, make_key, memo_cache, memo_cache_counts
from assay.cache.memo import build_memo
from assay.facts import Fact, Snapshot
from assay.grounding.gate import GATE_VERSION, check_answer
from assay.storage import make_engine, upsert
from memo_fixtures import GOOD, KEY, UNSOURCED, Clock, Synth, apple, rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def cache(db_url, clock) -> MemoCache:
    """A cache on a fresh database: once on SQLite, once on PostgreSQL (``db_url`` in conftest)."""
    c = MemoCache(db_url, clock=clock)
    yield c
    c.engine.dispose()  # close pooled connections so the PostgreSQL database can be dropped


def counts(cache: MemoCache) -> dict[str, int]:
    with cache.engine.connect() as conn:
        return {s: n for s, n in conn.execute(select(memo_cache_counts.c.status, memo_cache_counts.c.n))}


# --- statuses --------------------------------------------------------------------------------


def test_miss_then_hit_serves_the_stored_memo_without_synthesis(cache):
    synth = Synth()
    first = cache.get_or_create(KEY, apple(), synth, ttl_s=3600, synthesis_version="prompt-3/model-x")
    assert isinstance(first, CacheResult)
    assert (first.status, first.gate.status, len(synth.calls)) == ("miss", "pass", 1)
    assert first.memo.citations == ("F1", "F2", "F3") and first.memo.fingerprint == apple().fingerprint()
    second = cache.get_or_create(KEY, apple(), synth, ttl_s=3600, synthesis_version="prompt-3/model-x")
    assert (second.status, len(synth.calls)) == ("hit", 1)
    assert second.memo.model_dump() == first.memo.model_dump() and second.gate.status == "pass"
    (row,) = rows(cache)
    assert (row.hits, row.gate_version, row.gate_mode, row.synthesis_version) == (
        1,
        GATE_VERSION,
        "auto",
        "prompt-3/model-x",
    )
    assert row.size_bytes == len(row.memo.encode("utf-8"))
    assert counts(cache) == {"miss": 1, "hit": 1}


def test_changed_data_is_stale_fingerprint_and_resynthesised_from_the_fresh_snapshot(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    moved = Snapshot(
        facts=(
            *apple().facts[:2],
            Fact(id="F3", label="Gross margin percentage", value=44.2, unit="%", period="FY2023"),
        ),
        sources=apple().sources,
    )
    synth.answer = GOOD.replace("44.1%", "44.2%")
    r = cache.get_or_create(KEY, moved, synth, ttl_s=3600)
    assert r.status == "stale_fingerprint" and synth.calls[-1] == moved.fingerprint()
    assert r.memo.fingerprint == moved.fingerprint() and "44.2%" in r.answer
    assert rows(cache)[0].fingerprint == moved.fingerprint()


def test_fields_outside_the_fingerprint_still_hit(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    same = Snapshot(
        facts=tuple(reversed([f.model_copy(update={"source": "restated"}) for f in apple().facts])),
        sources=apple().sources,
        as_of="2025-01-01",
    )
    assert cache.get_or_create(KEY, same, synth, ttl_s=3600).status == "hit"


def test_ttl_elapsed_is_expired(cache, clock):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=60)
    clock.now += 59.9
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=60).status == "hit"
    clock.now += 0.1
    r = cache.get_or_create(KEY, apple(), synth, ttl_s=60)
    assert r.status == "expired" and len(synth.calls) == 2
    assert rows(cache)[0].expires_at == clock.now + 60  # rewritten with a fresh TTL


def test_a_shorter_request_ttl_expires_an_older_memo(cache, clock):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    clock.now += 120
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600).status == "hit"
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=60).status == "expired"


def test_gate_version_or_mode_change_is_stale_gate(cache, clock):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    bumped = MemoCache(engine=cache.engine, gate_version="gate-next", clock=clock)
    r = bumped.get_or_create(KEY, apple(), synth, ttl_s=3600)
    assert r.status == "stale_gate" and "gate-next" in r.detail
    assert rows(cache)[0].gate_version == "gate-next"
    assert bumped.get_or_create(KEY, apple(), synth, ttl_s=3600).status == "hit"
    assert bumped.get_or_create(KEY, apple(), synth, ttl_s=3600, gate_mode="cited").status == "stale_gate"


def test_synthesis_version_change_is_stale_synthesis(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600, synthesis_version="v1")
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600, synthesis_version="v2").status == "stale_synthesis"


def test_stored_memo_that_fails_todays_gate_is_regate_failed_and_replaced(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    # A row whose memo no longer passes (a gate fix shipped without a version bump, or a bad
    # write): same key, fingerprint, versions and mode — only the re-gate can catch it.
    with cache.engine.begin() as conn:
        memo = json.loads(conn.execute(select(memo_cache.c.memo)).scalar_one())
        memo["answer"] = UNSOURCED
        conn.execute(update(memo_cache).values(memo=json.dumps(memo)))
    r = cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    assert r.status == "regate_failed" and len(synth.calls) == 2 and r.answer == GOOD
    assert "fails today's gate" in r.detail
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600).status == "hit"


def test_unreadable_stored_memo_is_regate_failed(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    with cache.engine.begin() as conn:
        conn.execute(update(memo_cache).values(memo='{"answer": "truncat'))
    r = cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    assert r.status == "regate_failed" and "unreadable" in r.detail and r.gate.status == "pass"


def test_regate_failed_with_a_failing_fresh_memo_leaves_nothing_servable(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    with cache.engine.begin() as conn:
        memo = json.loads(conn.execute(select(memo_cache.c.memo)).scalar_one())
        conn.execute(update(memo_cache).values(memo=json.dumps({**memo, "answer": UNSOURCED})))
    synth.answer = UNSOURCED
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600).status == "gate_failed"
    assert rows(cache) == []


def test_unsourced_fresh_memo_is_gate_failed_and_nothing_is_stored(cache):
    synth = Synth(UNSOURCED)
    r = cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    assert r.status == "gate_failed" and r.gate.status == "fail" and r.answer == UNSOURCED
    assert r.gate.violations[0].kind == "value_mismatch" and "not stored" in r.detail
    assert rows(cache) == [] and counts(cache) == {"gate_failed": 1}
    synth.answer = GOOD
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600).status == "miss"  # nothing was stored


def test_no_claims_answer_is_not_stored_unless_accepted(cache):
    synth = Synth("We cannot answer that from the filing.")
    r = cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    assert (r.status, r.gate.status) == ("gate_failed", "no_claims") and rows(cache) == []
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600, accept_no_claims=True).status == "miss"
    assert cache.get_or_create(KEY, apple(), synth, ttl_s=3600, accept_no_claims=True).status == "hit"
    assert (
        cache.get_or_create(KEY, apple(), synth, ttl_s=3600).status == "gate_failed"
    )  # regate: no_claims not accepted


def test_use_cache_false_neither_reads_writes_nor_counts(cache):
    synth = Synth()
    cache.get_or_create(KEY, apple(), synth, ttl_s=3600)
    r = cache.get_or_create(KEY, apple(), synth, ttl_s=3600, use_cache=False)
    assert r.status == "bypassed" and len(synth.calls) == 2 and r.gate.status == "pass"
    assert cache.get_or_create(KEY, apple(), Synth(UNSOURCED), ttl_s=3600, use_cache=False).status == "gate_failed"
    assert counts(cache) == {"miss": 1} and rows(cache)[0].hits == 0


def test_store_refuses_a_memo_that_failed_the_gate(cache):
    memo = build_memo(
        apple(), Synth(UNSOURCED), fingerprint=apple().fingerprint(), synthesis_version="", gate_mode="auto"
    )
    with pytest.raises(ValueError, match="refusing to store a memo that failed the gate"):
        cache.store(KEY, memo, ttl_s=60, gate_mode="auto")


def test_every_status_is_named_and_counted_statuses_exclude_bypassed(cache):
    assert set(STATUSES) == {
        "hit",
        "miss",
        "stale_fingerprint",
        "stale_synthesis",
        "stale_gate",
        "expired",
        "regate_failed",
        "gate_failed",
        "judge_failed",
        "bypassed",
    }
    assert "bypassed" not in cache.stats()["by_status"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"key": ""}, "key: must be a non-empty string"),
        ({"key": "k" * 513}, "key: 513 characters, at most 512"),
        ({"ttl_s": 0}, "ttl_s: must be a positive finite number"),
        ({"ttl_s": float("inf")}, "ttl_s: must be a positive finite number"),
        ({"gate_mode": "strict"}, "gate_mode: must be one of auto, cited, uncited"),
    ],
)
def test_bad_requests_raise_clear_errors(cache, kwargs, message):
    args = {"key": KEY, "ttl_s": 60, "gate_mode": "auto", **kwargs}
    with pytest.raises(ValueError, match=message):
        cache.get_or_create(args.pop("key"), apple(), Synth(), **args)


def test_synthesize_must_return_text(cache):
    with pytest.raises(TypeError, match="synthesize must return the answer text"):
        cache.get_or_create(KEY, apple(), lambda s: {"answer": GOOD}, ttl_s=60)
    assert rows(cache) == []


def test_make_key():
    assert make_key("memo", "US0378331005:10-K:2023", "brief") == "memo:US0378331005:10-K:2023:brief"
    with pytest.raises(ValueError, match="mode: may not contain ':'"):
        make_key("memo", "AAPL", "a:b")
    with pytest.raises(ValueError, match="identifier: must be a non-empty string"):
        make_key("memo", " ", "brief")


def test_uncited_memo_is_regated_against_passages(cache):
    snap = Snapshot(sources=("Segment results (in millions)\nAmericas net sales 162,560 169,658",))
    synth = Synth("Americas net sales were $162.6 billion, down from $169.7 billion.")
    assert cache.get_or_create(KEY, snap, synth, ttl_s=60).status == "miss"
    r = cache.get_or_create(KEY, snap, synth, ttl_s=60)
    assert (r.status, r.gate.mode, r.gate.status) == ("hit", "uncited", "pass")
    moved = Snapshot(sources=("Segment results (in millions)\nAmericas net sales 162,561 169,658",))
    assert cache.get_or_create(KEY, moved, synth, ttl_s=60).status == "stale_fingerprint"


def test_gate_answer_equals_check_answer_on_the_example_memos():
    lines = (ROOT / "examples" / "apple_fy2023_memos.jsonl").read_text().splitlines()
    for line in lines:
        case = json.loads(line)
        snap = Snapshot(facts=tuple(Fact(**f) for f in case.get("facts", ())), sources=tuple(case.get("sources", ())))
        for mode in ("auto", "cited", "uncited"):
            assert gate_answer(case["answer"], snap, mode) == check_answer(case["answer"], snap, mode=mode)


# --- stats, clear ----------------------------------------------------------------------------


def test_stats_and_clear(cache, clock):
    synth = Synth()
    for i in range(3):
        cache.get_or_create(f"memo:A{i}:brief", apple(), synth, ttl_s=100 if i else 10)
    cache.get_or_create("memo:A1:brief", apple(), synth, ttl_s=100)
    cache.get_or_create("other:B:full", apple(), Synth(UNSOURCED), ttl_s=100)
    clock.now += 50
    s = cache.stats()
    assert (s["entries"], s["expired_entries"], s["hits"], s["misses"], s["lookups"]) == (3, 1, 1, 4, 5)
    assert s["by_status"]["miss"] == 3 and s["by_status"]["gate_failed"] == 1 and s["hit_rate"] == 0.2
    assert s["bytes"] == sum(r.size_bytes for r in rows(cache)) > 0 and s["hits_on_entries"] == 1
    assert KEY not in json.dumps(s) and "memo:A" not in json.dumps(s)  # aggregate only
    assert cache.clear(expired=True) == {"removed": 1, "counts_reset": False}
    assert cache.clear(prefix="memo:A1") == {"removed": 1, "counts_reset": False}
    assert cache.clear(prefix="memo%") == {"removed": 0, "counts_reset": False}  # LIKE wildcards are literal
    assert cache.clear() == {"removed": 1, "counts_reset": True}
    assert cache.stats()["lookups"] == 0 and cache.stats()["hit_rate"] is None
    with pytest.raises(ValueError, match="prefix must be non-empty"):
        cache.clear(prefix="")


def test_init_db_creates_the_cache_tables(tmp_path):
    from sqlalchemy import inspect

    from assay.storage import init_db

    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    init_db(engine)
    assert {"memo_cache", "memo_cache_counts"} <= set(inspect(engine).get_table_names())


# --- the storage upsert helper ----------------------------------------------------------------


def test_upsert_inserts_updates_and_increments(tmp_path):
    md = MetaData()
    t = Table("kv", md, Column("k", String(10), primary_key=True), Column("v", String(10)), Column("n", Integer))
    engine = make_engine(f"sqlite:///{tmp_path / 'u.db'}")
    md.create_all(engine)
    with engine.begin() as conn:
        upsert(conn, t, {"k": "a", "v": "x", "n": 1}, ["k"])
        upsert(conn, t, {"k": "a", "v": "y", "n": 1}, ["k"])
        upsert(conn, t, {"k": "b", "v": "z", "n": 1}, ["k"], update={"n": t.c.n + 1})
        upsert(conn, t, {"k": "b", "v": "ignored", "n": 1}, ["k"], update={"n": t.c.n + 1})
        assert dict(conn.execute(select(t.c.k, t.c.v)).all()) == {"a": "y", "b": "z"}
        assert conn.execute(select(t.c.n).where(t.c.k == "b")).scalar_one() == 2
        assert conn.execute(select(func.count()).select_from(t)).scalar_one() == 2


def test_cache_connections_use_synchronous_normal_and_wal(tmp_path):
    cache = MemoCache(f"sqlite:///{tmp_path / 'c.db'}")
    with cache.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar_one() == 1  # NORMAL


# --- assay eval never reads the cache -------------------------------------------------------


def test_eval_never_touches_the_cache(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "ASSAY_HOME": str(home)}
    env.pop("ASSAY_DB_URL", None)
    code = (
        "import sys\n"
        "from assay.cases import load_cases\n"
        "from assay.evaluate import EvalConfig, run_eval\n"
        f"cases = load_cases({str(ROOT / 'examples' / 'apple_fy2023_memos.jsonl')!r})\n"
        "local, agg = run_eval(cases, EvalConfig(n_resamples=200))\n"
        "print(len(local['cases']), 'assay.cache' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    n, imported = r.stdout.split()
    assert int(n) > 0 and imported == "False"
    assert not home.exists()  # no database was even created
