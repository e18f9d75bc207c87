"""The memory store's pgvector path (issue 10, item 3) on PostgreSQL + pgvector (PyPI ``pgserver``).

The same data and queries ranked by a store on the pgvector path and by a store on the numpy
path, both on one database: the top-k ids agree and the similarities agree to 1e-5 (exact
search: the HNSW index bypassed, ``pgvector_exact``); the mirror table is backfilled from
``real[]``, follows writes and re-embeddings, is rebuilt after ``DROP EXTENSION … CASCADE``;
``assay memory stats`` names the path. Locally without pgserver these tests are left out with
one line; under CI=true they fail (tests/conftest.py).
"""

from __future__ import annotations

import json
from datetime import UTC

import numpy as np
import pytest
from sqlalchemy import text

from assay.memory import MemorySettings, MemoryStore
from assay.memory.feedback.stats import memory_stats
from assay.memory.retrieval.search import rank_hits
from assay.storage.vector import VectorMirror, pgvector_index_kind
from ranking_checks import assert_same_ranking

HASHING = MemorySettings(embedder="hashing")
EXACT = HASHING.with_(pgvector_exact=True)
NUMPY = HASHING.with_(vector_path="numpy")
DIM = 384


def _data(n: int, seed: int = 3) -> tuple[list[dict], np.ndarray, np.ndarray, list[str]]:
    """``n`` memories (texts from a 200-word vocabulary, 3 scopes), clustered unit vectors, cluster centres,
    the vocabulary."""
    rng = np.random.default_rng(seed)
    words = [f"w{i:03d}" for i in range(200)]
    centres = rng.normal(size=(12, DIM))
    vecs = centres[rng.integers(0, 12, size=n)] + 0.9 * rng.normal(size=(n, DIM))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    mems = [
        {"id": f"m{i:04d}", "text": " ".join(rng.choice(words, 5)) + f" item{i}", "scope": f"s{i % 3}"}
        for i in range(n)
    ]
    return mems, vecs.astype(np.float32), centres, words


def _queries(centres: np.ndarray, words: list[str], n: int, seed: int = 11) -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        q = centres[i % len(centres)] + 0.7 * rng.normal(size=DIM)
        out.append((" ".join(rng.choice(words, 3)), (q / np.linalg.norm(q)).astype(np.float32)))
    return out


def _ranked(store, q_text, q_vec, k, **kw):
    hits = rank_hits(store, q_text, k, query_vector=q_vec, **kw)
    return (
        [h.memory.id for h in hits],
        np.array([h.components["similarity"] for h in hits]),
        np.array([h.score for h in hits]),
    )


@pytest.fixture()
def loaded(pgvector_url):
    """A pgvector database holding 600 memories, written through a store on the pgvector path."""
    mems, vecs, centres, words = _data(600)
    store = MemoryStore(pgvector_url, settings=EXACT)
    store.add(mems, embeddings=vecs)
    return pgvector_url, store, centres, words


def _spy_top_k(monkeypatch) -> list[int]:
    """Count the SQL top-k queries (so a test knows the pgvector path ran, not a fallback)."""
    calls: list[int] = []
    real = VectorMirror.top_k

    def spy(self, engine, query, n, **kw):
        calls.append(n)
        return real(self, engine, query, n, **kw)

    monkeypatch.setattr(VectorMirror, "top_k", spy)
    return calls


@pytest.mark.parametrize("ranker", ["dense", "composite"])
def test_pgvector_top_k_equals_numpy_top_k(loaded, monkeypatch, ranker):
    url, pg, centres, words = loaded
    np_store = MemoryStore(url, settings=NUMPY)
    assert (pg.vector_path.path, np_store.vector_path.path) == ("pgvector", "numpy")
    calls = _spy_top_k(monkeypatch)
    for i, (q_text, q_vec) in enumerate(_queries(centres, words, 8)):
        scope = f"s{i % 3}" if i % 2 else None  # the scope component moves memories outside the SQL pool up
        ids_pg, sim_pg, score_pg = _ranked(pg, q_text, q_vec, 10, ranker=ranker, scope=scope)
        ids_np, sim_np, score_np = _ranked(np_store, q_text, q_vec, 10, ranker=ranker, scope=scope)
        assert ids_pg == ids_np and len(ids_pg) == 10
        np.testing.assert_allclose(sim_pg, sim_np, atol=1e-5, rtol=0)
        np.testing.assert_allclose(score_pg, score_np, atol=1e-5, rtol=0)
        assert (sim_pg > 0).all() and (sim_pg <= 1).all()  # similarities, not distances
    assert calls and all(n == 200 for n in calls)  # max(k, pgvector_candidates): the pool came from SQL every time


def test_approximate_hnsw_search_finds_the_exact_top_k_on_a_small_store(loaded):
    url, _pg, centres, words = loaded
    approx = MemoryStore(url, settings=HASHING)
    np_store = MemoryStore(url, settings=NUMPY)
    assert approx.vector_path.index == "hnsw" and "approximate" in approx.vector_path.detail
    found = total = 0
    for q_text, q_vec in _queries(centres, words, 10, seed=5):
        ids_a = _ranked(approx, q_text, q_vec, 10, ranker="dense")[0]
        ids_n = _ranked(np_store, q_text, q_vec, 10, ranker="dense")[0]
        found, total = found + len(set(ids_a) & set(ids_n)), total + 10
    assert found / total >= 0.9  # 600 rows, ef_search 200: HNSW's recall@10 is 1.0 in practice


def test_search_filters_rerank_depth_and_delivery_log_are_shared(loaded):
    url, pg, centres, words = loaded
    np_store = MemoryStore(url, settings=NUMPY)
    q_text, q_vec = _queries(centres, words, 1)[0]
    top = _ranked(pg, q_text, q_vec, 3, ranker="dense")[0]
    pg.supersede(top[0], top[1])
    pg.add([{"id": "meta", "text": "Remember to save memories after every task"}], embeddings=q_vec[None, :])
    for kw in ({"ranker": "dense"}, {"ranker": "composite", "depth": 50}, {"scope": "s1", "restrict_to_scope": True}):
        a, b = _ranked(pg, q_text, q_vec, 10, **kw), _ranked(np_store, q_text, q_vec, 10, **kw)
        assert a[0] == b[0] and top[0] not in a[0] and "meta" not in a[0]  # superseded / meta-memory never a candidate
        np.testing.assert_allclose(a[1], b[1], atol=1e-5, rtol=0)
    res = pg.search(q_text, 5, explain=True)
    assert len(res) == 5 and all(0 <= h.components["similarity"] <= 1 for h in res)


def test_backfill_from_real_arrays_when_the_mirror_is_first_created(loaded):
    url, pg, centres, words = loaded
    with pg.engine.begin() as conn:  # rows written while there was no mirror
        conn.execute(text("DROP TABLE memory_vectors"))
    fresh = MemoryStore(url, settings=EXACT)
    with fresh.engine.connect() as conn:
        assert fresh.vector_path.mirror.count(conn) == 600
        assert (
            conn.execute(text("SELECT count(*) FROM pg_indexes WHERE indexname = 'memory_vectors_hnsw'")).scalar() == 1
        )
    np_store = MemoryStore(url, settings=NUMPY)
    for q_text, q_vec in _queries(centres, words, 3):
        a, b = _ranked(fresh, q_text, q_vec, 10), _ranked(np_store, q_text, q_vec, 10)
        assert a[0] == b[0]
        np.testing.assert_allclose(a[1], b[1], atol=1e-5, rtol=0)


@pytest.mark.parametrize("first", ["search", "write"])
def test_extension_dropped_under_running_stores_then_back_rebuilds_the_mirror(loaded, first):
    url, pg, centres, words = loaded
    writer = MemoryStore(url, settings=EXACT)
    np_store = MemoryStore(url, settings=NUMPY)
    q_text, q_vec = _queries(centres, words, 1)[0]
    expected = _ranked(np_store, q_text, q_vec, 10)[0]
    with pg.engine.begin() as conn:
        conn.execute(text("DROP EXTENSION vector CASCADE"))  # drops memory_vectors.embedding with it
    if first == "write":  # the mirror update fails inside a savepoint: the write still commits
        writer.add([{"id": "late", "text": "written after the extension went away"}], embeddings=q_vec[None, :] * 0 + 1)
        assert writer.vector_path.path == "numpy" and "became unusable" in writer.vector_path.detail
        expected = _ranked(np_store, q_text, q_vec, 10)[0]
    assert _ranked(pg, q_text, q_vec, 10)[0] == expected  # the running pgvector store falls back to numpy
    assert pg.vector_path.path == "numpy" and "became unusable" in pg.vector_path.detail
    back = MemoryStore(url, settings=EXACT)  # CREATE EXTENSION again (available), mirror rebuilt from real[]
    assert back.vector_path.path == "pgvector"
    with back.engine.connect() as conn:
        assert back.vector_path.mirror.count(conn) == 600 + (first == "write")
    assert _ranked(back, q_text, q_vec, 10)[0] == expected


def test_a_bulk_write_rebuilds_the_hnsw_index_in_its_transaction(pgvector_url, monkeypatch):
    import assay.storage.vector as sv

    monkeypatch.setattr(sv, "BULK_REBUILD_MIN", 100)
    mems, vecs, centres, words = _data(400)
    store = MemoryStore(pgvector_url, settings=HASHING)
    statements: list[str] = []
    from sqlalchemy import event

    event.listen(store.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    store.add(mems[:300], embeddings=vecs[:300])  # 300 ≥ 100 and ≥ the 0 rows mirrored: drop, load, build
    store.add(mems[300:350], embeddings=vecs[300:350])  # 50: inserted into the index row by row
    assert sum(s.startswith("DROP INDEX") for s in statements) == 1
    assert sum(s.startswith("CREATE INDEX") for s in statements) == 1
    with store.engine.connect() as conn:
        assert store.vector_path.mirror.count(conn) == 350
        assert (
            conn.execute(text("SELECT count(*) FROM pg_indexes WHERE indexname = 'memory_vectors_hnsw'")).scalar() == 1
        )
    q_text, q_vec = _queries(centres, words, 1)[0]
    exact = MemoryStore(pgvector_url, settings=EXACT)
    assert (
        _ranked(exact, q_text, q_vec, 10)[0] == _ranked(MemoryStore(pgvector_url, settings=NUMPY), q_text, q_vec, 10)[0]
    )


def test_mirror_follows_new_rows_reembedding_and_skips_zero_vectors(pgvector_url):
    store = MemoryStore(pgvector_url, settings=EXACT)
    mems, vecs, _c, _w = _data(40)
    store.add(mems[:20], embeddings=vecs[:20])
    with pytest.raises(ValueError, match="another embedder"):  # another model's vectors never enter the store
        store.add(mems[20:], embeddings=vecs[20:], embedding_model="another-model")
    store.add(mems[20:], embeddings=vecs[20:])
    store.add([{"id": "blank", "text": "the and of"}])  # stopwords only: the hashing vector is all-zero
    with store.engine.begin() as conn:  # as an earlier version could leave them: another model's rows, unmirrored
        conn.execute(text("UPDATE memories SET embedding_model = 'another-model' WHERE id BETWEEN 'm0020' AND 'm0039'"))
        conn.execute(
            text(
                "DELETE FROM memory_vectors WHERE seq IN "
                "(SELECT seq FROM memories WHERE embedding_model = 'another-model')"
            )
        )
    store = MemoryStore(pgvector_url, settings=EXACT)
    mirror = store.vector_path.mirror
    with store.engine.connect() as conn:
        assert mirror.count(conn) == 20
    # re-encodes the other model's rows on purpose (reembed), mirror updated in the same transaction
    store.reembed()
    store.index()
    with store.engine.connect() as conn:
        assert mirror.count(conn) == 40
        assert conn.execute(text("SELECT count(*) FROM memories WHERE embedding_model = 'another-model'")).scalar() == 0
    np_store = MemoryStore(pgvector_url, settings=NUMPY)
    q = store.embedder.embed([mems[25]["text"]])[0]
    a, b = (
        _ranked(store, mems[25]["text"], q, 41, ranker="dense"),
        _ranked(np_store, mems[25]["text"], q, 41, ranker="dense"),
    )
    assert (
        a[0][0] == "m0025" and a[0] == b[0] and "blank" in a[0]
    )  # every row ranked: the zero vector scores 0 on both paths
    np.testing.assert_allclose(a[1], b[1], atol=1e-5, rtol=0)


def test_stats_and_cli_name_the_pgvector_path(loaded, monkeypatch):
    from typer.testing import CliRunner

    from assay.cli import app

    url, pg, _c, _w = loaded
    vp = memory_stats(pg, n_resamples=10)["vector_path"]
    assert vp["path"] == "pgvector" and vp["pgvector"] and vp["index"] == "hnsw"
    assert (
        vp["detail"].startswith(f"pgvector {vp['pgvector']}: dense top-k in PostgreSQL")
        and "cosine similarity" in vp["detail"]
    )
    vp = memory_stats(MemoryStore(url, settings=NUMPY), n_resamples=10)["vector_path"]
    assert vp["path"] == "numpy" and vp["pgvector"] and "kept in sync" in vp["detail"]
    monkeypatch.setenv("ASSAY_MEMORY_EMBEDDER", "hashing")
    r = CliRunner().invoke(app, ["--db", url, "memory", "stats", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["vector_path"] | {"detail": ""} == {
        "path": "pgvector",
        "pgvector": vp["pgvector"],
        "index": "hnsw",
        "detail": "",
    }
    r = CliRunner().invoke(app, ["--db", url, "memory", "stats"])
    assert r.exit_code == 0 and "vector path: pgvector — pgvector " in r.stdout


def test_a_role_that_may_not_create_the_extension_gets_the_numpy_path(pgvector_cluster, pgvector_url):
    db = pgvector_url.rsplit("/", 1)[1]
    role = "mem_" + db
    pgvector_cluster._admin(f"CREATE ROLE {role} LOGIN PASSWORD 'mem-pw-123'")
    pgvector_cluster._admin(
        f'ALTER DATABASE "{db}" OWNER TO {role}'
    )  # may create tables, not the (untrusted) extension
    url = pgvector_url.replace(f"postgres:{pgvector_cluster.password}@", f"{role}:mem-pw-123@")
    store = MemoryStore(url, settings=HASHING)
    assert (
        store.vector_path.path == "numpy" and "refused" in store.vector_path.detail and store.vector_path.mirror is None
    )
    store.add(
        [{"id": "a", "text": "Invoice 42 from Acme was paid in March"}, {"id": "b", "text": "The offsite is in Lisbon"}]
    )
    assert [h.memory.id for h in store.search("Acme invoice", 1)] == ["a"]


def test_pgvector_before_hnsw_gets_no_index_and_an_exact_scan(loaded):
    assert (
        pgvector_index_kind("0.4.4"),
        pgvector_index_kind("0.5.0"),
        pgvector_index_kind("0.8.0"),
        pgvector_index_kind(None),
    ) == ("none", "hnsw", "hnsw", "none")
    from assay.memory.tables import memories

    url, pg, centres, _w = loaded
    old = VectorMirror(
        memories,
        key="seq",
        source="embedding",
        dim=DIM,
        name="memory_vectors_old",
        version="0.4.4",
        eligible=memories.c.embedding_model == pg.embedder.model,
    )
    status = old.ensure(pg.engine)
    assert (status.created, status.rows_added, status.index) == (True, 600, "none")
    with pg.engine.connect() as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM pg_indexes WHERE tablename = 'memory_vectors_old'")).scalar() == 1
        )  # the pkey only
    keys, sims = old.top_k(pg.engine, centres[0], 5)
    exact_keys, exact_sims = pg.vector_path.mirror.top_k(pg.engine, centres[0], 5, exact=True)
    assert keys.tolist() == exact_keys.tolist() and np.allclose(sims, exact_sims, atol=1e-6)
    assert old.ensure(pg.engine) == type(status)(created=False, rows_added=0, index="none")  # idempotent
    with pytest.raises(ValueError, match="all-zero"):
        old.top_k(pg.engine, np.zeros(DIM), 5)


# -- the pool bound, without a database: MemoryIndex.rank with an exact in-process pool ----------


def _index_and_pool(seed: int):
    from datetime import datetime, timedelta

    from assay.memory.retrieval.index import DensePool, IndexRow, MemoryIndex

    rng = np.random.default_rng(seed)
    n, dim = 300, 16
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    vecs[rng.integers(0, n, 30)] = vecs[rng.integers(0, n, 30)]  # duplicates: exact ties
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[rng.integers(0, n, 10)] = 0.0  # zero vectors: similarity 0, never pooled
    words = [f"w{i}" for i in range(40)]
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    rows = [
        IndexRow(
            i + 1,
            f"m{rng.integers(0, 10**6):06d}-{i}",
            "note",
            list(rng.choice(words, 3)),
            f"s{i % 4}",
            float(rng.uniform()),
            t0 + timedelta(days=int(rng.integers(0, 90))),
            bool(rng.uniform() < 0.05),
            False,
            None if i % 37 == 0 else vecs[i],
        )
        for i in range(n)
    ]
    index = MemoryIndex()
    index.upsert(rows)
    calls = []

    def pool(q, size):  # the exact top `size` by cosine among non-zero vectors, as the SQL query returns it
        calls.append(size)
        have = np.flatnonzero(index._nonzero.a[: len(index)])
        sims = (index._vec[: len(index)] @ q)[have].astype(np.float64)  # numpy's full-scan arithmetic: identical ties
        order = np.argsort(-sims, kind="stable")[:size]
        return DensePool(np.asarray(index.seqs)[have[order]], sims[order])

    return index, pool, calls, words, rng


@pytest.mark.parametrize("seed", range(6))
def test_a_dense_pool_gives_the_full_scan_ranking(seed):
    from assay.memory.config import Weights

    index, pool, calls, words, rng = _index_and_pool(seed)
    weight_sets = [Weights(), Weights(confidence=0.2, recency=0.1, scope=0.3)]
    for trial in range(12):
        q = rng.normal(size=16).astype(np.float32)
        q /= np.linalg.norm(q)
        kw = dict(
            weights=weight_sets[trial % 2],
            ranker=["composite", "dense"][trial % 3 == 0],
            scope=f"s{trial % 4}",
            now=datetime_now(),
            half_life_days=30.0,
            depth=[None, 25][trial % 2],
        )
        q_text = " ".join(rng.choice(words, 2))
        full = index.rank(q_text, q, 40, **(kw | {"depth": None}))  # and the rows just below
        asked, size = len(calls), [5, 12, 40][trial % 3]
        pooled = index.rank(q_text, q, 10, dense_pool=pool, pool_size=size, **kw)
        assert calls[asked] == max(size, kw["depth"] or 10)  # asked first (then more, if its bound said so)
        assert_same_ranking(pooled, full, kw["depth"] or 10)  # up to the last float32 bit of a cosine


def datetime_now() -> float:
    from datetime import datetime

    return datetime(2024, 6, 1, tzinfo=UTC).timestamp()


def test_exact_search_is_one_environment_variable(monkeypatch):
    from assay.memory.config import default_settings

    assert default_settings().pgvector_exact is False and default_settings().pgvector_candidates == 200
    monkeypatch.setenv("ASSAY_MEMORY_PGVECTOR_EXACT", "1")
    assert default_settings().pgvector_exact is True
    monkeypatch.setenv("ASSAY_MEMORY_PGVECTOR_EXACT", "yes please")
    with pytest.raises(ValueError, match="ASSAY_MEMORY_PGVECTOR_EXACT"):
        default_settings()
