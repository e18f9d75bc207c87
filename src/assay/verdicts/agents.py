"""Microsoft Agent Framework context provider that injects past verdicts as few-shot precedents.

Needs the ``agents`` extra (``agent-framework-core``; written against 1.23). Before each agent
run, :class:`VerdictFewShotProvider` builds a :class:`~assay.verdicts.models.VerdictQuery` from
the run's context, retrieves the ``k`` most similar verdicts from a
:class:`~assay.verdicts.store.VerdictStore` and adds :func:`~assay.verdicts.fewshot.few_shot_block`
to the agent's instructions with ``context.extend_instructions(source_id, block)`` — the ExpeL
recipe of recalling the agent's own past experiences as in-context examples.

Usage::

    from agent_framework import Agent
    agent = Agent(client=chat_client, instructions="You review cost-saving proposals.",
                  context_providers=[VerdictFewShotProvider(store, k=3)])
    await agent.run('{"fields": {"cost_codes": ["FAC-ENERGY"], "measure_type": "renegotiation", '
                    '"claimed_saving": 40000}, "description": "..."}')
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

try:
    from agent_framework import ContextProvider
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "assay.verdicts.agents needs the 'agents' extra: pip install 'assay[agents]' (agent-framework-core)"
    ) from None

from assay.verdicts.fewshot import DEFAULT_HEADER, MAX_TEXT_CHARS, few_shot_block
from assay.verdicts.models import VerdictQuery
from assay.verdicts.store import VerdictStore

__all__ = ["VerdictFewShotProvider", "query_from_messages", "DEFAULT_SOURCE_ID"]

DEFAULT_SOURCE_ID = "assay.verdicts"

QueryFn = Callable[
    [Any], "VerdictQuery | Mapping[str, Any] | None | Awaitable[VerdictQuery | Mapping[str, Any] | None]"
]


class VerdictFewShotProvider(ContextProvider):
    """Adds the ``k`` most similar past verdicts to the agent's instructions before each run.

    ``query(context) -> VerdictQuery | mapping | None`` (sync or async) turns the run's
    :class:`agent_framework.SessionContext` into a query; default :func:`query_from_messages`.
    ``None`` → nothing injected. Verdicts scoring 0 (structurally unrelated) or below
    ``min_score`` are never injected. The ids and scores injected are kept in the provider's
    session state under ``"precedents"``. A malformed query raises
    :class:`~assay.verdicts.models.QueryError` (the run fails rather than proceeding blind).
    """

    def __init__(
        self,
        store: VerdictStore,
        *,
        k: int = 3,
        query: QueryFn | None = None,
        min_score: float = 0.0,
        source_id: str = DEFAULT_SOURCE_ID,
        header: str = DEFAULT_HEADER,
        max_text_chars: int = MAX_TEXT_CHARS,
    ):
        super().__init__(source_id)
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if not 0.0 <= min_score <= 1.0:
            raise ValueError(f"min_score must be in [0, 1], got {min_score}")
        self.store = store
        self.k = k
        self.query = query or query_from_messages
        self.min_score = min_score
        self.header = header
        self.max_text_chars = max_text_chars
        self._lock = threading.Lock()  # the store's index is not thread-safe

    async def before_run(self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]) -> None:
        """Retrieve precedents for this run and extend the instructions with their block."""
        q = self.query(context)
        if inspect.isawaitable(q):
            q = await q
        if q is None:
            state["precedents"] = []
            return
        hits = await asyncio.to_thread(self._retrieve, q)
        hits = [h for h in hits if h.score > 0 and h.score >= self.min_score]
        state["precedents"] = [{"id": h.verdict.id, "score": h.score} for h in hits]
        if hits:
            context.extend_instructions(
                self.source_id, few_shot_block(hits, header=self.header, max_text_chars=self.max_text_chars)
            )

    def _retrieve(self, q: VerdictQuery | Mapping[str, Any]) -> list:
        with self._lock:
            return self.store.retrieve(q, self.k)


_FENCED_JSON = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def query_from_messages(context: Any) -> dict[str, Any] | None:
    """The query in the run's last user message: the whole text as a JSON object with a
    ``"fields"`` key, or the first fenced ```json block holding one. ``None`` when there is none."""
    for msg in reversed(list(getattr(context, "input_messages", None) or [])):
        if getattr(msg, "role", None) != "user":
            continue
        text = (getattr(msg, "text", "") or "").strip()
        for candidate in [text, *_FENCED_JSON.findall(text)]:
            try:
                obj = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(obj, dict) and "fields" in obj:
                return obj
        return None
    return None
