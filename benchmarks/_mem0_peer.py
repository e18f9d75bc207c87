"""Helpers of ``bench_memory_mem0.py``: mem0's offline configuration, the id and recall mapping, a network guard.

Pure functions except :class:`NoNetwork` (patches ``socket`` for the duration of a ``with``)
and :func:`mem0_offline_gaps` (reads a live mem0 ``Memory``). Nothing here imports mem0, so the
recall mapping is testable without it (``tests/memory/retrieval/test_bench_mem0_peer.py``).
"""

from __future__ import annotations

import importlib.util
import ipaddress
import math
import socket
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: Environment the script sets before importing mem0 or sentence-transformers: telemetry off
#: (mem0 reads ``MEM0_TELEMETRY`` at import; on, it posts to PostHog and fetches notice flags)
#: and the Hugging Face libraries offline (the packaged MiniLM folder is a local path).
OFFLINE_ENV = {"MEM0_TELEMETRY": "False", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

#: The metadata key under which each mem0 memory carries the assay/LoCoMo memory id.
ID_KEY = "assay_id"


#: The local vector stores :func:`mem0_config` knows: mem0's default (Qdrant's local mode) and FAISS.
VECTOR_STORES = ("qdrant", "faiss")


def mem0_config(
    model_dir: Path, workdir: Path, *, vector_store: str = "qdrant", collection: str = "locomo"
) -> dict[str, Any]:
    """``Memory.from_config`` input for an offline mem0: ``model_dir`` (a sentence-transformers
    folder, the packaged all-MiniLM-L6-v2) as the ``huggingface`` embedder on CPU with
    ``local_files_only``; a local 384-d cosine vector store on disk under ``workdir`` —
    ``"qdrant"`` (mem0's default, Qdrant's local mode: no server) or ``"faiss"`` (a flat
    inner-product index, ``faiss-cpu``); the history database under ``workdir``. ``ValueError``
    for another store.

    mem0 builds an LLM client at construction even when every ``add`` passes ``infer=False``;
    it is pointed at a closed loopback port (``127.0.0.1:9``) with a placeholder key, so a call
    that did reach it would fail at once instead of leaving the machine.
    """
    common = {"collection_name": collection, "embedding_model_dims": 384, "path": str(workdir / vector_store)}
    stores = {"qdrant": common, "faiss": {**common, "distance_strategy": "cosine"}}
    if vector_store not in stores:
        raise ValueError(f"unknown vector store {vector_store!r}: expected one of {', '.join(VECTOR_STORES)}")
    return {
        "embedder": {
            "provider": "huggingface",
            "config": {
                "model": str(model_dir),
                "embedding_dims": 384,
                "model_kwargs": {"device": "cpu", "local_files_only": True},
            },
        },
        "vector_store": {"provider": vector_store, "config": stores[vector_store]},
        "llm": {
            "provider": "openai",
            "config": {"api_key": "unused-infer-false", "openai_base_url": "http://127.0.0.1:9/v1"},
        },
        "history_db_path": str(workdir / "history.db"),
    }


def mem0_hit_ids(results: Mapping[str, Any] | Sequence[Mapping[str, Any]], by_mem0_id: Mapping[str, str]) -> list[str]:
    """The assay memory ids of one mem0 search answer, best first.

    ``results``: ``Memory.search``'s ``{"results": [...]}`` (or the list itself); each item's
    id is its ``metadata[ID_KEY]``, else ``by_mem0_id[item["id"]]`` (mem0's uuid → assay id,
    recorded at add). Items with neither are dropped (they cannot be relevant); a repeated id
    is kept once, at its first rank.
    """
    items = results.get("results", []) if isinstance(results, Mapping) else results
    out: list[str] = []
    for item in items:
        meta = item.get("metadata") or {}
        mid = meta.get(ID_KEY) or by_mem0_id.get(str(item.get("id")))
        if mid is not None and mid not in out:
            out.append(str(mid))
    return out


def mean_by_category(rows: Iterable[tuple[str, float]]) -> dict[str, Any]:
    """``{"mean", "n", "per_category": {category: {"mean", "n"}}}`` of ``(category, value)`` rows
    (means rounded to 6 places, ``None`` when there are no rows; categories sorted)."""
    rows = list(rows)
    cats: dict[str, list[float]] = defaultdict(list)
    for c, v in rows:
        cats[c].append(v)

    def mean(vs: list[float]) -> float | None:
        return round(math.fsum(vs) / len(vs), 6) if vs else None

    return {
        "mean": mean([v for _, v in rows]),
        "n": len(rows),
        "per_category": {c: {"mean": mean(vs), "n": len(vs)} for c, vs in sorted(cats.items())},
    }


def p50_p95(ms: Sequence[float]) -> tuple[float, float]:
    """Median and 95th percentile (linear interpolation, numpy's default) of ``ms``; ``ValueError`` when empty."""
    if not ms:
        raise ValueError("no timings")
    xs = sorted(ms)

    def q(p: float) -> float:
        pos = p * (len(xs) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(xs) - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

    return q(0.5), q(0.95)


def is_loopback(host: Any) -> bool:
    """Whether ``host`` (an address tuple's host part, a name or ``None``) stays on this machine."""
    if host is None or host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


class NoNetwork:
    """Within ``with NoNetwork() as guard:`` every connection or name lookup that would leave the
    machine raises ``OSError`` and is recorded in ``guard.attempts`` (``"host:port"``); loopback
    and Unix sockets pass. It is the benchmark's proof that mem0 ran with no network."""

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._saved: dict[str, Any] = {}

    def __enter__(self) -> NoNetwork:
        cls = socket.socket
        self._saved = {"connect": cls.connect, "connect_ex": cls.connect_ex, "getaddrinfo": socket.getaddrinfo}
        connect, connect_ex, getaddrinfo = (self._saved[k] for k in ("connect", "connect_ex", "getaddrinfo"))
        guard = self

        def blocked(sock: socket.socket, address: Any) -> str | None:
            if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
                return None
            if is_loopback(address[0]):
                return None
            where = f"{address[0]}:{address[1]}"
            guard.attempts.append(where)
            return where

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            if (where := blocked(sock, address)) is not None:
                raise OSError(f"network disabled by the benchmark (connect to {where})")
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            if (where := blocked(sock, address)) is not None:
                raise OSError(f"network disabled by the benchmark (connect to {where})")
            return int(connect_ex(sock, address))

        def guarded_getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if not is_loopback(host.decode() if isinstance(host, bytes) else host):
                guard.attempts.append(f"{host}:{port} (name lookup)")
                raise socket.gaierror(socket.EAI_NONAME, f"network disabled by the benchmark (lookup of {host})")
            return getaddrinfo(host, port, *args, **kwargs)

        cls.connect = guarded_connect  # type: ignore[method-assign]
        cls.connect_ex = guarded_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = guarded_getaddrinfo
        return self

    def __exit__(self, *exc: object) -> None:
        socket.socket.connect = self._saved["connect"]  # type: ignore[method-assign]
        socket.socket.connect_ex = self._saved["connect_ex"]  # type: ignore[method-assign]
        socket.getaddrinfo = self._saved["getaddrinfo"]


def _spacy_reason() -> str:
    if importlib.util.find_spec("spacy") is None:
        return "spaCy not installed (mem0ai[nlp]); its model en_core_web_sm is no PyPI package"
    return "spaCy's en_core_web_sm not installed (spaCy fetches it from GitHub at run time)"


def preempt_model_downloads() -> list[str]:
    """Stop mem0 from shelling out to ``spacy download`` (a ``pip install`` from GitHub in a
    subprocess, which :class:`NoNetwork` cannot see): when spaCy is importable but
    ``en_core_web_sm`` is not, mark mem0's spaCy loader as failed, the state mem0 itself reaches
    when the download fails. Returns what it disabled (empty when nothing needed it)."""
    if importlib.util.find_spec("spacy") is None or importlib.util.find_spec("en_core_web_sm") is not None:
        return []
    from mem0.utils import spacy_models  # type: ignore[import-not-found]

    spacy_models._load_failed_full = True
    spacy_models._load_failed_lemma = True
    return [_spacy_reason()]


def mem0_count(memory: Any) -> int:
    """How many vectors a mem0 ``Memory``'s store holds (Qdrant: ``count``; FAISS: ``ntotal``)."""
    store = memory.vector_store
    if hasattr(store, "index") and hasattr(store.index, "ntotal"):
        return int(store.index.ntotal)
    return int(store.client.count(collection_name=memory.collection_name).count)


def paired_differences(a: Sequence[float | None], b: Sequence[float | None]) -> list[float]:
    """``a[i] - b[i]`` for every ``i`` where both are present (lists of per-query timings, ``None`` = failed)."""
    if len(a) != len(b):
        raise ValueError(f"unpaired timings: {len(a)} and {len(b)}")
    return [x - y for x, y in zip(a, b, strict=True) if x is not None and y is not None]


def mem0_offline_gaps(memory: Any) -> list[str]:
    """The parts of mem0's search that did not run, read from a ``Memory`` after its searches.

    mem0 (2.x) scores semantic + BM25 + entity boosts. BM25 needs fastembed's ``Qdrant/bm25``
    sparse model; entity boosts and BM25 lemmatisation need spaCy's ``en_core_web_sm``. Both
    models are fetched at run time (Hugging Face hub, spaCy's GitHub releases), which an offline
    run cannot do; mem0 then falls back to the semantic score alone (and unlemmatised text).
    Reads mem0 internals (``mem0.utils.spacy_models``, the Qdrant store's ``_bm25_encoder``) with
    safe defaults.
    """
    gaps = []
    try:
        from mem0.utils import spacy_models
    except ImportError:  # pragma: no cover - mem0 layout changed
        spacy_models = None
    if spacy_models is not None and getattr(spacy_models, "_nlp_lemma", None) is None:
        gaps.append(f"BM25 lemmatisation: {_spacy_reason()}")
    if spacy_models is not None and getattr(spacy_models, "_nlp_full", None) is None:
        gaps.append(f"entity boosts: {_spacy_reason()}")
    store = getattr(memory, "vector_store", None)
    encoder = getattr(store, "_bm25_encoder", None)
    if not hasattr(store, "_bm25_encoder"):
        gaps.append(f"BM25 keyword search: mem0's {type(store).__name__} store has none (semantic only)")
    elif encoder in (None, False):
        why = (
            "fastembed not installed (mem0ai[extras])"
            if importlib.util.find_spec("fastembed") is None
            else "fastembed could not load its Qdrant/bm25 model (Hugging Face hub, offline)"
        )
        gaps.append(f"BM25 keyword search: {why}")
    return gaps
