"""The in-process approximate index: used above the threshold, exact re-scoring, in sync with the store."""

from __future__ import annotations

import os

import numpy as np
import pytest

from assay.memory import HashingEmbedder, MemoryStore, default_settings
from assay.memory.retrieval.ann import AnnIndex, ann_source

if os.environ.get("CI") != "true":  # under CI the 'ann' extra is installed and its absence must fail
    pytest.importorskip("hnswlib")

DIM = 32


def _clustered(n: int, rng: np.random.Generator, centres: np.ndarray) -> np.ndarray:
    v = centres[rng.integers(0, len(centres), n)] + 0.35 * rng.standard_normal((n, DIM))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _store(tmp_path, name: str, threshold: int | None) -> MemoryStore:
    return MemoryStore(
        f"sqlite:///{tmp_path / name}",
        settings=default_settings(embedder="hashing", ann_threshold=threshold),
        embedder=HashingEmbedder(DIM),
    )


def _fill(store: MemoryStore, vecs: np.ndarray, start: int = 0) -> None:
    store.add(
        [{"id": f"m{start + i}", "text": f"note {start + i} about topic {(start + i) % 17}"} for i in range(len(vecs))],
        embeddings=vecs,
        embedding_model=store.embedder.model,
    )


def test_rankings_match_the_exact_path_up_to_the_graphs_recall(tmp_path):
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((20, DIM))
    vecs = _clustered(3000, rng, centres)
    exact, approx = _store(tmp_path, "e.db", None), _store(tmp_path, "a.db", 500)
    _fill(exact, vecs)
    _fill(approx, vecs)
    queries = _clustered(40, rng, centres)
    same = total = 0
    for i, q in enumerate(queries):
        text = f"topic {i % 17}"
        e_hits = _rank(exact, text, q)
        a_hits = _rank(approx, text, q)
        same += len(set(e_hits) & set(a_hits))
        total += len(e_hits)
    assert isinstance(approx.index().ann, AnnIndex) and exact.index().ann is None
    assert same / total >= 0.99


def _rank(store: MemoryStore, text: str, q: np.ndarray) -> list[str]:
    from assay.memory.retrieval.search import rank_hits

    return [h.memory.id for h in rank_hits(store, text, 10, query_vector=q)]


def test_the_graph_follows_the_store_revision(tmp_path):
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((5, DIM))
    store = _store(tmp_path, "s.db", 300)
    _fill(store, _clustered(400, rng, centres))
    q = _clustered(1, rng, centres)[0]
    _rank(store, "topic", q)
    graph = store.index().ann
    assert len(graph) == 400
    new = q.reshape(1, -1).copy()  # a memory equal to the query: it must come first once added
    _fill(store, new, start=400)
    assert _rank(store, "topic", q)[0] == "m400" and len(graph) == 401


def test_below_the_threshold_or_off_no_graph_is_built(tmp_path):
    store = _store(tmp_path, "small.db", 10_000)
    rng = np.random.default_rng(1)
    _fill(store, _clustered(50, rng, rng.standard_normal((3, DIM))))
    assert ann_source(store.index(), store.settings) is None
    assert ann_source(store.index(), store.settings.with_(ann_threshold=None)) is None


def test_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("ASSAY_MEMORY_ANN_THRESHOLD", "off")
    assert default_settings().ann_threshold is None
    monkeypatch.setenv("ASSAY_MEMORY_ANN_THRESHOLD", "123")
    assert default_settings().ann_threshold == 123
    monkeypatch.setenv("ASSAY_MEMORY_ANN_THRESHOLD", "lots")
    with pytest.raises(ValueError, match="ASSAY_MEMORY_ANN_THRESHOLD"):
        default_settings()


def _index_rows(vecs: np.ndarray, scopes: list[str]):
    from assay.memory.retrieval.index import IndexRow

    return [
        IndexRow(i + 1, f"m{i:05d}", f"note {i}", (), scopes[i], 0.5, None, False, False, vecs[i])
        for i in range(len(vecs))
    ]


def test_a_large_scope_gets_its_own_graph_kept_in_sync(monkeypatch):
    import assay.memory.retrieval.pooled as pooled_module
    from assay.memory.config import Weights
    from assay.memory.retrieval.index import MemoryIndex

    rng = np.random.default_rng(11)
    centres = rng.standard_normal((20, DIM))
    vecs = _clustered(4000, rng, centres)
    scopes = [f"s{i % 20}" for i in range(4000)]  # 200 rows per scope: few in the global pool of 200
    index = MemoryIndex()
    index.upsert(_index_rows(vecs, scopes))
    settings = default_settings(embedder="hashing", ann_threshold=1)
    pool = ann_source(index, settings)
    monkeypatch.setattr(pooled_module, "SCOPE_SCAN", 50)  # a 200-row scope is "large" here
    monkeypatch.setattr(index, "scope_rows", lambda *a, **k: pytest.fail("the large scope was scanned"))
    w = Weights(scope=0.3)  # the scope's rows are a class of their own

    def ranks(q: np.ndarray, scope: str, dense_pool) -> list[int]:
        got = index.rank("note", q, 10, weights=w, scope=scope, now=0.0, half_life_days=30.0, dense_pool=dense_pool)
        return [r.row for r in got]

    same = total = 0
    for i, q in enumerate(_clustered(30, rng, centres)):
        e, a = ranks(q, f"s{i % 3}", None), ranks(q, f"s{i % 3}", pool)
        same, total = same + len(set(e) & set(a)), total + len(e)
    assert same / total >= 0.99
    graph = index.ann
    assert sorted(graph.scopes) == sorted(index._scope_codes[f"s{j}"] for j in range(3))
    code = index._scope_codes["s1"]
    assert sorted(graph.scopes[code]._g.get_ids_list()) == [r for r in range(4000) if r % 20 == 1]
    # a new row of s1 equal to the query: found through the synced scope graph
    q = _clustered(1, rng, centres)[0]
    index.upsert(_index_rows(np.vstack([vecs, q]), [*scopes, "s1"])[4000:])
    assert ranks(q, "s1", pool)[0] == 4000
    assert pool.scoped(q, 5, code).rows[0] == 4000 and len(graph.scopes[code]) == 201
    # a row moved into s1 in place: the scope graphs are started again and hold it
    index.upsert([_index_rows(vecs[:1], ["s1"])[0]._replace(vector=None)])
    assert index.scope_moves == 1 and ranks(vecs[0], "s1", pool)[0] == 0
    assert pool.scoped(vecs[0], 5, code).rows[0] == 0
    assert 0 in graph.scopes[code]._g.get_ids_list() and len(graph.scopes[code]) == 202


def test_a_scoped_query_probes_the_global_graph_and_falls_back_to_the_full_beam(monkeypatch):
    import assay.memory.retrieval.pooled as pooled_module
    from assay.memory.retrieval.index import MemoryIndex

    rng = np.random.default_rng(13)
    centres = rng.standard_normal((4, DIM)) * 3
    which = rng.integers(0, 4, 3000)
    vecs = centres[which] + 0.35 * rng.standard_normal((3000, DIM))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    index = MemoryIndex()
    index.upsert(_index_rows(vecs, [f"c{c}" for c in which]))  # a scope per cluster
    settings = default_settings(embedder="hashing", ann_threshold=1)
    pool = ann_source(index, settings)
    monkeypatch.setattr(pooled_module, "SCOPE_SCAN", 50)  # ~750-row scopes: each gets its own graph
    beams: list[tuple[int | None, int | None]] = []
    search = AnnIndex.search
    monkeypatch.setattr(
        AnnIndex, "search", lambda g, ix, q, n, ef=None: beams.append((g.scope_code, ef)) or search(g, ix, q, n, ef)
    )

    def ranks(q: np.ndarray, scope: str, dense_pool) -> list[int]:
        got = index.rank(
            "note", q, 10, weights=settings.weights, scope=scope, now=0.0, half_life_days=30.0, dense_pool=dense_pool
        )
        return [r.row for r in got]

    q = vecs[int(np.flatnonzero(which == 1)[0])]
    code = index._scope_codes["c1"]
    assert ranks(q, "c1", pool) == ranks(q, "c1", None)  # the query's own cluster: the probe settles it
    assert beams == [(None, settings.ann_ef_probe), (code, None)]
    beams.clear()  # another cluster's scope: its rows lose to the query's cluster, ranked at the full beam
    assert ranks(q, "c2", pool) == ranks(q, "c2", None)
    assert beams[0] == (None, settings.ann_ef_probe) and (None, None) in beams[1:]
