"""The memory as MCP tools (the official ``mcp`` SDK, 2.x): search, add and grade, over stdio.

:func:`build_mcp` wraps a :class:`~assay.server.service.MemoryService` in an
``mcp.server.mcpserver.MCPServer`` with three tools:

- ``memory_search(context, k=5, scope=None)`` → ``{"search_id", "query", "hits": [{memory_id,
  text, rank, score, …}]}``; the deliveries are logged, so grades can follow.
- ``memory_add(texts, scope=None)`` → the store's add result (ids added, merged, unchanged).
- ``memory_grade(search_id, grades)`` → the grade report (``grades`` like ``"m12:3, m7:0!"``).

:func:`run_stdio` serves it on stdin/stdout (``assay mcp``): the way Claude Code, Claude Desktop
and other MCP clients plug a memory in. Logging goes to stderr only (stdout is the protocol).
"""

from __future__ import annotations

from typing import Any

from assay.memory import MemoryStore
from assay.server.query import query_embedder_for
from assay.server.service import MemoryService

__all__ = ["build_mcp", "run_stdio"]


def build_mcp(service: MemoryService) -> Any:
    """An ``MCPServer`` named ``assay-memory`` exposing the three tools over ``service``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("assay-memory")

    @server.tool()
    def memory_search(context: str, k: int = 5, scope: str | None = None) -> dict[str, Any]:
        """Search the agent memory for the recent context; returns the delivered memories and the
        search id to grade them with (memory_grade)."""
        return service.search(context, k=k, scope=scope)

    @server.tool()
    def memory_add(texts: list[str], scope: str | None = None) -> dict[str, Any]:
        """Add memories (one short note each); duplicates of stored ones are merged, not repeated."""
        return service.add([{"text": t, "scope": scope} for t in texts])

    @server.tool()
    def memory_grade(search_id: str, grades: str) -> dict[str, Any]:
        """Grade the memories of one search: 'id:0-3' entries, '!' after 0 or 1 marks a misleading one."""
        return service.grade(search_id, grades)

    return server


def run_stdio(store: MemoryStore) -> None:
    """Serve ``store`` as MCP tools on stdio until the client closes the stream; queries embedded
    as the HTTP server embeds them (:func:`~assay.server.service.query_embedder_for`)."""
    from assay.server.config import server_settings

    service = MemoryService(store, query_embedder=query_embedder_for(store, server_settings()))
    service.warm_up()
    build_mcp(service).run("stdio")
