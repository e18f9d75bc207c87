"""``assay serve``: the memory server (the ``server`` extra: FastAPI + uvicorn), and ``assay mcp``.

Thin: builds :class:`assay.server.config.ServerSettings` from the options and the environment,
opens the memory store of the configured database and hands both to :mod:`assay.server.run`.
A non-loopback ``--host`` without ``--allow-remote`` and a supplied token exits 2 before
anything is opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli.app import app
from assay.cli.common import UsageError, db_errors, db_url, err, open_memory_store, user_errors

if TYPE_CHECKING:
    from assay.memory import MemoryStore

__all__ = ["serve_cmd", "mcp_cmd"]


@app.command("serve")
def serve_cmd(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (loopback unless --allow-remote)."),
    port: int = typer.Option(8377, "--port", help="Port to bind."),
    allow_remote: bool = typer.Option(
        False, "--allow-remote", help="Allow a non-loopback --host (needs --token-file or ASSAY_SERVER_TOKEN)."
    ),
    token_file: Path | None = typer.Option(
        None, "--token-file", help="File holding the bearer token (default: $ASSAY_HOME/server.token, created 0600)."
    ),
    embedder: str | None = typer.Option(None, "--embedder", help="minilm or hashing (default $ASSAY_MEMORY_EMBEDDER)."),
    query_embedder: str | None = typer.Option(
        None,
        "--query-embedder",
        help="auto, onnx or store: what embeds queries (default $ASSAY_SERVER_QUERY_EMBEDDER or auto).",
    ),
    experiment: str | None = typer.Option(
        None, "--experiment", help="A/B experiment whose arm the hooks apply (default $ASSAY_SERVER_EXPERIMENT; none)."
    ),
) -> None:
    """Serve the memory over HTTP on loopback: add, search (logged), responses, grades, stats, Claude Code hooks."""
    with user_errors(ctx):
        from assay.server.config import server_settings
        from assay.server.run import serve

        changes: dict[str, object] = {"host": host, "port": port, "allow_remote": allow_remote}
        if query_embedder is not None:
            changes["query_embedder"] = query_embedder
        if experiment is not None:
            changes["hook_experiment"] = experiment
        settings = server_settings(token_file=token_file, **changes)
        settings.check_bind()
        if settings.hook_experiment:  # a typo would serve every unit the control arm, silently
            _check_experiment(ctx, settings.hook_experiment)

        def ready() -> None:
            err.print(f"assay memory server on {_where(settings)} (token: {settings.token_label})", markup=False)

        def make_store() -> MemoryStore:
            from assay.memory import MemoryStore, default_settings
            from assay.storage import make_engine

            engine = make_engine(db_url(ctx), sqlite_synchronous=settings.sqlite_synchronous)
            return MemoryStore(engine, settings=default_settings(**({"embedder": embedder} if embedder else {})))

        serve(settings, make_store, on_ready=ready)


def _where(settings: object) -> str:
    """The ready line's address: ``settings.url``, or for a wildcard bind (``0.0.0.0``, ``::``)
    "all interfaces" with an address a client can use (this host's name)."""
    import socket

    from assay.server.config import ServerSettings

    assert isinstance(settings, ServerSettings)
    if settings.host.strip("[]") not in ("0.0.0.0", "::", ""):
        return settings.url
    example = settings.with_(host=socket.gethostname() or "127.0.0.1").url
    return f"all interfaces, port {settings.port} (e.g. {example})"


def _check_experiment(ctx: typer.Context, name: str) -> None:
    """Exit 2 naming the known experiments when the database has none called ``name`` (a SQLite
    file that does not exist yet has none, and is not created)."""
    from sqlalchemy.engine import make_url

    from assay.memory.experiments import ExperimentStore
    from assay.server.service import unknown_experiment
    from assay.storage import make_engine

    url = db_url(ctx)
    parsed = make_url(url)
    missing = (
        parsed.get_backend_name() == "sqlite"
        and parsed.database not in (None, "", ":memory:")
        and not Path(parsed.database).expanduser().exists()
    )
    if missing:
        problem = unknown_experiment(None, name)
    else:
        with db_errors(url):
            engine = make_engine(url)
            try:
                problem = unknown_experiment(ExperimentStore(engine), name)
            finally:
                engine.dispose()
    if problem is not None:
        raise UsageError(f"--experiment (or ASSAY_SERVER_EXPERIMENT): {problem}")


@app.command("mcp")
def mcp_cmd(
    ctx: typer.Context,
    embedder: str | None = typer.Option(None, "--embedder", help="minilm or hashing (default $ASSAY_MEMORY_EMBEDDER)."),
) -> None:
    """Serve memory search, add and grade as MCP tools over stdio (the 'server' extra: the mcp SDK)."""
    with user_errors(ctx):
        from assay.server.mcp_server import run_stdio

        run_stdio(open_memory_store(ctx, embedder))
