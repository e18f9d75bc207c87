"""Memory settings in one place, each default with its rationale.

Everything tunable about assay's agent memory lives here: the composite weights, the embedder
choice, the prefilter switch, the engagement thresholds, the recency half-life, the reranker
seam (:class:`MemorySettings`), and the cross-encoder rerankers — model folders, floors, blend,
device (:class:`RerankerSettings`). Library code takes a :class:`MemorySettings` (default:
:func:`default_settings`), so two stores in one process can differ and nothing is global. The
environment is read in this module only: ``ASSAY_MEMORY_*`` by :func:`default_settings`,
``ASSAY_RERANKER_*`` by :meth:`RerankerSettings.from_env`.

One reranker path: ``MemorySettings.reranker`` names a registered reranker, or is ``None``
(default) for the cross-encoder that :class:`RerankerSettings` configures, if any; which one
that is — a deployed student, a large model on a big enough GPU, a small one on CPU, or none —
is resolved in :mod:`assay.memory.learning.resolution`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "Weights",
    "WEIGHTS",
    "RANKER_VERSION",
    "MemorySettings",
    "RerankerSettings",
    "default_settings",
    "EMBEDDERS",
]

#: Names of the embedders :func:`assay.memory.retrieval.embeddings.make_embedder` builds.
EMBEDDERS = ("minilm", "hashing")

#: Names the composite scorer's rules; recorded in every delivery (``version``). Bump it when a
#: component's definition or a default weight changes, so deliveries of two rankers never pool.
RANKER_VERSION = "composite-v1"


@dataclass(frozen=True)
class Weights:
    """Weights of the composite score's components, each component in [0, 1].

    The weights need not sum to 1: only the order they induce matters (the score is compared
    between memories of one search, never across searches or against a fixed threshold).

    - ``similarity`` 0.50 — cosine of query and memory embeddings (clipped at 0): the main
      topical signal, robust to paraphrase.
    - ``keywords`` 0.15 — IDF-weighted share of the query's terms found among the memory's
      keywords: rewards exact names, numbers and rare terms that a 384-d sentence embedding
      blurs. Below similarity so a keyword hit refines, but does not override, topical order.
    - ``scope`` 0.05 — 1 when the memory's scope equals the query's: a tie-breaker towards the
      current project/conversation when the search is not restricted to it.
    - ``confidence`` 0.0 — reliability is reported, never ranked on: "veracity is not a ranking
      signal" — a doubtful memory that is on topic should still be shown (and graded), since
      being shown is how it gets corroborated or contradicted.
    - ``recency`` 0.0 — the decay is reported, never ranked on: "age is not a usefulness signal;
      obsolescence is handled by supersession" (a superseded memory is excluded outright).
    """

    similarity: float = 0.50
    keywords: float = 0.15
    scope: float = 0.05
    confidence: float = 0.0
    recency: float = 0.0

    def __post_init__(self) -> None:
        for name, w in self.as_dict().items():
            if not (isinstance(w, (int, float)) and w >= 0 and w == w and w != float("inf")):
                raise ValueError(f"weight {name} must be a finite number >= 0, got {w!r}")

    def as_dict(self) -> dict[str, float]:
        """``{component: weight}`` in the fixed component order."""
        return {
            "similarity": self.similarity,
            "keywords": self.keywords,
            "scope": self.scope,
            "confidence": self.confidence,
            "recency": self.recency,
        }


#: The reference weights (see :class:`Weights` for the rationale of each).
WEIGHTS = Weights()


@dataclass(frozen=True)
class MemorySettings:
    """How a :class:`~assay.memory.retrieval.store.MemoryStore` embeds, ranks, filters and labels.

    - ``embedder``: ``"minilm"`` (the packaged all-MiniLM-L6-v2, needs the ``ml`` extra) or
      ``"hashing"`` (dependency-free feature hashing — for fast tests; its cosine is lexical,
      not semantic). Default ``"minilm"``; the environment variable ``ASSAY_MEMORY_EMBEDDER``
      overrides it (:func:`default_settings`).
    - ``weights``: :data:`WEIGHTS`.
    - ``prefilter``: drop self-referential meta-memories before ranking (corrections exempt);
      on by default because such notes ("remember to save memories") match every query about
      memory and crowd out content.
    - ``semantic_engagement`` / ``semantic_threshold``: the semantic second chance of
      engagement and its cosine floor, 0.55 (the issue's value; for all-MiniLM-L6-v2 cosine
      ≥ 0.55 is roughly "same topic and claim", paraphrase pairs typically score 0.6–0.9).
    - ``lexical_min_overlap`` / ``lexical_min_terms``: lexical engagement fires when the
      overlap coefficient of the memory's distinctive terms with the response's new terms is
      ≥ 0.5 (half of the smaller set), or when ≥ 2 distinctive terms recur (a long response
      using a long memory: two content terms of the memory that the prompt did not contain are
      rarely a coincidence). On LoCoMo QA (answer as the response; relevant vs. random
      same-conversation memories) 2 terms raised recall from 0.40 to 0.44 at equal precision
      (0.92) compared with 3; see :mod:`assay.memory.feedback.engagement`.
    - ``recency_half_life_days``: 30 days — a month-old note counts half as recent; reported
      only (weight 0).
    - ``confidence_prior_strength``: 2 pseudo-observations behind the writer's confidence
      (a Beta prior; Laplace's rule of succession when the prior is 0.5).
    - ``reranker``: name of a registered reranker
      (:func:`assay.memory.learning.resolution.load_reranker`) applied to the composite top
      ``rerank_depth``; ``None`` (default): the cross-encoder :class:`RerankerSettings` configures
      (``ASSAY_RERANKER_*``, a deployed student first), or no reranking when none is configured.
    - ``arm``: the A/B arm label recorded with every delivery (default ``"default"``).
    - ``context_max_chars``: the cleaned recent-context window keeps its last 2,000
      characters (≈ 400 words: the last turn or two, which is what the memory should match).
    - ``encode_batch_size``: texts per embedding batch on insert (64: sentence-transformers'
      default 32 doubled, measured faster on CPU for short notes).
    - ``embed_threads``: torch intra-op threads for MiniLM, set when the model loads
      (process-wide: torch has one pool). ``None`` (default) keeps torch's choice, one per
      core. On a shared, oversubscribed host, 1 is much faster for one-query embeddings
      (measured on 2 cores at load average ≈ 8: p50 28 ms with 1 thread vs 132 ms with 2).
    - ``delivery_synchronous``: ``"NORMAL"`` — on SQLite, a search's delivery-log transaction
      commits under ``PRAGMA synchronous=NORMAL`` (WAL, as every assay engine): no fsync at its
      commit; the store's other writes keep their engine's level (``FULL``, SQLite's default,
      unless the engine says otherwise). A delivery so committed survives an application crash
      or SIGKILL; only a power loss or OS crash before the log's next fsync (a checkpoint, or any
      later ``FULL`` commit, such as a memory write) may roll back the last deliveries, in order
      (https://www.sqlite.org/pragma.html#pragma_synchronous) — a grade or reply for such a
      search then finds no delivery (:class:`~assay.memory.feedback.deliveries.UnknownSearchError`).
      Measured in process at 10,000 memories (issue 19: LoCoMo questions, 10 deliveries a search,
      the int8 ONNX query embedder; 300 searches a run, two runs each, interleaved with the
      ``FULL`` code on the shared 2-core host): the delivery write's p50 1.54 / 1.44 ms under
      ``FULL`` → 0.96 / 1.01 ms (load 1.8), 2.19 / 1.66 → 1.01 / 0.90 ms (load 3.2); with fsyncs
      queued behind other I/O a ``FULL`` commit took up to ~9 ms (bench_memory_search, load 4.7).
      ``"FULL"`` (or ``None``: the engine's own level) fsyncs every delivery. The memory server's
      engine is ``NORMAL`` for every write already (``ServerSettings.sqlite_synchronous``).
    - ``reranker_recheck_s``: while no reranker is served, :attr:`MemoryStore.reranker` asks the
      registry again at most this often (seconds; 0 = on every search): the question is a registry
      read (0.42 ms of every search, measured at 10,000 memories on a loaded host). 2 s is the
      registry's own pointer re-read (``RerankerSettings.registry_check_s``): a first deployment
      is followed as fast as a swap, by a store in process and by the memory server alike.
    - ``vector_path``: ``"auto"`` (default) takes the dense candidates from PostgreSQL when the
      pgvector extension is present (:mod:`assay.memory.retrieval.vectors`), else scores in process;
      ``"numpy"`` always scores in process (the pgvector mirror is still kept in sync, so
      stores of both kinds can share a database). Same rankings either way, up to the
      approximate index's recall.
    - ``pgvector_candidates``: memories asked from PostgreSQL per search, ``max(depth, 200)``
      (also the HNSW ``ef_search``, 1–1000). The composite adds at most ``keywords + scope``
      (0.20) to a memory's ``0.5 × similarity``, so memories outside the pool are ruled out by a
      bound or scored in process. On 100,000 clustered 384-d vectors
      (``benchmarks/bench_memory_pgvector.py``, pgvector 0.6.2, HNSW m = 16, ef_construction =
      64) bare SQL top-10 recall against the exact top-10 was 0.9735 at pgvector's default
      ``ef_search`` 40 and 0.9935–0.9995 at 100 over two runs, 0.999–0.9995 at 200 (SQL p50
      2.8–7.3 ms with other jobs running); the store's composite top-10 at 200 matched numpy's
      in every query (recall 1.0, p50 7.3 ms vs 11.2 ms in process). 200, not 100: at 100 a
      new-user review found 10 of 1,590 LoCoMo top-k lists ordered differently from SQLite's.
    - ``max_k``: the most memories one search may deliver (and one evaluation rank), 1,000.
      A search is a context window for an agent: a prompt holds tens of memories, not
      thousands, and every delivered memory is a logged delivery row (issue 16: ``-k
      99999999999999999999999`` delivered and logged the whole store, 1,518 → 5,610 rows after
      two searches, skewing ``memory stats``). 1,000 is also pgvector's ``ef_search`` bound.
      Raise it for offline analysis (``ASSAY_MEMORY_MAX_K``, :func:`default_settings`).
    - ``untrained_script_similarity``: the factor on the ``similarity`` weight for a query written
      mostly in a script the embedder was not trained on
      (:data:`assay.memory.retrieval.scripts.TRAINED_SCRIPTS`: all-MiniLM-L6-v2 is English-only),
      0.0: the composite then ranks such a query by its keyword component (character bigrams of
      particle-free Korean words, :func:`assay.memory.text.terms`) and scope. Measured on the
      Korean set (``tests/memory/data/korean``, ``benchmarks/bench_memory_korean.py``, MiniLM):
      composite recall@10 0.873 / MRR 0.714 with the similarity kept (factor 1.0), 0.964 / 0.878
      with a tenth of it as a tie-breaker (0.1), 0.982 / 0.923 without it (0.0); MiniLM's dense
      recall@10 alone is 0.591 — its cosine on Hangul is close to noise. 1.0 turns the rule
      off. An embedder not listed (the hashing one) is never scaled.
    - ``pgvector_exact``: bypass the HNSW index (an exact scan and sort in PostgreSQL): exactly
      the numpy path's top-k, at O(n) per query. Off by default; ``ASSAY_MEMORY_PGVECTOR_EXACT=1``
      turns it on (:func:`default_settings`).
    - ``ann_threshold``: from this many indexed memories on, the numpy path takes its dense
      candidates from an in-process HNSW graph (:mod:`assay.memory.retrieval.ann`, the ``ann``
      extra: hnswlib) and re-scores them exactly; ``None`` = always exact. 20,000: below it the
      exact matrix–vector product costs ≲ 2 ms (it scales linearly: ≈ 0.9 ms at 10,000 × 384
      from the 8.6 ms below) and a graph is not worth its memory and build time; at 100,000
      exact top-10 took 8.6 ms p50 against 0.17 ms for hnswlib (issue 19).
      ``ASSAY_MEMORY_ANN_THRESHOLD`` (a number, or ``off``) overrides it.
    - ``ann_m`` / ``ann_ef_construction``: HNSW degree 32 and build beam 200 (hnswlib's
      recommended range for 384-d embeddings: M 12–48). At 1,000,000 clustered 384-d vectors
      (``benchmarks/bench_ann_scale.py --million``) M 16 / 100 left nodes the search cannot
      reach: plain recall@10 plateaued at 0.984 from ef 400 to ef 5,000; M 32 / 200 gave 0.997
      at ef 100 and 1.0 at ef 200 (plain, scoped and keyword composite top-10, 100 queries), for
      1,812 MB instead of 1,685 MB and a build of 3,060 s on 2 threads of a loaded host (M 16:
      523 s on a quiet one) — paid once, then only new rows are added. ``ann_threads``: build
      threads, 1 (a shared host; the build is paid once).
    - ``ann_ef_search``: HNSW search beam of the global graph (hnswlib's ``ef``: ≥ k, higher =
      more accurate and slower), used as ``max(ann_ef_search, pool asked for)``. 100: at
      1,000,000 clustered 384-d vectors (M 32 / 200, ``benchmarks/bench_ann_scale.py
      --million``, 200 queries, plain composite top-10 vs the exact path) recall@10 was 0.9675
      at ef 64, 0.994 at 100, 0.997 at 128 and 0.9995 at 200; the graph's top 64 cost 0.87 / 1.10
      / 1.38 ms of CPU p50 at ef 64 / 100 / 200 on a host at load 4 (2 cores): 100 is the
      narrowest beam above 0.99 and leaves the plain ranking ≈ 1.4 ms CPU where 200 took 2.2.
    - ``ann_ef_probe``: the narrower beam of the global graph's *probe*, asked first by a query
      whose large scope has its own graph (:mod:`assay.memory.retrieval.pooled`: there the
      global pool only has to show that no row outside the scope and the keyword hits reaches
      the top k; when a probed row does, the query is ranked again at ``ann_ef_search``). 16:
      same benchmark, scoped and keyword recall@10 1.0 at probe beams 16, 24, 32 and 200, the
      scoped query's CPU p50 1.44 ms at 16 against 1.92 at 32 and 3.42 at 200 (one run each,
      load 4–6).
    """

    embedder: Literal["minilm", "hashing"] = "minilm"
    weights: Weights = field(default_factory=Weights)
    prefilter: bool = True
    semantic_engagement: bool = True
    semantic_threshold: float = 0.55
    lexical_min_overlap: float = 0.5
    lexical_min_terms: int = 2
    recency_half_life_days: float = 30.0
    confidence_prior_strength: float = 2.0
    reranker: str | None = None
    rerank_depth: int = 50
    arm: str = "default"
    context_max_chars: int = 2000
    encode_batch_size: int = 64
    embed_threads: int | None = None
    delivery_synchronous: Literal["NORMAL", "FULL"] | None = "NORMAL"
    reranker_recheck_s: float = 2.0
    vector_path: Literal["auto", "numpy"] = "auto"
    pgvector_candidates: int = 200
    pgvector_exact: bool = False
    max_k: int = 1000
    untrained_script_similarity: float = 0.0
    ann_threshold: int | None = 20_000
    ann_m: int = 32
    ann_ef_construction: int = 200
    ann_threads: int = 1
    ann_ef_search: int = 100
    ann_ef_probe: int = 16

    def __post_init__(self) -> None:
        if self.embedder not in EMBEDDERS:
            raise ValueError(f"embedder must be one of {', '.join(EMBEDDERS)}, got {self.embedder!r}")
        if not 0.0 <= self.semantic_threshold <= 1.0:
            raise ValueError(f"semantic_threshold must be in [0, 1], got {self.semantic_threshold}")
        if not 0.0 < self.lexical_min_overlap <= 1.0:
            raise ValueError(f"lexical_min_overlap must be in (0, 1], got {self.lexical_min_overlap}")
        if self.lexical_min_terms < 1:
            raise ValueError(f"lexical_min_terms must be >= 1, got {self.lexical_min_terms}")
        if not self.recency_half_life_days > 0:
            raise ValueError(f"recency_half_life_days must be > 0, got {self.recency_half_life_days}")
        if not self.confidence_prior_strength > 0:
            raise ValueError(f"confidence_prior_strength must be > 0, got {self.confidence_prior_strength}")
        if not self.reranker_recheck_s >= 0:
            raise ValueError(f"reranker_recheck_s must be >= 0, got {self.reranker_recheck_s}")
        if self.delivery_synchronous not in (None, "NORMAL", "FULL"):
            raise ValueError(f"delivery_synchronous must be None, NORMAL or FULL, got {self.delivery_synchronous!r}")
        if self.embed_threads is not None and self.embed_threads < 1:
            raise ValueError(f"embed_threads must be >= 1 or None, got {self.embed_threads}")
        if self.rerank_depth < 1 or self.context_max_chars < 1 or self.encode_batch_size < 1:
            raise ValueError("rerank_depth, context_max_chars and encode_batch_size must be >= 1")
        if self.vector_path not in ("auto", "numpy"):
            raise ValueError(f"vector_path must be auto or numpy, got {self.vector_path!r}")
        if not 1 <= self.pgvector_candidates <= 1000:
            raise ValueError(
                f"pgvector_candidates must be in [1, 1000] (pgvector's ef_search bound), got {self.pgvector_candidates}"
            )
        if not self.arm.strip():
            raise ValueError("arm must be a non-empty string")
        if not 0.0 <= self.untrained_script_similarity <= 1.0:
            raise ValueError(f"untrained_script_similarity must be in [0, 1], got {self.untrained_script_similarity}")
        if isinstance(self.max_k, bool) or not isinstance(self.max_k, int) or self.max_k < 1:
            raise ValueError(f"max_k must be an integer >= 1, got {self.max_k!r}")
        if self.ann_threshold is not None and self.ann_threshold < 1:
            raise ValueError(f"ann_threshold must be >= 1 or None, got {self.ann_threshold}")
        if self.ann_m < 2 or min(self.ann_ef_construction, self.ann_threads, self.ann_ef_search, self.ann_ef_probe) < 1:
            raise ValueError(
                "ann_m must be >= 2, ann_ef_construction, ann_threads, ann_ef_search and ann_ef_probe >= 1"
            )

    def with_(self, **changes: object) -> MemorySettings:
        """A copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class RerankerSettings:
    """Cross-encoder reranker settings, each default with its rationale; the environment is read
    for them here only (:meth:`from_env`, ``ASSAY_RERANKER_*``).

    - ``student_dir``: folder of the trained student (``assay memory train --out``); used when
      it holds a model and its card. ``None``: no student.
    - ``small_model`` / ``large_model``: local folders of off-the-shelf cross-encoders (e.g. an
      MS MARCO MiniLM on CPU, a bge-reranker-large on GPU); ``None``: not configured.
    - ``gpu``: allow CUDA (default on: the large model is only worth it on a GPU).
    - ``min_vram_gb``: 6 GB (decimal) of GPU memory for the large model — a 560M-parameter
      cross-encoder in fp16 needs ≈ 1.1 GB of weights plus activations for a 50-candidate pool at
      512 tokens; 6 GB leaves room for the agent's own model on consumer cards.
    - ``small_floor`` / ``large_floor`` / ``student_floor``: suppression floors on each model's
      raw score (a candidate scoring below is not delivered); ``None`` = off. Off by default:
      a floor must be calibrated on graded deliveries (``assay memory calibrate``) — a guessed
      floor can drop the memories the agent finds most useful.
    - ``blend_weight``: weight of the model in the blend with the composite, in [0, 1]; 0.5
      trusts both equally (1 = model order alone, 0 = composite order).
    - ``max_length``: tokens per (query, memory) pair, 128 (a memory is a note, not a document;
      longer inputs cost time quadratically in attention).
    - ``batch_size``: pairs per forward pass, 10: pairs are sorted by length first, and small
      batches of similar lengths waste less on padding than one padded batch (on 1 CPU thread,
      20 LoCoMo candidates: p95 89 ms at 10 vs 121 ms at 20; ``bench_rerank_latency.py``).
    - ``threads``: torch intra-op threads set at load (process-wide); ``None`` keeps torch's.
    - ``int8``: dynamic int8 quantisation of the linear layers on CPU (ignored on CUDA). On by
      default: it is what meets the latency target (20 candidates p95 ≤ 120 ms on CPU; fp32 is
      ≈ 2.4× slower) — ``benchmarks/bench_rerank_latency.py`` measures both and how many
      candidate orders int8 keeps; ``bench_rerank_locomo.py`` the held-out agreement change.
      The deploy gate scores a candidate under the same setting, so it judges what will serve.
    - ``apply_floor``: apply the floor calibrated for the registry's deployed model (stored on its
      row by ``assay memory models floor``). Off by default, like every floor: the calibration
      reports what a floor would drop, and turning it on is a decision.
    - ``registry_check_s``: how often (seconds) a store serving the registry's deployed model
      re-reads this host's deployment pointer, so a retrain or a rollback reaches a running server
      without a restart. 2 s: one primary-key read per search at most every 2 s is noise next to a
      rerank (tens of ms), and a new model serves within seconds of its deployment. 0: every search.
    """

    student_dir: str | None = None
    small_model: str | None = None
    large_model: str | None = None
    gpu: bool = True
    min_vram_gb: float = 6.0
    small_floor: float | None = None
    large_floor: float | None = None
    student_floor: float | None = None
    blend_weight: float = 0.5
    max_length: int = 128
    batch_size: int = 10
    threads: int | None = None
    int8: bool = True
    apply_floor: bool = False
    registry_check_s: float = 2.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.blend_weight <= 1.0:
            raise ValueError(f"blend_weight must be in [0, 1], got {self.blend_weight}")
        if not self.min_vram_gb >= 0:
            raise ValueError(f"min_vram_gb must be >= 0, got {self.min_vram_gb}")
        if self.max_length < 8 or self.batch_size < 1 or (self.threads is not None and self.threads < 1):
            raise ValueError("max_length must be >= 8, batch_size >= 1, threads >= 1 or None")
        if not (math.isfinite(self.registry_check_s) and self.registry_check_s >= 0):
            raise ValueError(f"registry_check_s must be a finite number >= 0, got {self.registry_check_s}")
        for name in ("small_floor", "large_floor", "student_floor"):
            v = getattr(self, name)
            if v is not None and not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number or None, got {v}")

    def with_(self, **changes: Any) -> RerankerSettings:
        """A copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RerankerSettings:
        """Settings from ``ASSAY_RERANKER_*`` variables: ``STUDENT``, ``SMALL``, ``LARGE`` (folders),
        ``GPU`` (0/1), ``MIN_VRAM_GB``, ``BLEND``, ``FLOOR_SMALL``, ``FLOOR_LARGE``,
        ``FLOOR_STUDENT``, ``MAX_LENGTH``, ``THREADS``, ``INT8`` (0/1, default 1), ``APPLY_FLOOR``
        (0/1, default 0), ``REGISTRY_CHECK_S``. Unset → the default.
        ``ValueError`` naming the variable for a value that does not parse."""
        env = os.environ if environ is None else environ
        kw: dict[str, Any] = {}
        for key, attr, conv in _ENV:
            raw = env.get(f"ASSAY_RERANKER_{key}")
            if raw is None or not raw.strip():
                continue
            try:
                kw[attr] = conv(raw.strip())
            except ValueError:
                raise ValueError(f"ASSAY_RERANKER_{key}={raw!r}: not a valid {conv.__name__.lstrip('_')}") from None
        return cls(**kw)


def default_settings(**changes: object) -> MemorySettings:
    """:class:`MemorySettings` defaults, then the environment — ``ASSAY_MEMORY_EMBEDDER``
    (``minilm`` | ``hashing``), ``ASSAY_MEMORY_PGVECTOR_EXACT`` (``1`` | ``0``),
    ``ASSAY_MEMORY_MAX_K`` (an integer >= 1), ``ASSAY_MEMORY_ANN_THRESHOLD`` (a count, or ``off``) — then ``changes``.
    Raises ``ValueError`` naming the variable for a value it does not accept."""
    env: dict[str, object] = {}
    if embedder := os.environ.get("ASSAY_MEMORY_EMBEDDER"):
        env["embedder"] = embedder
    if exact := os.environ.get("ASSAY_MEMORY_PGVECTOR_EXACT", "").strip():
        if exact not in ("0", "1"):
            raise ValueError(f"ASSAY_MEMORY_PGVECTOR_EXACT={exact!r}: use 1 (exact search) or 0")
        env["pgvector_exact"] = exact == "1"
    if max_k := os.environ.get("ASSAY_MEMORY_MAX_K", "").strip():
        if not max_k.isdigit() or int(max_k) < 1:
            raise ValueError(f"ASSAY_MEMORY_MAX_K={max_k!r}: an integer >= 1 (the most memories one search delivers)")
        env["max_k"] = int(max_k)
    if ann := os.environ.get("ASSAY_MEMORY_ANN_THRESHOLD", "").strip():
        if ann.lower() == "off":
            env["ann_threshold"] = None
        elif ann.isdigit() and int(ann) >= 1:
            env["ann_threshold"] = int(ann)
        else:
            raise ValueError(f"ASSAY_MEMORY_ANN_THRESHOLD={ann!r}: use a number of memories >= 1, or off")
    return MemorySettings(**env).with_(**changes)  # type: ignore[arg-type]


def _bool(v: str) -> bool:
    if v.lower() in ("1", "true", "yes", "on"):
        return True
    if v.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(v)


_ENV: list[tuple[str, str, Callable[[str], Any]]] = [
    ("STUDENT", "student_dir", str),
    ("SMALL", "small_model", str),
    ("LARGE", "large_model", str),
    ("GPU", "gpu", _bool),
    ("MIN_VRAM_GB", "min_vram_gb", float),
    ("BLEND", "blend_weight", float),
    ("FLOOR_SMALL", "small_floor", float),
    ("FLOOR_LARGE", "large_floor", float),
    ("FLOOR_STUDENT", "student_floor", float),
    ("MAX_LENGTH", "max_length", int),
    ("THREADS", "threads", int),
    ("INT8", "int8", _bool),
    ("APPLY_FLOOR", "apply_floor", _bool),
    ("REGISTRY_CHECK_S", "registry_check_s", float),
]


def host_id(environ: Mapping[str, str] | None = None) -> str:
    """This machine's name in the reranker model registry (one deployment pointer per host):
    ``ASSAY_HOST_ID`` when set (containers and CI runners rename themselves), else the host name
    (:func:`socket.gethostname`)."""
    import socket

    env = os.environ if environ is None else environ
    return (env.get("ASSAY_HOST_ID") or "").strip() or socket.gethostname()


def default_models_dir(environ: Mapping[str, str] | None = None) -> str:
    """Where ``assay memory retrain`` keeps the registry's model folders by default:
    ``$ASSAY_HOME/models`` (``ASSAY_HOME`` defaults to ``~/.assay``, as the database does)."""
    from pathlib import Path

    env = os.environ if environ is None else environ
    home = Path(env.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()
    return str(home / "models")
