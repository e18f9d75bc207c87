"""The offline replay harness: past sessions through writing prompt A and B, compared before live traffic.

For every session and arm the generator writes memories; then, per arm and as B − A with 95 %
CIs resampling cohorts: the dedup rate, the findability backtest (recall@k of the questions'
evidence turns), the self-sufficiency cold read (one memory alone, 0/1, fail-closed; at most
``cold_read_limit`` memories an arm, in session order), and the blind position-swapped pairwise
judge on the two arms' memory sets of each session (criteria :data:`REPLAY_CRITERIA`).
:func:`plan` counts the calls and tokens of a run without making any (``--dry-run``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from assay.embedding import Embedder
from assay.judges.cold_read import ColdReadJudge
from assay.judges.pairwise import PairwiseJudge
from assay.judges.pairwise_prompt import Criterion, Pair, build_request
from assay.judges.pairwise_stats import pairwise_aggregate
from assay.llm.base import estimate_tokens
from assay.memory.replay.generate import Generation
from assay.memory.replay.metrics import dedup_flags, diff_ci, findability, rate_ci
from assay.memory.replay.models import Memory, Question, ReplaySettings, Session

__all__ = ["REPLAY_CRITERIA", "Generator", "plan", "run_replay", "memory_set_text"]

REPLAY_CRITERIA: tuple[Criterion, ...] = (
    Criterion(name="findability", definition="a later question about this session would retrieve the needed memory"),
    Criterion(name="self_sufficiency", definition="each memory is understandable and usable without the session"),
    Criterion(name="fitness", definition="keeps what is worth remembering, nothing trivial, nothing invented"),
)
ARMS = ("A", "B")


class Generator(Protocol):
    """What an arm's writer provides (:mod:`assay.memory.replay.generate`)."""

    name: str

    def calls(self, session: Session) -> int: ...

    async def generate(self, session: Session, arm: str) -> Generation: ...


def memory_set_text(memories: Sequence[Memory]) -> str:
    """One arm's memories of a session as the pairwise judge reads them: one ``- text`` a line."""
    return "\n".join(f"- {m.text}" for m in memories) or "(no memories)"


def _unit(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, int(getattr(embedder, "dim", 1))), dtype=np.float32)
    v = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, n, out=np.zeros_like(v), where=n > 0)


async def _generate_all(sessions: Sequence[Session], gens: Mapping[str, Generator]) -> dict[str, list[Generation]]:
    out = {}
    for arm, gen in gens.items():
        out[arm] = list(await asyncio.gather(*(gen.generate(s, arm) for s in sessions)))
    return out


def run_replay(
    sessions: Sequence[Session],
    questions: Sequence[Question],
    generators: Mapping[str, Generator],
    embedder: Embedder,
    *,
    cold_read: ColdReadJudge | None = None,
    pairwise: PairwiseJudge | None = None,
    settings: ReplaySettings | None = None,
    cold_read_limit: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Replay ``sessions`` through ``generators["A"]`` and ``["B"]``; returns ``(local, aggregate)``.

    ``local`` (session and question ids: local only) = ``{"schema": 1, "kind": "replay",
    "sessions": [{"id", "cohort", "arms": {arm: {"status", "reason", "memories"}}, "pairwise"}],
    "questions": [{"id", "cohort", "recall": {arm: r}}]}``; ``aggregate`` (no id) = ``{"arms":
    {arm: {"generator", "n_memories", "generation", "dedup_rate", "recall_at_k", "cold_read"}},
    "diff_b_minus_a": {metric: {"value", "ci", "n"}}, "pairwise", "k", "notes"}``.
    Raises ``ValueError`` when the arms are not exactly A and B or a question's cohort has no session.
    """
    s = settings or ReplaySettings()
    if sorted(generators) != list(ARMS):
        raise ValueError("replay needs exactly two arms, A and B")
    cohorts = {x.cluster for x in sessions}
    stray = sorted({q.cohort for q in questions} - cohorts)
    if stray:
        raise ValueError(f"questions: cohort {stray[0]!r} has no session")
    gens = asyncio.run(_generate_all(sessions, generators))
    mems = {arm: [m for g in gens[arm] for m in g[0]] for arm in ARMS}
    q_vec = _unit(embedder, [q.text for q in questions])
    stat = {"n_resamples": s.n_resamples, "seed": s.seed}
    arms: dict[str, Any] = {}
    per_cohort: dict[str, dict[str, dict[str, float]]] = {"dedup": {}, "recall": {}, "cold_read": {}}
    recall_by_arm: dict[str, list[float]] = {}
    reads_by_arm: dict[str, list[Any]] = {}
    for arm in ARMS:
        ms = mems[arm]
        vec = _unit(embedder, [m.text for m in ms])
        flags = dedup_flags(ms, vec, s.dedup_cosine)
        recall = findability(questions, q_vec, ms, vec, s.k)
        recall_by_arm[arm] = recall
        limit = len(ms) if cold_read_limit is None else min(cold_read_limit, len(ms))
        reads = asyncio.run(cold_read.aread_many([m.text for m in ms[:limit]])) if cold_read is not None else []
        reads_by_arm[arm] = reads
        scored = [(ms[i].cohort, float(r.value)) for i, r in enumerate(reads) if r.value is not None]
        status = Counter(g[1] for g in gens[arm])
        reasons = Counter((g[2] or "").split(":", 1)[0] for g in gens[arm] if g[1] != "ok")
        arms[arm] = {
            "generator": generators[arm].name,
            "n_memories": len(ms),
            "generation": {
                "ok": status["ok"],
                "rejected": status["rejected"],
                "skipped": status["skipped"],
                "reasons": dict(sorted(reasons.items())),
                "tokens": sum(g[3] for g in gens[arm]),
            },
            "dedup_rate": rate_ci([float(f) for f in flags], [m.cohort for m in ms], **stat),
            "recall_at_k": rate_ci(recall, [q.cohort for q in questions], **stat),
            "cold_read": {
                **rate_ci([v for _, v in scored], [c for c, _ in scored], **stat),
                "backend": cold_read.backend if cold_read is not None else None,
                "n_read": len(reads),
                "n_rejected": sum(r.status == "rejected" for r in reads),
                "n_skipped": sum(r.status == "skipped" for r in reads),
            },
        }
        per_cohort["dedup"][arm] = _cohort_means([m.cohort for m in ms], [float(f) for f in flags])
        per_cohort["recall"][arm] = _cohort_means([q.cohort for q in questions], recall)
        per_cohort["cold_read"][arm] = _cohort_means([c for c, _ in scored], [v for _, v in scored])
    ident = {c: c for c in cohorts}
    diffs = {
        "dedup_rate": diff_ci(per_cohort["dedup"]["A"], per_cohort["dedup"]["B"], ident, **stat),
        "recall_at_k": diff_ci(
            {str(i): r for i, r in enumerate(recall_by_arm["A"])},
            {str(i): r for i, r in enumerate(recall_by_arm["B"])},
            {str(i): q.cohort for i, q in enumerate(questions)},
            **stat,
        ),
        "cold_read": diff_ci(per_cohort["cold_read"]["A"], per_cohort["cold_read"]["B"], ident, **stat),
    }
    pw_records: list[Any] = [None] * len(sessions)
    pw_agg = None
    if pairwise is not None:
        pairs = [
            Pair(
                id=x.id,
                context="Memories an assistant saved from one past conversation session.",
                output_a=memory_set_text(gens["A"][i][0]),
                output_b=memory_set_text(gens["B"][i][0]),
                cohort=x.cluster,
            )
            for i, x in enumerate(sessions)
        ]
        pw_records = pairwise.judge_many(pairs)
        usage = pairwise.client.usage() if pairwise.client is not None else None
        pw_agg = pairwise_aggregate(
            pw_records, pairwise.criteria, backend=pairwise.backend, model=pairwise.model, usage=usage, **stat
        )
    local = {
        "schema": 1,
        "kind": "replay",
        "sessions": [
            {
                "id": x.id,
                "cohort": x.cluster,
                "arms": {
                    arm: {
                        "status": gens[arm][i][1],
                        "reason": gens[arm][i][2],
                        "memories": [m.model_dump() for m in gens[arm][i][0]],
                    }
                    for arm in ARMS
                },
                "pairwise": pw_records[i].model_dump() if pw_records[i] is not None else None,
            }
            for i, x in enumerate(sessions)
        ],
        "questions": [
            {"id": q.id, "cohort": q.cohort, "recall": {arm: recall_by_arm[arm][i] for arm in ARMS}}
            for i, q in enumerate(questions)
        ],
    }
    notes = [
        f"findability: dense cosine top-{s.k} over the arm's memories of the question's cohort ({embedder.model})",
        f"dedup: same dedupe key or cosine >= {s.dedup_cosine} within the arm and cohort",
    ]
    if cold_read is not None and cold_read.backend != "openai_compatible":
        notes.append(f"cold read by the {cold_read.backend} backend: a deterministic baseline, not a judge")
    aggregate = {
        "schema": 1,
        "kind": "replay",
        "n_sessions": len(sessions),
        "n_cohorts": len(cohorts),
        "n_questions": len(questions),
        "k": s.k,
        "embedder": embedder.model,
        "arms": arms,
        "diff_b_minus_a": diffs,
        "pairwise": pw_agg,
        "notes": notes,
    }
    return local, aggregate


def plan(
    sessions: Sequence[Session],
    generators: Mapping[str, Generator],
    *,
    cold_read: ColdReadJudge | None,
    pairwise: PairwiseJudge | None,
    cold_read_limit: int | None,
    est_memories_per_session: int = 8,
) -> dict[str, Any]:
    """What a run would do, calling nothing: ``{"sessions", "calls": {"generation", "cold_read",
    "pairwise", "total"}, "token_estimate"}``. Generation calls are exact; cold reads assume
    ``est_memories_per_session`` memories for an LLM generator (extract arms: none are LLM calls
    for generation, but their cold reads are counted on the same assumption); the token estimate
    is :func:`assay.llm.base.estimate_tokens` of the generation requests plus ~250 tokens a cold
    read and the pairwise requests of the sessions' turns as a stand-in for their memories."""
    gen_calls = sum(g.calls(x) for g in generators.values() for x in sessions)
    tokens = 0
    for g in generators.values():
        req = getattr(g, "request", None)
        if req is not None:
            tokens += sum(estimate_tokens(req(x)) for x in sessions)
    n_mem = len(sessions) * est_memories_per_session
    reads = 0
    if cold_read is not None and cold_read.client is not None:
        reads = len(ARMS) * (n_mem if cold_read_limit is None else min(cold_read_limit, n_mem))
        tokens += reads * 250
    pw = 0
    if pairwise is not None and pairwise.client is not None and pairwise.backend != "length":
        pw = 2 * len(sessions)
        for x in sessions:
            text = memory_set_text([Memory(id="", session="", cohort="", text=t.text) for t in x.turns])
            req, _ = build_request(Pair(id=x.id, output_a=text, output_b=text), pairwise.criteria, "ab", "m")
            tokens += 2 * estimate_tokens(req)
    return {
        "sessions": len(sessions),
        "calls": {"generation": gen_calls, "cold_read": reads, "pairwise": pw, "total": gen_calls + reads + pw},
        "token_estimate": tokens,
    }


def _cohort_means(cohorts: Sequence[str], values: Sequence[float]) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for c, v in zip(cohorts, values, strict=True):
        sums.setdefault(c, []).append(v)
    return {c: float(np.mean(v)) for c, v in sums.items()}
