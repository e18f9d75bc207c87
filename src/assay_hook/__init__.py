"""``assay-hook``: the Claude Code ``type: "command"`` hook client — standard library only.

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
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import time
from pathlib import Path

__all__ = ["main", "run", "DEFAULT_URL", "DEFAULT_BUDGET_MS"]

DEFAULT_URL = "http://127.0.0.1:8377"
#: Claude Code waits on a command hook before the prompt is sent: 800 ms is under the threshold
#: where a turn feels delayed, and 8× the server's p50 target for the round trip (100 ms).
DEFAULT_BUDGET_MS = 800
ROUTE = "/v1/hooks/claude-code"


def _home() -> Path:
    return Path(os.environ.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()


def _token() -> str | None:
    tok = os.environ.get("ASSAY_SERVER_TOKEN", "").strip()
    if tok:
        return tok
    path = Path(os.environ.get("ASSAY_SERVER_TOKEN_FILE") or _home() / "server.token").expanduser()
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _log(line: str) -> None:
    try:
        home = _home()
        home.mkdir(parents=True, exist_ok=True)
        with open(home / "hook.log", "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} assay-hook: {line}\n")
    except OSError:
        pass


def run(stdin: bytes, *, url: str | None = None, budget_ms: float | None = None) -> str:
    """The text to print for hook input ``stdin`` (``""`` on any failure, logged once)."""
    base = (url or os.environ.get("ASSAY_SERVER_URL") or DEFAULT_URL).rstrip("/")
    if budget_ms is None:
        try:
            budget_ms = float(os.environ.get("ASSAY_HOOK_BUDGET_MS") or DEFAULT_BUDGET_MS)
        except ValueError:
            budget_ms = DEFAULT_BUDGET_MS
    event = "?"
    try:
        parsed = json.loads(stdin or b"{}")
        event = str(parsed.get("hook_event_name", "?")) if isinstance(parsed, dict) else "?"
    except ValueError:
        _log("input is not JSON; nothing sent")
        return ""
    token = _token()
    if token is None:
        _log(f"{event}: no token (ASSAY_SERVER_TOKEN or the token file); nothing sent")
        return ""
    t0 = time.monotonic()
    try:
        status, body = _post(base, stdin, token, budget_ms / 1000.0)
    except (OSError, ValueError, http.client.HTTPException) as e:
        ms = (time.monotonic() - t0) * 1000
        _log(f"{event}: server unreachable or over budget ({type(e).__name__} after {ms:.0f} ms); nothing printed")
        return ""
    if status != 200:
        _log(f"{event}: server answered {status}; nothing printed")
        return ""
    try:
        out = json.loads(body)
    except ValueError:
        _log(f"{event}: server reply is not JSON; nothing printed")
        return ""
    return json.dumps(out) if out else ""


def _post(base: str, body: bytes, token: str, timeout_s: float) -> tuple[int, str]:
    """POST ``body`` to ``base`` + :data:`ROUTE`; ``(status, text)``. The whole exchange shares one
    deadline (each socket operation gets what is left of ``timeout_s``)."""
    scheme, _, rest = base.partition("://")
    if scheme not in ("http", "https") or not rest:
        raise ValueError(f"ASSAY_SERVER_URL must be http(s)://host:port, got {base!r}")
    hostport, _, prefix = rest.partition("/")
    cls = http.client.HTTPConnection if scheme == "http" else http.client.HTTPSConnection
    conn = cls(hostport, timeout=timeout_s)
    deadline = time.monotonic() + timeout_s
    try:
        conn.request(
            "POST",
            ("/" + prefix).rstrip("/") + ROUTE,
            body=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("budget spent before the reply")
        if conn.sock is not None:
            conn.sock.settimeout(left)
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8")
    finally:
        conn.close()


def main() -> None:
    """Console-script entry point: always exits 0."""
    try:
        text = run(sys.stdin.buffer.read())
        if text:
            sys.stdout.write(text + "\n")
    except Exception as e:  # never break the agent's turn
        _log(f"unexpected {type(e).__name__}; nothing printed")
    sys.exit(0)
