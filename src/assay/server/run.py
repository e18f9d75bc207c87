"""Running the server: build the warm service, check the bind, serve with uvicorn until SIGTERM.

:func:`serve` is what ``assay serve`` calls. uvicorn handles SIGTERM and SIGINT: it stops
accepting connections, lets in-flight requests finish (up to ``graceful_shutdown_s``) and exits
0 — the drain. Nothing lives in the process that the store does not hold (but the hook-reply
counters of ``/v1/stats``, per-process diagnostics), so a killed server loses no state; a
client that retries with its idempotency key gets the recorded answer.
Access logs name the method, path and status only (uvicorn's format): never a header, so never
the token.
"""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable
from typing import Any

from assay.memory import MemoryStore
from assay.server.app import create_app
from assay.server.config import ServerSettings, served_token
from assay.server.query import query_embedder_for
from assay.server.service import MemoryService

__all__ = ["build", "serve", "bind_socket", "limit_blas_threads"]

log = logging.getLogger("assay.server")


def build(
    settings: ServerSettings, make_store: Callable[[], MemoryStore], *, warm: bool = True
) -> tuple[Any, MemoryService]:
    """``(asgi_app, service)``: the bind checked (``ValueError``), the token loaded or created,
    the store opened, its query embedder chosen (:func:`~assay.server.service.query_embedder_for`)
    and (``warm``) its models loaded."""
    settings.check_bind()
    token = served_token(settings)
    store = make_store()
    service = MemoryService(
        store,
        reload=make_store,
        query_embedder=query_embedder_for(store, settings),
    )
    if warm:
        info = service.warm_up()
        log.info("warm: %s", info)
    return create_app(service, settings, token=token), service


def serve(
    settings: ServerSettings, make_store: Callable[[], MemoryStore], *, on_ready: Callable[[], None] | None = None
) -> None:
    """Serve until SIGTERM/SIGINT (drained: see the module docstring)."""
    import uvicorn

    limit_blas_threads(settings.blas_threads)
    settings.check_bind()
    sock = bind_socket(settings.host, settings.port)  # before the models load: a taken port fails at once
    try:
        app, _ = build(settings, make_store)
    except BaseException:
        sock.close()
        raise
    if on_ready is not None:
        on_ready()
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        timeout_graceful_shutdown=int(settings.graceful_shutdown_s),
        log_level="warning",
        lifespan="off",
    )
    # uvicorn drains on SIGTERM/SIGINT, then re-raises the signal to the handler that was set
    # before it ran: with the default one the process would die by the signal (exit -15) after a
    # clean drain. This no-op handler makes a drained shutdown exit 0.
    previous = signal.signal(signal.SIGTERM, _drained)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``(host, port)`` (``SO_REUSEADDR``, as uvicorn sets it), handed to
    uvicorn. ``ValueError`` naming the address when it cannot be bound (port taken, address not
    local): uvicorn's own failure is a log line and exit status 3, which the exit-code contract
    reserves for "done, measurement incomplete"."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise ValueError(f"--host {host} --port {port}: cannot bind ({e.strerror or e})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as e:
        sock.close()
        raise ValueError(f"--host {host} --port {port}: cannot bind ({e.strerror or e})") from None
    sock.set_inheritable(True)
    return sock


def limit_blas_threads(n: int | None) -> None:
    """Limit this process's BLAS pools to ``n`` threads (``ServerSettings.blas_threads``) with
    ``threadpoolctl`` when installed (the ``server`` extra); ``None`` or no threadpoolctl: as is."""
    if n is None:
        return
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]  # ships no types
    except ImportError:
        log.info("threadpoolctl not installed: BLAS threads left at the library default")
        return
    threadpool_limits(n, user_api="blas")


def _drained(_signum: int, _frame: object) -> None:
    log.info("SIGTERM: drained, exiting")
