"""The memory as MCP tools (the official ``mcp`` SDK, 2.x): search, add and grade, over stdio.

:func:`build_mcp` wraps a :class:`~assay.server.service.MemoryService` in an
``mcp.server.mcpserver.MCPServer`` with three tools:

- ``memory_search(context, k=5, scope=None)`` → ``{"search_id", "query", "hits": [{memory_id,
  text, rank, score, …}]}``; the deliveries are logged, so grades can follow.
- ``memory_add(texts, scope=None)`` → the store's add result (ids added, merged, unchanged).
- ``memory_grade(search_id, grades)`` → the grade report (``grades`` like ``"m12:3, m7:0!"``).

:func:`run_stdio` serves it on stdin/stdout (``assay mcp``): the way Claude Code, Claude Desktop
and other MCP clients plug a memory in. Logging goes to stderr only (stdout is the protocol).

A bad call is an ``isError`` result of one line, ``Error executing tool <name>: <reason>``, as
the HTTP API's 400/422 name theirs: the arguments are checked against the bounds the HTTP
bodies declare (``k`` from 1 to :data:`~assay.server.config.MAX_SEARCH_K`, an empty
``context``, a ``scope`` over 200 characters, no ``texts``…; the input schema carries them,
so a client sees them before calling), a rejected argument is reported as ``field: message``
(not pydantic's multi-line dump), and the service's ``ValueError`` (a context that cleans to
nothing, an empty memory text, an unknown search id) keeps its first line; the SDK reports any
other exception as a crash, without its text.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, ValidationError

from assay.memory import MemoryStore
from assay.server.config import MAX_SEARCH_K
from assay.server.query import query_embedder_for
from assay.server.service import MemoryService

__all__ = ["build_mcp", "run_stdio", "reason_line"]

# The HTTP bodies' bounds (assay.server.app), for the same arguments.
Context = Annotated[str, Field(min_length=1)]
Scope = Annotated[str | None, Field(max_length=200)]
SearchId = Annotated[str, Field(min_length=1, max_length=64)]
Texts = Annotated[list[str], Field(min_length=1, max_length=10_000)]
K = Annotated[int, Field(ge=1, le=MAX_SEARCH_K, strict=True)]  # one bound with HTTP; {"k": true} is not k=1


def reason_line(exc: BaseException) -> str:
    """One readable line saying why a call was refused: ``field: message`` for the first rejected
    argument of a pydantic ``ValidationError`` (``(+N more)`` when several were), else the
    exception's first line (its type name when it has no text)."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False)
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "arguments"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{where}: {first['msg']}{more}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def build_mcp(service: MemoryService) -> Any:
    """An ``MCPServer`` named ``assay-memory`` exposing the three tools over ``service``; a bad
    call's error is one reason line (:func:`reason_line`, see the module docstring)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

    class AssayMCPServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            """The SDK's call, its argument errors reworded to one line (the cause kept)."""
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as e:
                cause = e.__cause__
                if isinstance(e, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                raise ToolError(f"Error executing tool {name}: {reason_line(cause)}") from cause

    def refused(e: ValueError) -> ToolError:
        return ToolError(reason_line(e))  # the SDK prefixes "Error executing tool <name>: "

    server = AssayMCPServer("assay-memory")

    @server.tool()
    def memory_search(context: Context, k: K = 5, scope: Scope = None) -> dict[str, Any]:
        """Search the agent memory for the recent context; returns the delivered memories and the
        search id to grade them with (memory_grade)."""
        try:
            return service.search(context, k=k, scope=scope)
        except ValueError as e:
            raise refused(e) from e

    @server.tool()
    def memory_add(texts: Texts, scope: Scope = None) -> dict[str, Any]:
        """Add memories (one short note each); duplicates of stored ones are merged, not repeated."""
        try:
            return service.add([{"text": t, "scope": scope} for t in texts])
        except ValueError as e:
            raise refused(e) from e

    @server.tool()
    def memory_grade(search_id: SearchId, grades: Context) -> dict[str, Any]:
        """Grade the memories of one search: 'id:0-3' entries, '!' after 0 or 1 marks a misleading one."""
        try:
            return service.grade(search_id, grades)
        except ValueError as e:
            raise refused(e) from e

    return server


def run_stdio(store: MemoryStore) -> None:
    """Serve ``store`` as MCP tools on stdio until the client closes the stream; queries embedded
    as the HTTP server embeds them (:func:`~assay.server.service.query_embedder_for`)."""
    from assay.server.config import server_settings

    service = MemoryService(store, query_embedder=query_embedder_for(store, server_settings()))
    service.warm_up()
    build_mcp(service).run("stdio")
