"""The memory server's FastAPI app: :func:`create_app` (routes under ``/v1``, guarded by :class:`Guard`).

Every request passes :class:`Guard` first (a plain ASGI middleware, outermost):

1. ``GET /healthz`` is open; every other path needs ``Authorization: Bearer <token>``, compared
   with :func:`hmac.compare_digest` (constant time) → 401 otherwise. The token is held in the
   closure only: it is never logged, echoed or put in a response.
2. The body is read up to ``max_body_bytes`` (a ``Content-Length`` over it is refused before
   reading) → 413 past it.
3. The request runs under ``request_timeout_s`` → 503 when it has not started answering by then.
   Each answer carries ``Server-Timing: app;dur=<ms>``: the time from the body read to the
   answer's start (routing, validation, the work, JSON) — the server-side figure of the hook
   benchmark, without the client's or the network's share.
   The work itself runs on to its end in its worker thread (a thread cannot be stopped): a
   client that retries with the same ``Idempotency-Key`` gets its result, never a second copy.

Routes (JSON in, JSON out; OpenAPI at ``/openapi.json`` and ``/docs``, behind the token too):
``POST /v1/memories``, ``POST /v1/search``, ``POST /v1/responses``, ``POST /v1/grades``,
``GET /v1/stats``, ``POST /v1/ab/assign`` and ``/v1/ab/stamp`` (:mod:`assay.memory.experiments`:
each unit's arm; memories written stamped with it), ``POST /v1/hooks/claude-code``
(:mod:`assay.server.hooks`), ``POST /v1/admin/reload`` (a fresh store: a newly deployed
reranker is picked up). Writes take an ``Idempotency-Key`` header
(:meth:`assay.server.service.MemoryService.idempotent`). Errors: 400 bad input, 404 unknown
search id, 422 a request that does not validate or a reused idempotency key.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from assay.memory.models import MemoryFileError
from assay.server.config import MAX_SEARCH_K, ServerSettings
from assay.server.hooks import SessionMap, TranscriptPathError, handle_hook
from assay.server.service import IdempotencyConflict, MemoryService, UnknownExperimentError, UnknownSearchError

__all__ = ["create_app", "Guard", "API_VERSION"]

API_VERSION = "v1"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Paths served without the token: the health check only.
OPEN_PATHS = frozenset({"/healthz"})


class Guard:
    """ASGI middleware: bearer-token auth, body cap, per-request timeout (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, token: str, max_body_bytes: int, timeout_s: float):
        if not token:
            raise ValueError("the server needs a non-empty token")
        self.app = app
        self._token = token.encode()
        self.max_body_bytes = max_body_bytes
        self.timeout_s = timeout_s
        self.api: Any = None  # the FastAPI app inside (set by create_app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] not in OPEN_PATHS and not self._authorised(scope):
            await _json(send, 401, {"detail": "missing or wrong bearer token"}, {"www-authenticate": "Bearer"})
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await _json(send, 413, {"detail": f"request body over {self.max_body_bytes} bytes"})
            return
        body = bytearray()
        more = True
        while more:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
            if len(body) > self.max_body_bytes:
                await _json(send, 413, {"detail": f"request body over {self.max_body_bytes} bytes"})
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        started = False
        t0 = time.perf_counter()

        async def tracking_send(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start" and not started:
                ms = (time.perf_counter() - t0) * 1000
                msg = {**msg, "headers": [*msg.get("headers", []), (b"server-timing", f"app;dur={ms:.2f}".encode())]}
            started = True
            await send(msg)

        try:
            await asyncio.wait_for(self.app(scope, replay, tracking_send), self.timeout_s)
        except TimeoutError:
            if not started:
                await _json(send, 503, {"detail": f"request took longer than {self.timeout_s:g} s"})

    def _authorised(self, scope: Scope) -> bool:
        for k, v in scope.get("headers") or []:
            if k == b"authorization":
                scheme, _, given = bytes(v).partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)
        return False


async def _json(send: Send, status: int, body: dict[str, Any], extra: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


# --- request bodies ----------------------------------------------------------------------------


class AddBody(BaseModel):
    memories: list[dict[str, Any]] = Field(min_length=1, max_length=10_000)


class SearchBody(BaseModel):
    context: str = Field(min_length=1)
    k: int = Field(5, ge=1, le=MAX_SEARCH_K, strict=True)  # {"k": true} is not k=1
    scope: str | None = Field(None, max_length=200)
    session_id: str | None = Field(None, max_length=200)
    restrict_to_scope: bool = False


class ResponseBody(BaseModel):
    search_id: str = Field(min_length=1, max_length=64)
    response: str = Field(min_length=1)
    prompt: str | None = None


class GradeBody(BaseModel):
    search_id: str = Field(min_length=1, max_length=64)
    grades: str = Field(min_length=1)


class AssignBody(BaseModel):
    experiment: str = Field(min_length=1, max_length=200)
    units: list[str] = Field(min_length=1, max_length=1_000)
    exclude: bool = False


class StampBody(BaseModel):
    experiment: str = Field(min_length=1, max_length=200)
    unit: str = Field(min_length=1, max_length=200)
    memories: list[dict[str, Any]] = Field(min_length=1, max_length=10_000)
    exclude: bool = False
    source_ref: str | None = Field(default=None, max_length=200)


def create_app(service: MemoryService, settings: ServerSettings, *, token: str) -> Guard:
    """The ASGI app: the FastAPI routes of ``service`` behind :class:`Guard` with ``token``.

    ``settings``: body cap, timeout, hook roots and caps (:class:`ServerSettings`). The returned
    object is what uvicorn (or a test client) serves; its ``.api`` is the FastAPI app."""
    api = FastAPI(title="assay memory server", version=API_VERSION)
    sessions = SessionMap(settings.session_ttl_s)

    @api.exception_handler(UnknownSearchError)
    async def _unknown(_r: Request, e: UnknownSearchError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=404)

    @api.exception_handler(UnknownExperimentError)
    async def _no_experiment(_r: Request, e: UnknownExperimentError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=404)

    @api.exception_handler(IdempotencyConflict)
    async def _conflict(_r: Request, e: IdempotencyConflict) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=422)

    @api.exception_handler(MemoryFileError)
    async def _bad_memories(_r: Request, e: MemoryFileError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=400)

    @api.exception_handler(ValueError)
    async def _bad_value(_r: Request, e: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(e).splitlines()[0] if str(e) else type(e).__name__}, status_code=400)

    @api.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "api": API_VERSION}

    @api.post("/v1/memories")
    async def add(body: AddBody, idempotency_key: str | None = Header(None)) -> dict[str, Any]:
        payload = body.model_dump()
        return await run_in_threadpool(
            service.idempotent, "memories", idempotency_key, payload, lambda: service.add(body.memories)
        )

    @api.post("/v1/search")
    async def search(body: SearchBody, idempotency_key: str | None = Header(None)) -> dict[str, Any]:
        payload = body.model_dump()

        def work() -> dict[str, Any]:
            return service.search(
                body.context,
                k=body.k,
                scope=body.scope,
                session_id=body.session_id,
                restrict_to_scope=body.restrict_to_scope,
                key=idempotency_key,
            )

        return await run_in_threadpool(service.idempotent, "search", idempotency_key, payload, work)

    @api.post("/v1/responses")
    async def respond(body: ResponseBody, idempotency_key: str | None = Header(None)) -> dict[str, Any]:
        return await run_in_threadpool(
            service.idempotent,
            "responses",
            idempotency_key,
            body.model_dump(),
            lambda: service.respond(body.search_id, body.response, prompt=body.prompt),
        )

    @api.post("/v1/grades")
    async def grade(body: GradeBody, idempotency_key: str | None = Header(None)) -> dict[str, Any]:
        return await run_in_threadpool(
            service.idempotent,
            "grades",
            idempotency_key,
            body.model_dump(),
            lambda: service.grade(body.search_id, body.grades),
        )

    @api.get("/v1/stats")
    async def stats() -> dict[str, Any]:
        out = await run_in_threadpool(service.stats)
        # the hook-reply counters are this process's, by choice (MemoryService.note_reply): named so
        replies = await run_in_threadpool(service.process_replies)
        return {**out, "memories": await run_in_threadpool(service.count), "hook_replies_this_process": replies}

    @api.post("/v1/ab/assign")
    async def ab_assign(body: AssignBody) -> dict[str, Any]:
        """Each unit's arm (pure and sticky: no write; the pinned ``assay memory ab assign`` shape)."""
        return {"assignments": await run_in_threadpool(service.ab_assign, body.experiment, body.units, body.exclude)}

    @api.post("/v1/ab/stamp")
    async def ab_stamp(body: StampBody, idempotency_key: str | None = Header(None)) -> dict[str, Any]:
        """Write the unit's memories stamped with its arm, in one transaction."""
        return await run_in_threadpool(
            service.idempotent,
            "ab_stamp",
            idempotency_key,
            body.model_dump(),
            lambda: service.ab_stamp(
                body.experiment, body.unit, body.memories, exclude=body.exclude, source_ref=body.source_ref
            ),
        )

    @api.post("/v1/hooks/claude-code")
    async def claude_code(request: Request) -> JSONResponse:
        try:
            event = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"detail": "hook input is not JSON"}, status_code=400)
        except RecursionError:  # "[" * 200000: a traceback and 500 before
            return JSONResponse({"detail": "hook input is nested too deeply"}, status_code=400)
        if not isinstance(event, dict):
            return JSONResponse({"detail": "hook input is not a JSON object"}, status_code=400)
        try:
            out = await run_in_threadpool(handle_hook, service, settings, sessions, event)
        except TranscriptPathError as e:
            return JSONResponse({"detail": str(e)}, status_code=400)
        return JSONResponse(out)

    @api.post("/v1/admin/reload")
    async def reload() -> dict[str, Any]:
        return await run_in_threadpool(service.reload)

    guard = Guard(api, token=token, max_body_bytes=settings.max_body_bytes, timeout_s=settings.request_timeout_s)
    guard.api = api
    return guard
