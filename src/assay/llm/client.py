"""The LLM client every judge uses: backend + response cache + token budget + bounded concurrency.

Generic on purpose — the claims judge and the rationality judge (and any later judge) share it::

    client = make_client("openai_compatible", cache_dir="runs/cache", token_budget=200_000)
    reply = await client.complete(request)   # LLMResponse; BudgetExhausted / LLMError otherwise
    client.usage()                            # calls, cache hits, tokens, budget — no ids, no key

Order of one call: the cache (a hit costs no tokens and no slot) → a concurrency slot (at most
``concurrency`` calls in flight per event loop) → the budget reservation of the call's estimate
(:mod:`assay.llm.budget`) → the backend → settle the budget with the reported usage → store the
reply in the cache. Backend names are those of DESIGN.md; ``make_client`` raises
:class:`LLMNotConfigured` (with the one-line reason) for ``openai_compatible`` when neither a base
URL nor an API key is set, so a judge can mark its cases ``skipped`` — never 0.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Any

from assay.llm.base import LLMBackend, LLMError, LLMRequest, LLMResponse, estimate_tokens
from assay.llm.budget import TokenBudget
from assay.llm.settings import LLMSettings
from assay.llm.stub import StubBackend

__all__ = ["LLMClient", "LLMNotConfigured", "make_client", "LLM_BACKENDS"]

#: Backends an LLM client can be made for (``none`` and ``heuristic`` are judge-level choices).
LLM_BACKENDS: tuple[str, ...] = ("stub", "openai_compatible")


class LLMNotConfigured(RuntimeError):
    """The backend has no endpoint configured; the message is the reason to show once."""


class LLMClient:
    """Cache-, budget- and concurrency-aware calls to one backend (see module docstring).

    Args:
        backend: any :class:`LLMBackend`.
        cache: a :class:`assay.llm.cache.ResponseCache`, or ``None`` for no cache.
        budget: a :class:`TokenBudget`, or ``None`` for no limit.
        concurrency: calls in flight at once (≥ 1).
        settings: the endpoint settings (``openai_compatible``), kept for model names.
    """

    def __init__(
        self,
        backend: LLMBackend,
        *,
        cache: Any = None,
        budget: TokenBudget | None = None,
        concurrency: int = 4,
        settings: LLMSettings | None = None,
    ):
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.backend = backend
        self.name = backend.name
        #: Cache-key prefix: the backend name plus its reply-shaping settings (``cache_namespace``).
        self.namespace = getattr(backend, "cache_namespace", backend.name)
        self.cache = cache
        self.budget = budget if budget is not None else TokenBudget(None)
        self.concurrency = concurrency
        self.settings = settings
        self.calls = 0
        self.errors = 0
        self.cache_hits = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._sems: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """One call through cache → slot → budget → backend → cache.

        Raises :class:`BudgetExhausted` (not sent) or :class:`LLMError` (no reply).
        """
        if self.cache is not None:
            hit = self.cache.get(self.namespace, request)
            if hit is not None:
                self.cache_hits += 1
                return hit
        async with self._sem():
            estimate = estimate_tokens(request)
            reservation = self.budget.reserve(estimate)
            try:
                reply = await self.backend.complete(request)
            except BaseException as e:
                self.budget.release(reservation)
                self.errors += isinstance(e, LLMError)
                raise
            self.budget.settle(reservation, reply.tokens or estimate)
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        if self.cache is not None:
            self.cache.put(self.namespace, request, reply)
        return reply

    def model_for(self, high_stakes: bool) -> str:
        """The model of a tier: from the settings, or ``stub``/``stub-high-stakes`` for the stub."""
        if self.settings is not None:
            return self.settings.model_for(high_stakes)
        return f"{self.name}-high-stakes" if high_stakes else self.name

    async def aclose(self) -> None:
        """Release the backend's connections of the running loop (call at the end of a run)."""
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()

    def usage(self) -> dict[str, Any]:
        """Call and token counts of this client: ``{"calls", "cache_hits", "errors",
        "prompt_tokens", "completion_tokens", "tokens", "budget": {"limit", "spent", "refused"}}``."""
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "errors": self.errors,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.prompt_tokens + self.completion_tokens,
            "budget": self.budget.to_dict(),
        }

    def _sem(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._sems.get(loop)
        if sem is None:
            sem = self._sems[loop] = asyncio.Semaphore(self.concurrency)
        return sem


def make_client(
    backend: str,
    *,
    settings: LLMSettings | None = None,
    cache_dir: str | Path | None = None,
    db_url: str | None = None,
    token_budget: int | None = None,
    use_cache: bool | None = None,
    concurrency: int | None = None,
) -> LLMClient:
    """An :class:`LLMClient` for a backend name (``stub`` or ``openai_compatible``).

    ``settings`` default to :meth:`LLMSettings.from_env`. The cache is used when ``use_cache`` is
    True, or by default for ``openai_compatible`` (in ``cache_dir`` or the store at ``db_url``)
    and for ``stub`` only when a ``cache_dir`` is given (the stub costs nothing).
    ``concurrency`` defaults to ``settings.concurrency`` (4).

    Raises:
        LLMNotConfigured: ``openai_compatible`` with neither base URL nor API key.
        ValueError: an unknown backend name or an invalid setting.
        ModuleNotFoundError: ``openai_compatible`` without the ``llm`` extra.
    """
    if backend not in LLM_BACKENDS:
        raise ValueError(f"unknown LLM backend {backend!r}: use one of {', '.join(LLM_BACKENDS)}")
    budget = TokenBudget(token_budget)
    if backend == "stub":
        cache = _open_cache(cache_dir, db_url) if (use_cache or (use_cache is None and cache_dir is not None)) else None
        return LLMClient(StubBackend(), cache=cache, budget=budget, concurrency=concurrency or 4)
    settings = settings if settings is not None else LLMSettings.from_env()
    reason = settings.not_configured_reason()
    if reason:
        raise LLMNotConfigured(reason)
    from assay.llm.openai_compatible import OpenAICompatibleBackend  # needs the llm extra

    cache = _open_cache(cache_dir, db_url) if use_cache is not False else None
    return LLMClient(
        OpenAICompatibleBackend(settings),
        cache=cache,
        budget=budget,
        concurrency=concurrency or settings.concurrency,
        settings=settings,
    )


def _open_cache(cache_dir: str | Path | None, db_url: str | None) -> Any:
    from assay.llm.cache import ResponseCache  # SQLAlchemy; imported only when a cache is used

    return ResponseCache.open(cache_dir, db_url)
