"""``assay-hook``: the Claude Code ``type: "command"`` hook client — standard library only, and little of it.

Reads the hook's input JSON on stdin, posts it as-is to the memory server's
``POST /v1/hooks/claude-code`` and prints the server's reply (the hook's output JSON) on
stdout. The agent's turn is never blocked or broken: when the server is down, refuses, answers
an error or is slower than the budget (``ASSAY_HOOK_BUDGET_MS``, default 800 ms), it prints
nothing, exits 0 and appends one line to ``$ASSAY_HOME/hook.log``.

Configuration (environment only; this client reads no assay settings module, so importing it
loads no pydantic, SQLAlchemy, numpy or torch): ``ASSAY_SERVER_URL`` (default
``http://127.0.0.1:8377``), the token from ``ASSAY_SERVER_TOKEN`` or the token file
(``ASSAY_SERVER_TOKEN_FILE``, default ``$ASSAY_HOME/server.token``; ``ASSAY_HOME`` defaults to
``~/.assay``). The token is sent in the ``Authorization`` header and written nowhere.

Start-up is the hook's cost (a new process per event), so the client imports ``os``, ``sys``,
``time`` and ``_socket`` only (``python -X importtime -c "import assay_hook"``): HTTP/1.1 is
written on a socket (one ``POST``, ``Connection: close``, the reply read up to its
``Content-Length``) instead of ``http.client``, which pulls in the ``email`` parser and
``ssl``; the socket is CPython's ``_socket`` (what ``socket.py`` wraps: the wrapper's enum
conversion of every constant, ``selectors`` and ``collections`` were half of this module's
import time); the input is forwarded as bytes, not parsed (the server validates it: 400 for
anything that is not a hook event), and the reply is printed as the server wrote it. Only an
``https://`` URL imports ``http.client`` (and ``ssl``). No ``from __future__`` import either:
the ``__future__`` module is a real import.
"""

import _socket
import os
import sys
import time

__all__ = ["main", "run", "DEFAULT_URL", "DEFAULT_BUDGET_MS"]

DEFAULT_URL = "http://127.0.0.1:8377"
#: Claude Code waits on a command hook before the prompt is sent: 800 ms is under the threshold
#: where a turn feels delayed, and 8× the server's p50 target for the round trip (100 ms).
DEFAULT_BUDGET_MS = 800
ROUTE = "/v1/hooks/claude-code"
#: Longest reply read (the server caps ``additionalContext`` at 8,000 characters by default).
MAX_REPLY_BYTES = 4_000_000


USAGE = (
    "usage: assay-hook < EVENT.json\n\n"
    "Claude Code's type: command hook client. Reads the hook's input JSON on stdin, posts it to\n"
    "the assay memory server (POST /v1/hooks/claude-code) and prints the reply. When the server\n"
    "is down, refuses or is over budget it prints nothing, exits 0 and logs one line to\n"
    "$ASSAY_HOME/hook.log. Environment: ASSAY_SERVER_URL (default http://127.0.0.1:8377),\n"
    "ASSAY_SERVER_TOKEN or ASSAY_SERVER_TOKEN_FILE (default $ASSAY_HOME/server.token),\n"
    "ASSAY_HOOK_BUDGET_MS (default 800). Installed by: assay hook install --claude-code\n"
)


class ReplyError(Exception):
    """The server's reply is not a well-formed HTTP/1.1 response."""


def _home() -> str:
    return os.path.expanduser(os.environ.get("ASSAY_HOME") or os.path.join("~", ".assay"))


def _token() -> str | None:
    tok = os.environ.get("ASSAY_SERVER_TOKEN", "").strip()
    if tok:
        return tok
    path = os.path.expanduser(os.environ.get("ASSAY_SERVER_TOKEN_FILE") or os.path.join(_home(), "server.token"))
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _log(line: str) -> None:
    try:
        home = _home()
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, "hook.log"), "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} assay-hook: {line}\n")
    except OSError:
        pass


def event_name(stdin: bytes) -> str:
    """The ``hook_event_name`` of the input, for the log line only (``"?"`` when not found): the
    first ``"hook_event_name": "<name>"`` pair, the name kept when it is a short ASCII word."""
    _, found, rest = stdin.partition(b'"hook_event_name"')
    if not found:
        return "?"
    rest = rest.lstrip()
    if not rest.startswith(b":"):
        return "?"
    rest = rest[1:].lstrip()
    if not rest.startswith(b'"'):
        return "?"
    name = rest[1:].partition(b'"')[0]
    return name.decode("ascii") if 0 < len(name) <= 40 and name.isalnum() and name.isascii() else "?"


def run(stdin: bytes, *, url: str | None = None, budget_ms: float | None = None) -> str:
    """The text to print for hook input ``stdin`` (``""`` on any failure, logged once)."""
    base = (url or os.environ.get("ASSAY_SERVER_URL") or DEFAULT_URL).rstrip("/")
    if budget_ms is None:
        try:
            budget_ms = float(os.environ.get("ASSAY_HOOK_BUDGET_MS") or DEFAULT_BUDGET_MS)
        except ValueError:
            budget_ms = DEFAULT_BUDGET_MS
    if not stdin.lstrip().startswith(b"{"):
        _log("input is not a JSON object; nothing sent")
        return ""
    event = event_name(stdin)
    token = _token()
    if token is None:
        _log(f"{event}: no token (ASSAY_SERVER_TOKEN or the token file); nothing sent")
        return ""
    if "\r" in token or "\n" in token:
        _log(f"{event}: the token holds a line break; nothing sent")
        return ""
    t0 = time.monotonic()
    try:
        status, body = post(base, stdin, token, budget_ms / 1000.0)
    except (OSError, ValueError, ReplyError) as e:
        ms = (time.monotonic() - t0) * 1000
        _log(f"{event}: server unreachable or over budget ({type(e).__name__} after {ms:.0f} ms); nothing printed")
        return ""
    if status != 200:
        _log(f"{event}: server answered {status}; nothing printed")
        return ""
    text = body.decode("utf-8", errors="replace").strip()
    if not text.startswith("{"):
        _log(f"{event}: server reply is not a JSON object; nothing printed")
        return ""
    return "" if text == "{}" else text


def post(base: str, body: bytes, token: str, timeout_s: float) -> tuple[int, bytes]:
    """POST ``body`` to ``base`` + :data:`ROUTE`; ``(status, body)``. The whole exchange shares one
    deadline of ``timeout_s`` (connect, send and every read get what is left of it). Raises
    ``OSError`` (unreachable, timed out), ``ValueError`` (a URL that is not ``http(s)://host[:port]``)
    or :class:`ReplyError`."""
    scheme, _, rest = base.partition("://")
    if scheme not in ("http", "https") or not rest:
        raise ValueError(f"ASSAY_SERVER_URL must be http(s)://host:port, got {base!r}")
    hostport, _, prefix = rest.partition("/")
    path = ("/" + prefix).rstrip("/") + ROUTE
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    if scheme == "https":
        return _post_https(hostport, path, body, headers, timeout_s)
    host, port = _split_hostport(hostport)
    deadline = time.monotonic() + timeout_s
    head = f"POST {path} HTTP/1.1\r\nHost: {hostport}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    sock = _connect(host, port, deadline)
    try:
        sock.settimeout(_left(deadline))
        sock.sendall(head.encode("latin-1") + body)
        return _read_reply(sock, deadline)
    finally:
        sock.close()


def _addresses(host: str, port: int) -> list[tuple[int, int, int, tuple[str, int]]]:
    """``(family, type, proto, address)`` to try for ``host:port``: an IP literal (the default
    ``127.0.0.1``) as it is — no ``getaddrinfo``, whose first call in a process loads the resolver
    (measured 65–250 ms in a fresh process on a loaded host, more than the rest of the client) —
    else what ``getaddrinfo`` gives, in order."""
    for family in (_socket.AF_INET, _socket.AF_INET6):
        try:
            _socket.inet_pton(family, host)
        except OSError:
            continue
        return [(family, _socket.SOCK_STREAM, 0, (host, port))]
    found = _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM)
    return [(f, k, p, (str(a[0]), int(a[1]))) for f, k, p, _, a in found]


def _connect(host: str, port: int, deadline: float) -> _socket.socket:
    """A connected TCP socket to ``host:port`` (each of :func:`_addresses` in order, as
    ``socket.create_connection`` tries them), within the deadline; the last ``OSError`` otherwise."""
    last: OSError = OSError(f"no address for {host!r}")
    for family, kind, proto, addr in _addresses(host, port):
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(_left(deadline))
            sock.connect(addr)
            return sock
        except OSError as e:
            sock.close()
            last = e
    raise last


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("budget spent before the reply")
    return left


def _split_hostport(hostport: str) -> tuple[str, int]:
    host, port = hostport, 80
    if hostport.startswith("["):  # [::1]:8377
        host, _, tail = hostport[1:].partition("]")
        if tail.startswith(":"):
            port = int(tail[1:])
    elif ":" in hostport:
        host, _, p = hostport.rpartition(":")
        port = int(p)
    if not host or not 0 < port < 65536:
        raise ValueError(f"ASSAY_SERVER_URL: bad host or port in {hostport!r}")
    return host, port


def _read_reply(sock: _socket.socket, deadline: float) -> tuple[int, bytes]:
    """Read one HTTP/1.1 response: ``(status, body)`` (``Content-Length``, chunked, or to EOF)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = _recv(sock, deadline)
        if not chunk:
            raise ReplyError("connection closed before the reply's headers")
        data += chunk
        if len(data) > MAX_REPLY_BYTES:
            raise ReplyError("reply headers too long")
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ReplyError(f"not an HTTP/1.x status line: {lines[0][:40]!r}")
    fields = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        fields[k.strip().lower()] = v.strip()
    length = fields.get("content-length")
    chunked = "chunked" in fields.get("transfer-encoding", "").lower()
    while True:
        if length is not None and not chunked:
            if not length.isdigit() or int(length) > MAX_REPLY_BYTES:
                raise ReplyError(f"bad Content-Length {length[:20]!r}")
            if len(body) >= int(length):
                return int(parts[1]), body[: int(length)]
        chunk = _recv(sock, deadline)
        if not chunk:
            break
        body += chunk
        if len(body) > MAX_REPLY_BYTES:
            raise ReplyError("reply too long")
    if length is not None and not chunked:
        raise ReplyError("connection closed before the reply's body")
    return int(parts[1]), _dechunk(body) if chunked else body


def _recv(sock: _socket.socket, deadline: float) -> bytes:
    sock.settimeout(_left(deadline))
    return sock.recv(65536)


def _dechunk(data: bytes) -> bytes:
    out = b""
    while True:
        size_line, sep, rest = data.partition(b"\r\n")
        if not sep:
            raise ReplyError("truncated chunked body")
        try:
            size = int(size_line.split(b";")[0].strip(), 16)
        except ValueError:
            raise ReplyError("bad chunk size") from None
        if size == 0:
            return out
        out += rest[:size]
        data = rest[size + 2 :]


def _post_https(hostport: str, path: str, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
    import http.client  # only for https: the loopback server speaks http

    deadline = time.monotonic() + timeout_s
    conn = http.client.HTTPSConnection(hostport, timeout=timeout_s)
    try:
        conn.request("POST", path, body=body, headers=headers)
        if conn.sock is not None:
            conn.sock.settimeout(_left(deadline))
        resp = conn.getresponse()
        return resp.status, resp.read()
    except http.client.HTTPException as e:
        raise ReplyError(str(e)) from None
    finally:
        conn.close()


def main() -> None:
    """Console-script entry point: always exits 0. ``-h``/``--help`` prints the usage (Claude Code
    passes no arguments; without this a person trying ``assay-hook --help`` waited on stdin)."""
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        sys.stdout.write(USAGE)
        sys.exit(0)
    try:
        text = run(sys.stdin.buffer.read())
        if text:
            sys.stdout.write(text + "\n")
    except Exception as e:  # never break the agent's turn
        _log(f"unexpected {type(e).__name__}; nothing printed")
    sys.exit(0)
