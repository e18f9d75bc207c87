"""Fingerprinted memo cache and guarded synthesis.

Identical repeat requests need not re-run the whole LLM pipeline when the data has not moved.
Embedding-keyed caches serve wrong answers to different questions; this cache serves a memo
again only when the data it was written from is provably unchanged — same key, same
:meth:`assay.facts.Snapshot.fingerprint` (fact ids, labels, units, values, periods and source
passages), same synthesis version, same ``GATE_VERSION`` and gate mode, within its TTL — AND
the memo still passes the sourcing gate against the fresh snapshot. A memo that failed the gate
is never stored and never served. ``assay eval`` never reads it.

- :class:`MemoCache` — ``get_or_create(key, snapshot, synthesize, *, ttl_s, …)`` →
  :class:`CacheResult` ``(memo, status, gate)``;
- :func:`guarded_synthesis` — cache → synthesise → gate → completeness → judge, the inline call;
- tables ``memo_cache`` and ``memo_cache_counts`` on :data:`assay.storage.metadata` (:mod:`assay.cache.tables`);
- :mod:`assay.cache.soak` — the perturbation soak (random data changes must never be served).
"""

from assay.cache.guarded import GuardedResult, guarded_synthesis
from assay.cache.memo import STATUSES, CacheStatus, Memo, gate_accepts, gate_answer, make_key
from assay.cache.store import CacheResult, Lookup, MemoCache
from assay.cache.tables import memo_cache, memo_cache_counts

__all__ = [
    "MemoCache",
    "CacheResult",
    "Lookup",
    "CacheStatus",
    "STATUSES",
    "Memo",
    "GuardedResult",
    "guarded_synthesis",
    "make_key",
    "gate_answer",
    "gate_accepts",
    "memo_cache",
    "memo_cache_counts",
]
