"""Per-claim faithfulness judge: each claim of an answer — supported or not, by which citation, why.

assay splits the answer into numbered sentence claims ``c1..cN`` (with their spans) and sends them,
fenced as data, with the facts and/or sources (and the question). The model must return exactly
one entry per claim id: ``{id, supported: bool, citation: fact id | source index | null,
rationale}``. Score = supported ÷ N (4 decimals).

Fail-closed — status ``rejected`` with a ``"kind: detail"`` reason, never a number, for:
unparseable JSON, prose around it, duplicate JSON keys, a schema mismatch (missing/extra fields,
non-boolean ``supported``), ``finish_reason`` ``length``/``content_filter``, missing / extra /
duplicate claim ids, an empty list for N > 0, and out-of-range values (a citation that is neither
a fact id nor a source index). ``skipped`` (with a reason) when nothing was judged: no claims, the
backend not configured, the token budget exhausted (``budget: …``), no reply after the retries
(``backend error: …``). ``rejected`` and ``skipped`` are counted (``n_unscored``) and never
averaged as numbers. The request and its reply contract (prompt, fencing, validation) are in
:mod:`assay.judges.faithfulness_prompt`.

Tiers: the cheap model by default; ``high_stakes=True`` (CLI ``--high-stakes``) uses the strong
model; ``escalate=True`` re-judges with the strong model the claims the cheap model marked
unsupported, or all claims when its reply was rejected. Each :class:`ClaimCheck` records the model
that decided it. If the escalation reply fails, the cheap model's validated verdicts stand (an
unsupported claim stays unsupported: the score can only be too low) and the reason says so.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from assay.cases import Case
from assay.judges.faithfulness_prompt import (
    Claim3,
    ClaimCheck,
    build_request,
    split_claims,
    valid_citations,
    validate_reply,
)
from assay.llm.base import BudgetExhausted, LLMError
from assay.llm.client import LLMClient, LLMNotConfigured, make_client
from assay.stats import summarize

__all__ = ["JudgeVerdict", "FaithfulnessJudge", "make_faithfulness_judge", "judge_claims", "DEFAULT_TOKEN_BUDGET"]

#: Default token budget of one run: ~1,300 cases of ~1.5k tokens; a cap on runaway cost, not a quota.
DEFAULT_TOKEN_BUDGET = 2_000_000


class JudgeVerdict(BaseModel):
    """A judge's verdict on one case. ``score`` (in [0, 1]) is set only when ``status == "scored"``;
    ``reason`` is set for ``skipped``/``rejected`` (and notes a failed escalation)."""

    model_config = ConfigDict(frozen=True)
    status: Literal["scored", "skipped", "rejected"]
    score: float | None = None
    claims: tuple[ClaimCheck, ...] = ()
    backend: str
    model: str | None = None
    tokens: int = 0
    reason: str | None = None


class FaithfulnessJudge:
    """Judges cases through one :class:`LLMClient` (``None`` with ``not_configured`` set: every
    case is ``skipped`` with that reason, shown once in ``notes``)."""

    def __init__(
        self,
        client: LLMClient | None,
        *,
        high_stakes: bool = False,
        escalate: bool = False,
        backend: str | None = None,
        not_configured: str | None = None,
    ):
        if client is None and not not_configured:
            raise ValueError("a judge needs a client or a not_configured reason")
        self.client = client
        self.backend = client.name if client is not None else (backend or "openai_compatible")
        self.high_stakes = high_stakes
        self.escalate = escalate and not high_stakes
        self.model = client.model_for(high_stakes) if client is not None else None
        self.strong_model = client.model_for(True) if client is not None and self.escalate else None
        self.not_configured = not_configured
        self.notes: list[str] = [f"faithfulness skipped: {not_configured}"] if not_configured else []

    async def ajudge(self, case: Case) -> JudgeVerdict:
        """Judge one case (async core). Never raises for model output or transport failures."""
        claims = split_claims(case)
        if self.client is None:
            return self._verdict("skipped", reason=self.not_configured)
        if not claims:
            return self._verdict("skipped", reason="no claims: the answer has no sentence to judge")
        assert self.model is not None  # __init__ sets it whenever there is a client
        reason: str | None
        checks, reason, tokens = await self._ask(case, claims, self.model)
        if checks is None and reason.startswith(("budget", "backend error")):
            return self._verdict("skipped", reason=reason, tokens=tokens)
        if self.escalate:
            targets = claims if checks is None else [c for c, k in zip(claims, checks, strict=True) if not k.supported]
            if targets:
                assert self.strong_model is not None  # __init__ sets it whenever escalate is on
                strong, reason2, tokens2 = await self._ask(case, targets, self.strong_model)
                tokens += tokens2
                if strong is not None:
                    by_id = {k.id: k for k in strong}
                    base = {k.id: k for k in checks} if checks is not None else {}
                    checks, reason = [by_id.get(cid) or base[cid] for cid, _, _ in claims], None
                elif checks is not None:
                    reason = f"escalation failed, cheap verdicts kept: {reason2}"
                else:
                    reason = f"{reason}; escalation: {reason2}"
        if checks is None:
            return self._verdict("rejected", reason=reason, tokens=tokens)
        score = round(sum(c.supported for c in checks) / len(checks), 4)
        return self._verdict("scored", score=score, claims=tuple(checks), tokens=tokens, reason=reason or None)

    async def ajudge_many(self, cases: Sequence[Case]) -> list[JudgeVerdict]:
        """Judge ``cases`` concurrently (the client bounds calls in flight); order preserved."""
        try:
            return list(await asyncio.gather(*(self.ajudge(c) for c in cases)))
        finally:
            if self.client is not None:
                await self.client.aclose()

    def judge(self, case: Case) -> JudgeVerdict:
        """Judge one case (sync wrapper; inside a running event loop use :meth:`ajudge`)."""
        return asyncio.run(self.ajudge_many([case]))[0]

    def judge_many(self, cases: Sequence[Case]) -> list[JudgeVerdict]:
        """Judge ``cases`` (sync wrapper of :meth:`ajudge_many`); appends a note on unscored cases."""
        verdicts = asyncio.run(self.ajudge_many(cases))
        s = self.summary(verdicts)
        if s["n_unscored"] and not self.not_configured:
            kinds = ", ".join(f"{n} {k}" for k, n in s["reasons"].items())
            self.notes.append(
                f"faithfulness: {s['n_unscored']} of {s['n']} case(s) unscored "
                f"({s['n_rejected']} rejected, {s['n_skipped']} skipped: {kinds})"
            )
        return verdicts

    def summary(self, verdicts: Sequence[JudgeVerdict]) -> dict[str, Any]:
        """Counts without case ids: ``{"backend", "model", "strong_model", "mode", "n", "n_scored",
        "n_rejected", "n_skipped", "n_unscored", "reasons": {kind: count}, "claims_by_model",
        "usage"}`` (usage as :meth:`LLMClient.usage`, ``None`` when not configured)."""
        status = Counter(v.status for v in verdicts)
        reasons = Counter(_reason_kind(v.reason) for v in verdicts if v.status != "scored" and v.reason)
        by_model = Counter(c.model for v in verdicts for c in v.claims)
        return {
            "backend": self.backend,
            "model": self.model,
            "strong_model": self.strong_model,
            "mode": "high_stakes" if self.high_stakes else ("escalate" if self.escalate else "default"),
            "n": len(verdicts),
            "n_scored": status["scored"],
            "n_rejected": status["rejected"],
            "n_skipped": status["skipped"],
            "n_unscored": status["rejected"] + status["skipped"],
            "reasons": dict(sorted(reasons.items())),
            "claims_by_model": dict(sorted(by_model.items())),
            "usage": self.client.usage() if self.client is not None else None,
        }

    async def _ask(self, case: Case, claims: Sequence[Claim3], model: str) -> tuple[list[ClaimCheck] | None, str, int]:
        assert self.client is not None  # ajudge returns before asking when there is none
        request, _ = build_request(case, model, claims=claims)
        try:
            reply = await self.client.complete(request)
        except BudgetExhausted as e:
            return None, str(e), 0
        except LLMError as e:
            return None, f"backend error: {e}", 0
        checks, reason = validate_reply(reply, claims, citations=valid_citations(case))
        return checks, reason or "", reply.tokens if not reply.cached else 0

    def _verdict(self, status: Literal["scored", "skipped", "rejected"], **kw: Any) -> JudgeVerdict:
        return JudgeVerdict(status=status, backend=self.backend, model=self.model, **kw)


def make_faithfulness_judge(
    backend: str,
    *,
    high_stakes: bool = False,
    escalate: bool = False,
    cache_dir: str | Path | None = None,
    db_url: str | None = None,
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
    settings: Any = None,
) -> FaithfulnessJudge | None:
    """The judge for a backend name: ``none`` → None; ``stub`` (deterministic, labelled ``stub``);
    ``openai_compatible`` (env settings; not configured → a judge that skips every case with the
    reason). ``token_budget=None`` means unlimited.

    Raises ``ValueError`` for an unknown backend name or an invalid setting;
    ``ModuleNotFoundError`` naming the ``llm`` extra when the ``openai`` SDK is missing.
    """
    if backend == "none":
        return None
    if backend not in ("stub", "openai_compatible"):
        raise ValueError(f"unknown judge backend {backend!r}: use none, stub or openai_compatible")
    try:
        client = make_client(backend, settings=settings, cache_dir=cache_dir, db_url=db_url, token_budget=token_budget)
    except LLMNotConfigured as e:
        return FaithfulnessJudge(
            None, high_stakes=high_stakes, escalate=escalate, backend=backend, not_configured=str(e)
        )
    return FaithfulnessJudge(client, high_stakes=high_stakes, escalate=escalate)


def judge_claims(
    cases: Sequence[Case],
    *,
    backend: str = "stub",
    cache_dir: str | Path | None = None,
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
    high_stakes: bool = False,
    escalate: bool = False,
    db_url: str | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The judge contract of DESIGN.md: cases in → ``(local, aggregate)``.

    ``local`` = ``{"schema": 1, "kind": "faithfulness", "backend", "cases": [{"id", "variant",
    "slice", "status", "scores": {"faithfulness"}, "reasons", "claims", "model", "tokens"}]}``;
    ``aggregate`` has per-variant ``n`` and the faithfulness ``mean``/``std``/95 % bootstrap
    ``ci``/``effective_n``, plus :meth:`FaithfulnessJudge.summary` (``n_unscored``, reasons,
    usage) and notes — never a case id. Raises as :func:`make_faithfulness_judge`.
    """
    judge = make_faithfulness_judge(
        backend,
        high_stakes=high_stakes,
        escalate=escalate,
        cache_dir=cache_dir,
        db_url=db_url,
        token_budget=token_budget,
    )
    if judge is None:
        raise ValueError("judge_claims needs a backend other than none")
    verdicts = judge.judge_many(cases)
    records: list[dict[str, Any]] = [
        {
            "id": c.id,
            "variant": c.variant,
            "slice": c.slice,
            "status": v.status,
            "scores": {"faithfulness": v.score},
            "reasons": {"faithfulness": v.reason or f"{v.status} by {v.backend}"},
            "claims": [k.model_dump() for k in v.claims],
            "model": v.model,
            "tokens": v.tokens,
        }
        for c, v in zip(cases, verdicts, strict=True)
    ]
    variants: dict[str, Any] = {}
    for name in sorted({r["variant"] for r in records}):
        vals = [r["scores"]["faithfulness"] for r in records if r["variant"] == name]
        variants[name] = {
            "n": len(vals),
            "dims": {"faithfulness": summarize(vals, n_resamples=n_resamples, seed=seed).to_dict()},
        }
    notes = list(judge.notes) + (
        ["stub backend: a hash of the request, not a quality signal"] if judge.backend == "stub" else []
    )
    local = {"schema": 1, "kind": "faithfulness", "backend": judge.backend, "cases": records}
    aggregate = {
        "schema": 1,
        "kind": "faithfulness",
        "backend": judge.backend,
        "model": judge.model,
        "n": len(records),
        "variants": variants,
        "judge": judge.summary(verdicts),
        "notes": notes,
    }
    return local, aggregate


def _reason_kind(reason: str | None) -> str:
    """The reason's kind: its text before the first colon (``"schema mismatch: …"`` → ``"schema mismatch"``)."""
    return (reason or "unknown").split(":", 1)[0].strip()[:60]
