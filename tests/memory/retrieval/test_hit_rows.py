"""The search path's hit rows (issue 19, library search ≤ 8 ms): served from a cache the index
keeps valid — and byte-identical to the uncached reference.

Reference: a fresh store (empty cache) whose hits' memories are rebuilt from rows read now
(``rows.to_memory``, the store's one row conversion). The warm store under test has searched before, while
another store object wrote to the same database (corroborations, contradictions, supersession,
a keyword union, new memories): every hit must equal the reference's — same ids, order, scores,
components, and memories equal field by field and in their JSON.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from assay.memory import MemorySettings, MemoryStore
from assay.memory.models import Memory
from assay.memory.retrieval.rows import MEMORY_COLS, HitCache, to_memory
from assay.memory.retrieval.search import rank_hits
from assay.memory.tables import memories, memory_deliveries

HASHING = MemorySettings(embedder="hashing")
WORDS = [f"w{i:02d}" for i in range(40)]
NOW = datetime(2026, 6, 1, tzinfo=UTC)  # recency at one instant for both rankings


@pytest.fixture
def url(db_url: str) -> str:
    return db_url


def _memories(rng: random.Random, n: int, start: int = 0) -> list[dict]:
    out = []
    for i in range(start, start + n):
        m: dict = {"id": f"m{i:04d}", "text": " ".join(rng.sample(WORDS, 5)) + f" item {i}", "scope": f"s{i % 3}"}
        if i % 4 == 0:
            m["keywords"] = rng.sample(WORDS, 2)
        if i % 5 == 0:
            m["meta"] = {"source": "test", "n": i, "nested": {"a": [1, 2.5, None]}}
        if i % 7 == 0:
            m["layer"] = "episodic"
            m["confidence"] = 1  # an integral prior: stored REAL, read back as a float
        if i % 6 == 0:
            m["created_at"] = "2026-03-01T10:00:00+02:00"
        out.append(m)
    return out


def _reference(url: str, query: str, k: int, **kw) -> list[tuple]:
    fresh = MemoryStore(url, settings=HASHING)
    hits = rank_hits(fresh, query, k, now=NOW, **kw)
    with fresh.engine.connect() as conn:
        rows = {
            r.id: to_memory(r)
            for r in conn.execute(select(*MEMORY_COLS).where(memories.c.id.in_([h.memory.id for h in hits])))
        }
    return [(h.rank, h.score, h.components, rows[h.memory.id]) for h in hits]


def _assert_same(got, ref) -> None:
    assert [(h.rank, h.score, h.components) for h in got] == [(r, s, c) for r, s, c, _ in ref]
    for h, (_, _, _, m) in zip(got, ref, strict=True):
        assert h.memory == m
        assert h.memory.model_dump_json() == m.model_dump_json()
        assert h.memory.model_fields_set == m.model_fields_set


def test_warm_search_path_matches_a_fresh_validated_reference_across_writes(url):
    rng = random.Random(7)
    warm = MemoryStore(url, settings=HASHING)
    warm.add(_memories(rng, 120))
    writer = MemoryStore(url, settings=HASHING)  # another process, as far as the warm store knows
    queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(12)]
    for rnd in range(6):
        for q in queries:  # warm the cache with this round's hits; they must follow the writes below
            _assert_same(rank_hits(warm, q, 10, now=NOW), _reference(url, q, 10))
            _assert_same(rank_hits(warm, q, 5, scope="s1", now=NOW), _reference(url, q, 5, scope="s1"))
        hit_ids = [h.memory.id for h in rank_hits(warm, queries[rnd], 10)]
        writer.corroborate(hit_ids[0], 2)
        writer.contradict(hit_ids[1])
        writer.supersede(hit_ids[2], hit_ids[3])
        stored = writer.get(hit_ids[4])
        assert stored is not None
        writer.add([{"id": f"dup{rnd}", "text": stored.text, "scope": stored.scope, "keywords": [f"new{rnd}"]}])
        writer.add(_memories(rng, 5, start=1000 + 10 * rnd))
    assert len(warm._hits) > 0  # the warm store did serve from its cache


def test_every_search_is_logged_exactly_once(url):
    store = MemoryStore(url, settings=HASHING)
    store.add(_memories(random.Random(3), 40))
    rng = random.Random(5)
    ids = [store.search(" ".join(rng.sample(WORDS, 3)), 4).search_id for _ in range(25)]
    with store.engine.connect() as conn:
        n = conn.execute(select(func.count()).select_from(memory_deliveries)).scalar_one()
        n_ids = conn.execute(select(func.count(func.distinct(memory_deliveries.c.search_id)))).scalar_one()
    assert (n, n_ids, len(set(ids))) == (100, 25, 25)


def test_hit_cache_is_bounded_and_drops_written_rows():
    reads: list[list[str]] = []

    def read(ids):
        reads.append(list(ids))
        return {i: Memory.model_construct(id=i) for i in ids if not i.startswith("gone")}

    cache = HitCache(size=3)
    assert list(cache.get(["a", "gone1", "b"], read)) == ["a", "b"]
    assert list(cache.get(["b", "a"], read)) == ["b", "a"] and len(reads) == 1
    cache.get(["c", "d"], read)  # b is the least recently used: evicted
    assert len(cache) == 3
    cache.get(["a", "b"], read)
    assert reads[-1] == ["b"]
    cache.drop(["a", "zzz"])
    cache.get(["a", "d"], read)
    assert reads[-1] == ["a"]


def test_no_reranker_is_asked_again_at_most_every_recheck_interval(url):
    from assay.memory.retrieval.store import MemoryStore as RetrievalStore

    class Counting(RetrievalStore):
        answer: object = None
        asked = 0

        def resolve_reranker(self):
            self.asked += 1
            return self.answer

    store = Counting(url, settings=HASHING)
    now = [100.0]
    store._clock = lambda: now[0]
    store.add(_memories(random.Random(2), 10))
    for _ in range(5):
        store.search("w01 w02 w03", 3)
    assert store.asked == 1  # one registry read, not one per search
    store.answer = marker = object()  # a model deployed meanwhile
    now[0] += store.settings.reranker_recheck_s - 0.01
    assert store.reranker is None and store.asked == 1
    now[0] += 0.02
    assert store.reranker is marker and store.asked == 2
    assert store.reranker is marker and store.asked == 2  # named: kept, never asked again
