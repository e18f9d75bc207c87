"""Memory-server settings in one place, each default with its rationale; the environment is read here only.

:class:`ServerSettings` is what ``assay serve`` and :func:`assay.server.app.create_app` take;
:func:`server_settings` builds it from the defaults, then the environment (``ASSAY_HOME``,
``ASSAY_SERVER_TOKEN``, ``ASSAY_SERVER_ROOTS``, ``ASSAY_SERVER_QUERY_EMBEDDER``,
``ASSAY_SERVER_EXPERIMENT``), then explicit changes. The token helpers live
here too (:func:`load_or_create_token`, :func:`read_token_file`) because they are where the token
file's path, mode and format are decided.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = [
    "ServerSettings",
    "server_settings",
    "assay_home",
    "load_or_create_token",
    "read_token_file",
    "served_token",
    "is_loopback",
    "TOKEN_FILE_NAME",
    "MIN_REMOTE_TOKEN_CHARS",
    "DEFAULT_PORT",
    "QUERY_EMBEDDERS",
    "MAX_SEARCH_K",
]

#: Port of ``assay serve``: unassigned by IANA, memorable, clear of the usual dev ports (8000/8080).
DEFAULT_PORT = 8377

#: ``ServerSettings.query_embedder`` values.
QUERY_EMBEDDERS = ("auto", "onnx", "store")

#: The token file's name under ``$ASSAY_HOME``.
TOKEN_FILE_NAME = "server.token"

#: Shortest token a non-loopback bind accepts (``--allow-remote``): 32 characters. Off loopback
#: anyone on the network can try tokens; 32 characters of even a lowercase-and-digits alphabet
#: are ~165 bits, past any online guessing, and the auto-created token (43 characters of
#: ``token_urlsafe(32)``) passes. A user's ``ASSAY_SERVER_TOKEN=a`` does not.
MIN_REMOTE_TOKEN_CHARS = 32

#: The most memories one served search delivers (``k``): 100, over HTTP (``POST /v1/search``:
#: 422 past it) and MCP (``memory_search``: an error naming it) alike — one bound, read by
#: both. Every delivered memory is put in an agent's context and logged as a delivery row in
#: the search's own write: the hooks ask for 5 (``ServerSettings.hook_k``), and 100 short notes
#: already fill the 8,000-character context budget several times over. The store's bound
#: (``MemorySettings.max_k``, 1,000) is for offline evaluation, which ranks deeper; a served
#: search would only pay for that depth (1,000 delivery rows per call), never use it.
MAX_SEARCH_K = 100


@dataclass(frozen=True)
class ServerSettings:
    """How the memory server binds, authenticates and bounds each request.

    - ``host`` / ``port``: 127.0.0.1:8377. Loopback by default: the server holds an agent's
      memories and answers anyone who reaches it with the token; a non-loopback host needs
      ``allow_remote`` *and* a token the user supplied (``token_source`` ``"file"`` or
      ``"env"``; the auto-created one does not count: nobody chose to share it).
    - ``token_file``: ``$ASSAY_HOME/server.token``, created 0600 with 32 random bytes
      (``secrets.token_urlsafe``, 256 bits) on first start; ``token_source`` says where the
      served token came from (``"auto"``, ``"file"`` for ``--token-file``, ``"env"`` for
      ``ASSAY_SERVER_TOKEN``).
    - ``max_body_bytes``: 1,000,000 (1 MB, the issue's default): a memory batch of a few hundred
      notes fits; anything larger is refused with 413 before it is read into memory.
    - ``request_timeout_s``: 10 s per request (503 past it): a hook waits at most 0.8 s anyway,
      and a batch add of 1 MB of notes embeds in ~2–5 s on CPU; past 10 s something is stuck.
    - ``hook_context_max_chars``: 8,000 characters of ``additionalContext`` (the issue's
      default; Claude Code previews only the start of very long context).
    - ``hook_k``: 5 memories per prompt (the library's search default); at most
      :data:`MAX_SEARCH_K`, as every served search.
    - ``session_ttl_s``: 6 h: a Claude Code session's prompt → Stop pairs are minutes apart; a
      session left open overnight starts afresh.
    - ``project_roots``: the folders under which a Stop hook's ``transcript_path`` may be read
      (default ``~/.claude/projects``, where Claude Code writes transcripts;
      ``ASSAY_SERVER_ROOTS``, ``os.pathsep``-separated, replaces it). A path outside (after
      resolving ``..`` and symlinks) → 400, nothing read.
    - ``transcript_max_bytes``: the last 4 MB of a transcript are read: the last assistant
      message is at its end, and a multi-hour session's JSONL can reach hundreds of MB.
    - ``graceful_shutdown_s``: 10 s for in-flight requests after SIGTERM (uvicorn's
      ``timeout_graceful_shutdown``), the request timeout: nothing started is cut short.
    - ``query_embedder``: ``"auto"`` (``ASSAY_SERVER_QUERY_EMBEDDER``): a store whose embedder
      is the packaged MiniLM gets its *queries* embedded by the same weights on ONNX Runtime,
      int8 (:class:`assay.memory.retrieval.onnx_embedder.OnnxMiniLMEmbedder`, one thread) when
      the ``onnx`` extra is installed, else by the store's own embedder (one log line says
      so). Its vectors carry the same weights identity; measured on LoCoMo (that module's
      docstring): cosine to float32 0.993 mean, recall@10 not lower, one-query embedding
      ~6× faster — the embedding is ~85 % of a hook's server time with float32. Memories are
      still written with the float32 embedder (the stored vectors stay exact; an int8 vector
      stored next to float32 ones would add its 0.7 % error to every later comparison).
      ``"onnx"`` requires it (start-up fails without the extra); ``"store"`` never uses it.
    - ``hook_experiment``: ``None`` (``ASSAY_SERVER_EXPERIMENT``): the write-side A/B
      experiment (:mod:`assay.memory.experiments`) whose arm the hooks apply — the prompt hook
      injects the arm's instruction, the Stop hook stamps the memories it writes. The unit is
      what the experiment's ``unit`` says: ``session`` → the hook's ``session_id``, ``prompt``
      → the prompt's search id. ``None``: no arm, nothing stamped (an experiment is opt-in).
    - ``sqlite_synchronous``: ``"NORMAL"`` on a SQLite store (WAL journal, as every assay
      engine): a commit is not fsynced, so the delivery-log write of each search costs the
      write, not a disk flush (measured in process at 10,000 memories: the commit was ~5 ms of
      the ~11 ms write on a loaded host). SQLite's recommended setting for WAL: an application
      crash or SIGKILL never loses a commit; only a power loss may roll back the last ones, in
      order — what a client then redoes with its idempotency key
      (https://www.sqlite.org/pragma.html#pragma_synchronous). ``None`` keeps ``FULL``.
    - ``blas_threads``: 1 BLAS thread for the server process (``threadpoolctl``, when
      installed): the service answers one search at a time and a 10,000 × 384 cosine scan is
      memory-bound — measured on the shared 2-core host, 1 thread 4.4–5.5 ms, 2 threads 10–18
      ms (OpenBLAS's spinning threads compete with the other processes). ``None`` leaves
      the library's default.
    """

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    allow_remote: bool = False
    token_file: Path = field(default_factory=lambda: assay_home() / TOKEN_FILE_NAME)
    token_source: str = "auto"
    max_body_bytes: int = 1_000_000
    request_timeout_s: float = 10.0
    hook_context_max_chars: int = 8000
    hook_k: int = 5
    session_ttl_s: float = 6 * 3600.0
    project_roots: tuple[Path, ...] = field(default_factory=lambda: (Path.home() / ".claude" / "projects",))
    transcript_max_bytes: int = 4_000_000
    graceful_shutdown_s: float = 10.0
    query_embedder: str = "auto"
    hook_experiment: str | None = None
    sqlite_synchronous: str | None = "NORMAL"
    blas_threads: int | None = 1

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be in [0, 65535], got {self.port}")
        if self.token_source not in ("auto", "file", "env"):
            raise ValueError(f"token_source must be auto, file or env, got {self.token_source!r}")
        if self.max_body_bytes < 1 or self.hook_context_max_chars < 200 or self.hook_k < 1:
            raise ValueError("max_body_bytes >= 1, hook_context_max_chars >= 200 and hook_k >= 1 are required")
        if self.hook_k > MAX_SEARCH_K:
            raise ValueError(f"hook_k must be <= {MAX_SEARCH_K} (MAX_SEARCH_K), got {self.hook_k}")
        if self.query_embedder not in QUERY_EMBEDDERS:
            raise ValueError(f"query_embedder must be one of {', '.join(QUERY_EMBEDDERS)}, got {self.query_embedder!r}")
        if self.hook_experiment is not None and not 0 < len(self.hook_experiment) <= 200:
            raise ValueError("hook_experiment: 1 to 200 characters")
        if self.sqlite_synchronous not in (None, "NORMAL", "FULL"):
            raise ValueError(f"sqlite_synchronous must be None, NORMAL or FULL, got {self.sqlite_synchronous!r}")
        if self.blas_threads is not None and self.blas_threads < 1:
            raise ValueError("blas_threads must be >= 1 or None")
        if not (self.request_timeout_s > 0 and self.session_ttl_s > 0 and self.graceful_shutdown_s >= 0):
            raise ValueError("request_timeout_s and session_ttl_s must be > 0, graceful_shutdown_s >= 0")

    def with_(self, **changes: object) -> ServerSettings:
        """A copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def url(self) -> str:
        """The address clients reach, ``http://HOST:PORT``; an IPv6 host in brackets
        (``http://[::1]:8377``, RFC 3986 §3.2.2), as ``ASSAY_SERVER_URL`` and ``--url`` expect."""
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"http://{host}:{self.port}"

    def check_bind(self) -> None:
        """Refuse a non-loopback ``host`` unless ``allow_remote`` and a user-supplied token.

        Raises ``ValueError`` with the reason (the CLI prints it and exits 2)."""
        if is_loopback(self.host):
            return
        if not self.allow_remote:
            raise ValueError(
                f"--host {self.host}: not a loopback address; the server binds 127.0.0.1 unless "
                "--allow-remote is given together with --token-file or ASSAY_SERVER_TOKEN"
            )
        if self.token_source == "auto":
            raise ValueError(
                f"--host {self.host} --allow-remote needs a token you supply (--token-file or ASSAY_SERVER_TOKEN): "
                "the auto-created token does not count"
            )
        if len(served_token(self)) < MIN_REMOTE_TOKEN_CHARS:
            raise ValueError(
                f"--host {self.host} --allow-remote: the token from {self.token_label} is shorter than "
                f"{MIN_REMOTE_TOKEN_CHARS} characters; make one with: python -c "
                "'import secrets; print(secrets.token_urlsafe(32))'"
            )

    @property
    def token_label(self) -> str:
        """Where the served token comes from, for the ready line and errors (never the token):
        ``ASSAY_SERVER_TOKEN`` or the token file's path."""
        return "ASSAY_SERVER_TOKEN" if self.token_source == "env" else str(self.token_file)


def assay_home() -> Path:
    """``$ASSAY_HOME`` (default ``~/.assay``), as :func:`assay.storage.resolve_db_url` reads it."""
    return Path(os.environ.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()


def server_settings(*, token_file: str | Path | None = None, **changes: object) -> ServerSettings:
    """:class:`ServerSettings` from the defaults, then the environment, then ``changes``.

    ``token_file`` given: that file (it must exist; ``token_source="file"``). Else
    ``ASSAY_SERVER_TOKEN`` set: ``token_source="env"``. Else the auto-created file under
    ``$ASSAY_HOME``. ``ASSAY_SERVER_ROOTS`` (``os.pathsep``-separated) sets ``project_roots``,
    ``ASSAY_SERVER_QUERY_EMBEDDER`` ``query_embedder``, ``ASSAY_SERVER_EXPERIMENT`` ``hook_experiment``.
    """
    env: dict[str, object] = {}
    if token_file is not None:
        env["token_file"], env["token_source"] = Path(token_file).expanduser(), "file"
    elif os.environ.get("ASSAY_SERVER_TOKEN", "").strip():
        env["token_source"] = "env"
    roots = os.environ.get("ASSAY_SERVER_ROOTS", "").strip()
    if roots:
        env["project_roots"] = tuple(Path(r).expanduser() for r in roots.split(os.pathsep) if r.strip())
    query = os.environ.get("ASSAY_SERVER_QUERY_EMBEDDER", "").strip().lower()
    if query:
        env["query_embedder"] = query
    experiment = os.environ.get("ASSAY_SERVER_EXPERIMENT", "").strip()
    if experiment:
        env["hook_experiment"] = experiment
    return ServerSettings(**env).with_(**changes)  # type: ignore[arg-type]


def served_token(settings: ServerSettings) -> str:
    """The token the server checks: ``ASSAY_SERVER_TOKEN`` (``token_source="env"``), the given
    file (``"file"``, must exist and be non-empty), else :func:`load_or_create_token`."""
    if settings.token_source == "env":
        return os.environ["ASSAY_SERVER_TOKEN"].strip()
    if settings.token_source == "file":
        token = read_token_file(settings.token_file)
        if token is None:
            raise ValueError(f"--token-file {settings.token_file}: missing or empty")
        _check_private(settings.token_file)
        return token
    return load_or_create_token(settings.token_file)


def read_token_file(path: Path) -> str | None:
    """The token in ``path`` (stripped), or ``None`` when the file is missing or empty."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return token or None


def load_or_create_token(path: Path) -> str:
    """The token in ``path``; when absent, a new one written there with mode 0600.

    Created with ``O_CREAT | O_EXCL`` and mode 0600 in one call (no window where another user
    could read it); when two servers start at once, the loser reads the winner's. The parent
    folder is created 0700. Raises ``ValueError`` when an existing file is readable by others
    (group or world bits set): a token others can read authenticates them too.
    """
    token = read_token_file(path)
    if token is not None:
        _check_private(path)
        return token
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    new = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        again = read_token_file(path)
        if again is None:
            raise ValueError(f"{path}: token file exists but is empty") from None
        return again
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(new + "\n")
    return new


def _check_private(path: Path) -> None:
    """``ValueError`` when the token file at ``path`` has group or other permission bits: a
    token others can read authenticates them too (the auto-created file and ``--token-file``)."""
    mode = path.stat().st_mode
    if mode & 0o077:
        raise ValueError(f"{path}: token file is readable by others (mode {mode & 0o777:o}); chmod 600")


def is_loopback(host: str) -> bool:
    """Whether ``host`` names the loopback interface (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
