"""The query embedding started beside the keyword scoring (``MemorySettings.overlap_query_embedding``):
the same rankings as the serial path, its errors raised in the caller, no embedding when no
similarity is needed."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from assay.memory import MemorySettings, MemoryStore
from assay.memory.config import Weights
from assay.memory.retrieval.embeddings import HashingEmbedder
from assay.memory.tables import memory_deliveries

HASHING = MemorySettings(embedder="hashing")
TEXTS = [
    "Caroline went to the LGBTQ support group on 7 May",
    "Melanie painted a sunrise by the lake",
    "the flight to Denver leaves at 9 from gate 12",
    "Project Falcon ships in March after the security review",
    "the hotel in Paris is booked for three nights",
    "Caroline is researching adoption agencies",
    "Melanie's kids love the beach in summer",
    "the security review of Falcon found two issues",
]
QUERIES = ["When did Caroline go to the support group?", "Falcon security", "Denver gate", "Melanie summer beach"]


class ThreadRecordingEmbedder(HashingEmbedder):
    """The hashing embedder, noting the thread of each call (and failing when told to)."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.fail = fail

    def embed(self, texts):
        self.threads.append(threading.current_thread().name)
        if self.fail and len(texts) == 1:
            raise RuntimeError("embedding runtime failed")
        return super().embed(texts)


@pytest.fixture()
def url(db_url: str) -> str:
    MemoryStore(db_url, settings=HASHING).add(
        [{"id": f"m{i}", "text": t, "scope": "a" if i % 2 else "b"} for i, t in enumerate(TEXTS)]
    )
    return db_url


def test_overlapped_and_serial_searches_rank_alike(url):
    emb = ThreadRecordingEmbedder()
    overlapped = MemoryStore(url, settings=HASHING, embedder=emb)
    serial = MemoryStore(url, settings=HASHING.with_(overlap_query_embedding=False), embedder=HashingEmbedder())
    for q in QUERIES:
        for scope in (None, "a"):
            a = overlapped.rank(q, 5, scope=scope)
            b = serial.rank(q, 5, scope=scope)
            assert [(h.memory.id, h.score, _timeless(h.components)) for h in a] == [
                (h.memory.id, h.score, _timeless(h.components)) for h in b
            ]
            assert a  # a real ranking, not two empty ones
    assert emb.threads and set(emb.threads) == {"assay-query-embedding"}  # embedded beside the scoring


def _timeless(components):
    """The components but recency (the age at the moment of each call: weight 0, reported only)."""
    return {k: v for k, v in (components or {}).items() if k != "recency"}


def test_an_embedding_error_is_raised_in_the_caller_and_logs_nothing(url):
    store = MemoryStore(url, settings=HASHING, embedder=ThreadRecordingEmbedder(fail=True))
    with pytest.raises(RuntimeError, match="embedding runtime failed"):
        store.search("Falcon security", 3)
    with store.engine.connect() as conn:
        assert conn.execute(select(memory_deliveries)).first() is None


def test_no_embedding_without_a_similarity_component(url):
    emb = ThreadRecordingEmbedder()
    keywords_only = HASHING.with_(weights=Weights(similarity=0.0, keywords=1.0, scope=0.0))
    hits = MemoryStore(url, settings=keywords_only, embedder=emb).rank("Falcon security review", 3)
    assert hits[0].memory.id in ("m3", "m7") and emb.threads == []
