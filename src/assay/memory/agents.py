"""Microsoft Agent Framework context provider that gives an agent its memories and learns from its reply.

Needs the ``agents`` extra (``agent-framework-core``; written against 1.23). Before each run,
:class:`MemoryContextProvider` searches a :class:`~assay.memory.MemoryStore` for the run's last
user message (deliveries logged under the agent session's id) and adds the memories, with the
reply-block request, to the agent's instructions
(:func:`~assay.memory.feedback.reply.context_block`, the same pinned format as the Claude Code
hook). After the run it reads the response: the reply block's grades go to the delivery log
(:func:`~assay.memory.feedback.grades.apply_grades`), engagement is labelled on the rest of the
text (:func:`~assay.memory.feedback.engagement.engage`), and its ``m:`` lines are added as new
memories. What happened is kept in the provider's session state (``"search_id"``,
``"delivered"``, ``"graded"``, ``"engaged"``, ``"added"``, ``"malformed"``).

Usage::

    from agent_framework import Agent
    agent = Agent(client=chat_client, instructions="You are a helpful assistant.",
                  context_providers=[MemoryContextProvider(store, k=5)])
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

try:
    from agent_framework import ContextProvider
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "assay.memory.agents needs the 'agents' extra: pip install 'assay[agents]' (agent-framework-core)"
    ) from None

from assay.memory.feedback.engagement import engage
from assay.memory.feedback.grades import apply_grades
from assay.memory.feedback.reply import context_block, parse_reply_block, strip_reply_block
from assay.memory.retrieval.store import MemoryStore

__all__ = ["MemoryContextProvider", "DEFAULT_SOURCE_ID"]

DEFAULT_SOURCE_ID = "assay.memory"


class MemoryContextProvider(ContextProvider):
    """Injects the ``k`` best memories before each run; grades, engagement and new memories after it.

    ``scope``: the memories' scope for search (tie-break) and for the memories the agent writes.
    ``max_chars``: cap of the injected block (8,000, the hook's default). The store is used from
    worker threads behind one lock (a store is one-thread)."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        k: int = 5,
        scope: str | None = None,
        max_chars: int = 8000,
        source_id: str = DEFAULT_SOURCE_ID,
    ):
        super().__init__(source_id)
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.store, self.k, self.scope, self.max_chars = store, k, scope, max_chars
        self._lock = threading.Lock()

    async def before_run(self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]) -> None:
        """Search for the last user message; extend the instructions with the memories."""
        text = _last_text(getattr(context, "input_messages", None) or [], "user")
        state.update(search_id=None, delivered=[])
        if not text:
            return
        sid = getattr(session, "session_id", None)
        try:
            res = await asyncio.to_thread(self._search, text, sid if isinstance(sid, str) else None)
        except ValueError:  # a message that cleans to nothing
            return
        if not res.hits:
            return
        state.update(search_id=res.search_id, delivered=[h.memory.id for h in res.hits])
        block = context_block(
            [(h.memory.id, h.memory.text) for h in res.hits], instruction=None, max_chars=self.max_chars
        )
        context.extend_instructions(self.source_id, block)

    async def after_run(self, *, agent: Any, session: Any, context: Any, state: dict[str, Any]) -> None:
        """Apply the reply's grades, label engagement and add its new memories."""
        response = getattr(context, "response", None)
        text = _last_text(getattr(response, "messages", None) or [], "assistant") or (
            getattr(response, "text", "") or ""
        )
        if not text.strip():
            return
        report = await asyncio.to_thread(self._learn, state.get("search_id"), text)
        state.update(report)

    def _search(self, text: str, session_id: str | None) -> Any:
        with self._lock:
            return self.store.search(text, self.k, scope=self.scope, session_id=session_id)

    def _learn(self, search_id: str | None, text: str) -> dict[str, Any]:
        block = parse_reply_block(text)
        out: dict[str, Any] = {"graded": 0, "engaged": 0, "added": [], "malformed": list(block.malformed)}
        with self._lock:
            if search_id is not None:
                if block.grades:
                    g = apply_grades(self.store, search_id, block.grades)
                    out["graded"] = g.applied
                    out["malformed"] += g.malformed
                rest = strip_reply_block(text)
                if rest:
                    out["engaged"] = sum(engage(self.store, search_id, rest).engaged.values())
            if block.memories:
                added = self.store.add(
                    [{"text": t, "scope": self.scope, "source_ref": "agent"} for t in block.memories]
                )
                out["added"] = added.added
        return out


def _last_text(messages: Any, role: str) -> str:
    for msg in reversed(list(messages)):
        if str(getattr(msg, "role", "")) == role or getattr(getattr(msg, "role", None), "value", None) == role:
            return (getattr(msg, "text", "") or "").strip()
    return ""
