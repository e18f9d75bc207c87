"""Guarded synthesis: the call a service puts inline — cache → synthesise → gate → completeness → judge.

On a cache hit nothing is inferred (no synthesis, no judge call): the memo was gated, measured
and judged when it was written, and is re-gated against the fresh snapshot now. On any other
outcome the answer is synthesised once, gated (a failing answer is returned with
``gate_failed`` and never stored), measured for completeness, judged when a judge is given,
and stored.

The judge is duck-typed: any object with ``.judge(case) -> verdict`` where ``verdict`` has
``.status`` (``scored`` | ``skipped`` | ``rejected``) and ``.score`` — e.g.
:class:`assay.judges.faithfulness.FaithfulnessJudge`. Its identity (``backend``/``model``
attributes when present) and the stakes are part of the memo's synthesis version, so a memo
judged by one judge (or none) is never served as judged by another.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import ValidationError

from assay.cache.config import DEFAULT_MIN_FAITHFULNESS, DEFAULT_TTL_S
from assay.cache.memo import CacheStatus, GateMode, build_memo, check_request, failed_detail, gate_accepts
from assay.cache.store import CacheResult, MemoCache
from assay.cases import Case
from assay.facts import Snapshot
from assay.grounding.completeness import CompletenessResult, completeness

__all__ = ["GuardedResult", "Judge", "guarded_synthesis", "effective_version"]


class Judge(Protocol):
    """What :func:`guarded_synthesis` needs from a judge."""

    def judge(self, case: Case) -> Any:  # a verdict with .status and .score
        ...


class GuardedResult(CacheResult):
    """Outcome of :func:`guarded_synthesis`: a :class:`~assay.cache.CacheResult` (``memo``,
    ``status``, ``gate``, ``detail``) and what the guard decided.

    ``status``: the cache status (:class:`~assay.cache.MemoCache`), or ``judge_failed`` (a
    high-stakes memo the judge did not accept: returned, not stored). ``accepted``: the memo
    may be shown (gate passed, and in high-stakes mode the judge accepted it). ``stored``: the
    memo is now in the cache. ``synthesize_calls`` / ``judge_calls``: inference done by this
    request (both 0 on a hit).
    """

    accepted: bool
    stored: bool
    synthesize_calls: int
    judge_calls: int

    @property
    def completeness(self) -> CompletenessResult | None:
        return self.memo.completeness

    @property
    def verdict(self) -> dict[str, Any] | None:
        return self.memo.judge


def guarded_synthesis(
    snapshot: Snapshot,
    key: str,
    synthesize: Callable[[Snapshot], str],
    *,
    judge: Judge | None = None,
    high_stakes: bool = False,
    use_cache: bool = True,
    cache: MemoCache | None = None,
    ttl_s: float = DEFAULT_TTL_S,
    synthesis_version: str = "",
    gate_mode: GateMode = "auto",
    question: str | None = None,
    reference: str | float | list[str | float] | None = None,
    min_faithfulness: float = DEFAULT_MIN_FAITHFULNESS,
    accept_no_claims: bool = False,
) -> GuardedResult:
    """Answer ``key`` for ``snapshot``: from the cache when provably current, else synthesise and check.

    ``cache``: a :class:`MemoCache` (create one per process and reuse it; ``None`` opens one on
    the default database, or none at all when ``use_cache`` is False). ``judge``: runs on fresh
    memos that passed the gate; a memo whose verdict is not ``scored`` is returned but not stored
    (a skipped or rejected verdict is not a review worth caching). ``high_stakes``: needs a
    judge, and a memo is accepted (and stored) only with a ``scored`` verdict of at least
    ``min_faithfulness`` (0–1, default 1.0: every claim supported); otherwise ``judge_failed``.
    A judge that raises counts as a rejected verdict (fails closed). ``question`` and
    ``reference`` go to the judge and to completeness. ``ttl_s`` (seconds, default one day),
    ``synthesis_version``, ``gate_mode`` and ``accept_no_claims``: as in
    :meth:`MemoCache.get_or_create`.

    Raises ``ValueError`` for ``high_stakes`` without a judge, ``min_faithfulness`` outside
    [0, 1], a bad key/TTL/mode, or a snapshot the judge cannot take (repeated fact ids).
    """
    check_request(key, ttl_s, gate_mode)
    if high_stakes and judge is None:
        raise ValueError("high_stakes needs a judge (e.g. assay.judges.faithfulness.make_faithfulness_judge(...))")
    if not 0.0 <= min_faithfulness <= 1.0:
        raise ValueError(f"min_faithfulness must be in [0, 1], got {min_faithfulness!r}")
    version = effective_version(synthesis_version, judge, high_stakes, min_faithfulness)
    fp = snapshot.fingerprint()
    if use_cache:
        cache = cache if cache is not None else MemoCache()
        found = cache.lookup(
            key,
            snapshot,
            synthesis_version=version,
            gate_mode=gate_mode,
            fingerprint=fp,
            ttl_s=ttl_s,
            accept_no_claims=accept_no_claims,
        )
        if found.status == "hit":
            assert found.memo is not None and found.gate is not None
            return GuardedResult(
                status="hit",
                memo=found.memo,
                gate=found.gate,
                accepted=True,
                stored=True,
                synthesize_calls=0,
                judge_calls=0,
                detail=found.detail,
            )
        status: CacheStatus = found.status
        detail = found.detail
    else:
        status, detail = "bypassed", "use_cache=False: cache neither read nor written"

    memo = build_memo(
        snapshot,
        synthesize,
        fingerprint=fp,
        synthesis_version=version,
        gate_mode=gate_mode,
        indexes=cache.indexes if cache is not None else None,
        clock=cache.clock if cache is not None else time.time,
    )
    gate = memo.gate
    if not gate_accepts(gate, accept_no_claims):
        if use_cache and cache is not None:
            cache.record("gate_failed")
        return GuardedResult(
            status="gate_failed",
            memo=memo,
            gate=gate,
            accepted=False,
            stored=False,
            synthesize_calls=1,
            judge_calls=0,
            detail=failed_detail(gate),
        )

    comp = completeness(memo.answer, snapshot, gate, reference=reference)
    verdict: dict[str, Any] | None = None
    if judge is not None:
        verdict = _run_judge(judge, key, memo.answer, snapshot, question, reference)
    memo = memo.model_copy(update={"completeness": comp, "judge": verdict})

    if high_stakes and not _judge_accepts(verdict, min_faithfulness):
        if use_cache and cache is not None:
            cache.record("judge_failed")
        status_, score = (verdict.get("status"), verdict.get("score")) if verdict else (None, None)
        why = f"judge verdict {status_}, score {score} < {min_faithfulness}"
        return GuardedResult(
            status="judge_failed",
            memo=memo,
            gate=gate,
            accepted=False,
            stored=False,
            synthesize_calls=1,
            judge_calls=1,
            detail=f"{why}; not stored",
        )
    stored = False
    if use_cache and cache is not None:
        if verdict is None or verdict.get("status") == "scored":
            cache.store(key, memo, ttl_s=ttl_s, gate_mode=gate_mode, status=status, accept_no_claims=accept_no_claims)
            stored = True
        else:
            cache.record(status)
            detail += f"; not stored: judge verdict {verdict.get('status')}"
    return GuardedResult(
        status=status,
        memo=memo,
        gate=gate,
        accepted=True,
        stored=stored,
        synthesize_calls=1,
        judge_calls=int(judge is not None),
        detail=detail,
    )


def effective_version(synthesis_version: str, judge: Judge | None, high_stakes: bool, min_faithfulness: float) -> str:
    """The synthesis version a guarded memo is stored under: the caller's, plus the judge's
    identity (``backend``/``model`` attributes, else its class name) and the stakes."""
    if judge is None:
        return synthesis_version
    name = (
        ":".join(str(v) for v in (getattr(judge, "backend", None), getattr(judge, "model", None)) if v)
        or type(judge).__name__
    )
    stakes = f"|high_stakes>={min_faithfulness:g}" if high_stakes else ""
    return f"{synthesis_version}|judge={name}{stakes}"


# --- helpers -------------------------------------------------------------------------------


def _run_judge(
    judge: Judge,
    key: str,
    answer: str,
    snapshot: Snapshot,
    question: str | None,
    reference: str | float | list[str | float] | None,
) -> dict[str, Any]:
    """The judge's verdict as a plain dict; an exception becomes a ``rejected`` verdict."""
    try:
        case = Case(
            id=key,
            answer=answer,
            question=question,
            facts=snapshot.facts,
            sources=snapshot.sources,
            reference=reference,
        )
    except ValidationError as e:
        raise ValueError(f"snapshot cannot be judged: {e.errors()[0]['msg']}") from None
    try:
        v = judge.judge(case)
    except Exception as e:  # fail closed; the type only: messages may carry endpoint details
        return {"status": "rejected", "score": None, "reason": f"judge raised {type(e).__name__}"}
    out: dict[str, Any]
    if hasattr(v, "model_dump"):
        out = v.model_dump(mode="json")
    else:
        out = {
            "status": getattr(v, "status", None),
            "score": getattr(v, "score", None),
            "reason": getattr(v, "reason", None),
        }
    if out.get("status") not in ("scored", "skipped", "rejected"):
        return {"status": "rejected", "score": None, "reason": f"judge returned status {out.get('status')!r}"}
    return out


def _judge_accepts(verdict: dict[str, Any] | None, min_faithfulness: float) -> bool:
    if not verdict or verdict.get("status") != "scored":
        return False
    score = verdict.get("score")
    return isinstance(score, (int, float)) and not isinstance(score, bool) and score >= min_faithfulness
