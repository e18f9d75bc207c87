"""Blind, position-swapped pairwise judging: which of two outputs is better, per criterion.

Each :class:`~assay.judges.pairwise_prompt.Pair` is judged twice, once in each order (A shown
first, then B shown first; :mod:`assay.judges.pairwise_prompt` builds the blind requests). Per
criterion the two verdicts, mapped back to ``A``/``B``/``tie``, are reconciled by
:func:`reconcile`: only two identical verdicts count as that verdict; anything else (``A`` + ``B``,
``tie`` + ``B``, …) is ``inconsistent`` — counted as a tie in win rates and reported.

Fail-closed: a pair whose reply in either order is malformed (unparseable JSON, prose, schema
mismatch, truncation, missing / extra / duplicate criteria) is ``rejected`` with that reason and
never counted; ``skipped`` when nothing could be asked (backend not configured, token budget
exhausted, no reply after the retries). Calls go through :class:`assay.llm.client.LLMClient`:
cached (the order is in the key), budgeted, bounded concurrency.

Backends: ``stub`` (a hash of the request through the LLM path: deterministic, a floor),
``length`` (prefers the longer output — a known bias of LLM judges, reported as a baseline; it
never looks at the positions, so it is position-consistent by construction), and
``openai_compatible``. The aggregate (:mod:`assay.judges.pairwise_stats`) gives per criterion and
overall the win rate of B with ties as half and a 95 % CI clustered by cohort, the tie rate, the
position-consistency rate and the first-position pick rate.

Sources: position bias of LLM judges — Zheng et al., "Judging LLM-as-a-Judge with MT-Bench and
Chatbot Arena" (NeurIPS 2023, §3.3: swap the order, count only consistent verdicts); Wang et al.,
"Large Language Models are not Fair Evaluators" (ACL 2024).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from assay.judges.pairwise_prompt import (
    DEFAULT_CRITERIA,
    ORDERS,
    Criterion,
    Final,
    Pair,
    PairVerdict,
    Verdict,
    build_request,
    validate_reply,
)
from assay.judges.pairwise_stats import pairwise_aggregate
from assay.llm.base import BudgetExhausted, LLMError, LLMRequest, LLMResponse
from assay.llm.client import LLMClient, LLMNotConfigured, make_client

__all__ = [
    "PAIRWISE_BACKENDS",
    "Final",
    "LengthBackend",
    "PairVerdict",
    "PairwiseJudge",
    "judge_pairs",
    "make_pairwise_judge",
    "reconcile",
]

PAIRWISE_BACKENDS: tuple[str, ...] = ("stub", "length", "openai_compatible")
#: Default token budget of one run (two calls a pair of ~1.5k tokens: ~650 pairs); a cap, not a quota.
DEFAULT_TOKEN_BUDGET = 2_000_000


def reconcile(first: Verdict, second: Verdict) -> Final:
    """The final verdict of one criterion from the two orders' verdicts (already mapped back):
    the verdict when both are identical, else ``inconsistent``."""
    return first if first == second else "inconsistent"


class LengthBackend:
    """The ``length`` baseline as an :class:`assay.llm.base.LLMBackend`: for every criterion it
    picks the response with more characters (``tie`` when equal). It reads the two responses
    from the request's data block, so it runs through the same path as a model."""

    name = "length"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """A valid reply preferring the longer response on every criterion."""
        user = next(m["content"] for m in request.messages if m.get("role") == "user")
        data = json.loads(user[len("<data>") : -len("</data>")])
        n1, n2 = len(data["response_1"]), len(data["response_2"])
        winner = "response_1" if n1 > n2 else "response_2" if n2 > n1 else "tie"
        rationale = f"length: {n1} vs {n2} characters"
        parsed = {"verdicts": [{"criterion": c, "winner": winner, "rationale": rationale} for c in data["criteria"]]}
        return LLMResponse(text=json.dumps(parsed), parsed=parsed, model="length", backend="length")


class PairwiseJudge:
    """Judges pairs through one :class:`LLMClient` (``None`` with ``not_configured``: every pair
    is ``skipped`` with that reason). ``names`` are stripped from every pair's texts."""

    def __init__(
        self,
        client: LLMClient | None,
        criteria: Sequence[Criterion] = DEFAULT_CRITERIA,
        *,
        names: Iterable[str] = (),
        backend: str | None = None,
        not_configured: str | None = None,
    ):
        if client is None and not not_configured:
            raise ValueError("a judge needs a client or a not_configured reason")
        if not criteria or len({c.name for c in criteria}) != len(criteria):
            raise ValueError("criteria: at least one, names unique")
        self.client = client
        self.criteria = tuple(criteria)
        self.names = tuple(names)
        self.backend = backend or (client.name if client is not None else "openai_compatible")
        self.model = client.model_for(False) if client is not None else None
        self.not_configured = not_configured

    async def ajudge(self, pair: Pair) -> PairVerdict:
        """Judge one pair in both orders (concurrently). Never raises for model or transport failures."""
        base: dict[str, Any] = {"id": pair.id, "cohort": pair.cluster, "model": self.model}
        if self.client is None:
            return PairVerdict(status="skipped", reason=self.not_configured, **base)
        names = [c.name for c in self.criteria]
        asks = await asyncio.gather(*(self._ask(pair, order) for order in ORDERS))
        tokens = sum(t for _, _, t, _ in asks)
        redactions = sum(n for _, _, _, n in asks)
        for got, reason, _, _ in asks:
            if got is None and reason.startswith(("budget", "backend error")):
                return PairVerdict(status="skipped", reason=reason, tokens=tokens, redactions=redactions, **base)
        for order, (got, reason, _, _) in zip(ORDERS, asks, strict=True):
            if got is None:
                return PairVerdict(
                    status="rejected", reason=f"{reason} (order {order})", tokens=tokens, redactions=redactions, **base
                )
        by_order = {o: got for o, (got, _, _, _) in zip(ORDERS, asks, strict=True) if got is not None}
        orders = {o: {c: by_order[o][c][0] for c in names} for o in ORDERS}
        positions = {o: {c: by_order[o][c][1] for c in names} for o in ORDERS}
        verdicts = {c: reconcile(orders["ab"][c], orders["ba"][c]) for c in names}
        return PairVerdict(
            status="scored",
            verdicts=verdicts,
            orders=orders,
            positions=positions,
            redactions=redactions,
            tokens=tokens,
            **base,
        )

    async def ajudge_many(self, pairs: Sequence[Pair]) -> list[PairVerdict]:
        """Judge ``pairs`` concurrently (the client bounds calls in flight); order preserved."""
        try:
            return list(await asyncio.gather(*(self.ajudge(p) for p in pairs)))
        finally:
            if self.client is not None:
                await self.client.aclose()

    def judge_many(self, pairs: Sequence[Pair]) -> list[PairVerdict]:
        """Sync wrapper of :meth:`ajudge_many` (inside a running loop use the async one)."""
        return asyncio.run(self.ajudge_many(pairs))

    async def _ask(self, pair: Pair, order: str) -> tuple[dict[str, tuple[Verdict, str]] | None, str, int, int]:
        assert self.client is not None and self.model is not None
        request, n = build_request(pair, self.criteria, order, self.model, self.names)
        try:
            reply = await self.client.complete(request)
        except BudgetExhausted as e:
            return None, str(e), 0, n
        except LLMError as e:
            return None, f"backend error: {e}", 0, n
        got, reason = validate_reply(reply, [c.name for c in self.criteria], order)
        return got, reason or "", (reply.tokens if not reply.cached else 0), n


def make_pairwise_judge(
    backend: str,
    criteria: Sequence[Criterion] = DEFAULT_CRITERIA,
    *,
    names: Iterable[str] = (),
    cache_dir: str | Path | None = None,
    db_url: str | None = None,
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
    settings: Any = None,
) -> PairwiseJudge:
    """The judge for a backend name (:data:`PAIRWISE_BACKENDS`). ``openai_compatible`` without a
    base URL or key gives a judge that skips every pair with the reason.

    Raises ``ValueError`` for an unknown backend, bad criteria or an invalid setting;
    ``ModuleNotFoundError`` naming the ``llm`` extra when the ``openai`` SDK is missing.
    """
    if backend not in PAIRWISE_BACKENDS:
        raise ValueError(f"unknown pairwise backend {backend!r}: use {', '.join(PAIRWISE_BACKENDS)}")
    if backend == "length":
        return PairwiseJudge(LLMClient(LengthBackend()), criteria, names=names)
    try:
        client = make_client(backend, settings=settings, cache_dir=cache_dir, db_url=db_url, token_budget=token_budget)
    except LLMNotConfigured as e:
        return PairwiseJudge(None, criteria, names=names, backend=backend, not_configured=str(e))
    return PairwiseJudge(client, criteria, names=names)


def judge_pairs(
    pairs: Sequence[Pair],
    *,
    backend: str = "stub",
    criteria: Sequence[Criterion] = DEFAULT_CRITERIA,
    names: Iterable[str] = (),
    cache_dir: str | Path | None = None,
    db_url: str | None = None,
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
    settings: Any = None,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Pairs in → ``(local, aggregate)``: ``local`` = ``{"schema": 1, "kind": "pairwise",
    "backend", "criteria", "cases": [PairVerdict as JSON]}`` (pair ids: local only);
    ``aggregate`` as :func:`assay.judges.pairwise_stats.pairwise_aggregate` (no pair id).
    Raises ``ValueError`` for duplicate pair ids and as :func:`make_pairwise_judge`."""
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[:3]
        raise ValueError(f"duplicate pair ids: {', '.join(dup)}")
    judge = make_pairwise_judge(
        backend,
        criteria,
        names=names,
        cache_dir=cache_dir,
        db_url=db_url,
        token_budget=token_budget,
        settings=settings,
    )
    verdicts = judge.judge_many(pairs)
    usage = judge.client.usage() if judge.client is not None else None
    stat = {"n_resamples": n_resamples, "seed": seed}
    aggregate = pairwise_aggregate(
        verdicts, judge.criteria, backend=judge.backend, model=judge.model, usage=usage, **stat
    )
    if judge.not_configured:
        aggregate["notes"].append(f"pairwise skipped: {judge.not_configured}")
    local = {
        "schema": 1,
        "kind": "pairwise",
        "backend": judge.backend,
        "criteria": [c.model_dump() for c in judge.criteria],
        "cases": [v.model_dump() for v in verdicts],
    }
    return local, aggregate
