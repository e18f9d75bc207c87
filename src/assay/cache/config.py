"""Defaults of the memo cache, in one place, each with its rationale."""

from __future__ import annotations

#: Longest accepted cache key (characters). Keys are ``{product}:{identifier}:{mode}``; 512 fits
#: long identifiers (ISIN + filing accession + section) and stays a cheap primary key on
#: PostgreSQL (``VARCHAR(512)``).
MAX_KEY_CHARS = 512

#: Snapshot indexes kept in process per :class:`~assay.cache.MemoCache`, by fingerprint. Building
#: the index of a 500-fact snapshot costs ~2 ms, more than the whole hit-path budget (1 ms);
#: 64 covers the popular identifiers a service process sees between data refreshes, at roughly
#: 1 MB per 500-fact index (uncited mode; a cited-mode index holds only the cited facts). The
#: same number of answers' parsed claims are kept by answer text: parsing a 10-quantity memo
#: costs ~0.3 ms of the re-gate, and the text of a served memo never changes.
INDEX_CACHE_SIZE = 64

#: Default TTL of :func:`~assay.cache.guarded_synthesis` (seconds). The fingerprint already
#: guarantees the data is unchanged; the TTL bounds what it cannot see (a model or prompt change
#: not reflected in ``synthesis_version``). One day matches a daily precompute cadence.
DEFAULT_TTL_S = 86_400.0

#: Faithfulness score a high-stakes memo needs from the judge before it is accepted and stored:
#: every claim supported (the judge's score is supported ÷ claims, so anything lower means at
#: least one unsupported claim).
DEFAULT_MIN_FAITHFULNESS = 1.0

#: SQLite ``synchronous`` for the cache's own connections. ``NORMAL`` is SQLite's recommended
#: setting in WAL mode: never corrupts, survives an application crash, and a power loss can only
#: roll back the last commits — which a cache recomputes. ``FULL`` (the default) costs an fsync
#: (~4 ms on a VM disk) per hit-count update, four times the hit-path budget.
SQLITE_SYNCHRONOUS = "NORMAL"
