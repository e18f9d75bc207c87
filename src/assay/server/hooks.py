"""Claude Code hooks: the hook's input JSON in, the hook's output JSON out (``POST /v1/hooks/claude-code``).

Two events (Claude Code's hook contract: ``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, then per event ``prompt`` or ``stop_hook_active``):

- ``UserPromptSubmit``: search the memories for the prompt (scope: the project folder ``cwd``;
  deliveries logged under the ``session_id``), answer ``{"hookSpecificOutput": {"hookEventName":
  "UserPromptSubmit", "additionalContext": <block>}}`` (:func:`assay.memory.feedback.reply.context_block`,
  capped) and remember the session's search id (a TTL map; the delivery log, which records the
  session id, is the fallback, so another server sharing the database finds it too).
- ``Stop``: unless ``stop_hook_active`` (Claude is already continuing because of a Stop hook:
  nothing is applied twice), read the transcript — only when its path lies under a configured
  project root (:func:`check_transcript_path`: ``..`` components, symlinks out, relative paths →
  :class:`TranscriptPathError`, HTTP 400, nothing opened) — take the last assistant message,
  apply its reply block's grades, label engagement on the rest of the message, and add its new
  memories. Answers ``{}``: a Stop hook that blocks nothing.

Any other event answers ``{}``.

The A/B arm (``ServerSettings.hook_experiment``, :mod:`assay.memory.experiments`): the turn's
unit is the ``session_id`` (an experiment with ``unit="session"``) or the prompt's search id
(``unit="prompt"``), assigned by :meth:`~assay.server.service.MemoryService.hook_arm` — the
same sticky assignment as ``POST /v1/ab/assign``. The prompt hook appends arm B's instruction
to the context block (arm A, control, adds nothing; an instruction is shown even when no memory
is); the Stop hook writes the reply's new memories through
:meth:`~assay.server.service.MemoryService.ab_stamp` (``POST /v1/ab/stamp``'s function):
stamped with the unit's arm in one transaction, the writer's ``source_ref`` ``claude-code``
kept in ``meta``. Without an experiment, or for a turn whose unit is not found (a prompt-unit
experiment whose prompt search delivered nothing and was answered by another server), the
memories are added unstamped.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

from sqlalchemy import select

from assay.memory.feedback.reply import context_block, parse_reply_block, strip_reply_block
from assay.memory.tables import memory_deliveries
from assay.server.config import ServerSettings
from assay.server.service import MemoryService, UnknownSearchError

__all__ = ["handle_hook", "check_transcript_path", "last_assistant_message", "TranscriptPathError", "SessionMap"]


#: ``source_ref`` of the memories a Stop hook writes (kept in ``meta`` when an arm stamps them).
HOOK_SOURCE_REF = "claude-code"


class TranscriptPathError(ValueError):
    """A transcript path outside the configured project roots (HTTP 400; nothing was read)."""


@dataclass
class _Entry:
    search_id: str | None
    at: float


class SessionMap:
    """``session_id → search_id`` of the session's last prompt, entries older than ``ttl_s``
    dropped. Every prompt replaces its session's entry; ``None`` records a prompt that ran no
    search (cleaned to nothing, not a string): its Stop grades nothing, and never an older
    search (:meth:`known` tells that apart from a session this server has not seen)."""

    def __init__(self, ttl_s: float):
        self.ttl_s = ttl_s
        self._map: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def put(self, session_id: str, search_id: str | None) -> None:
        """Record the session's last prompt: its ``search_id``, ``None`` for a prompt without a search."""
        now = time.monotonic()
        with self._lock:
            self._map[session_id] = _Entry(search_id, now)
            for sid in [s for s, e in self._map.items() if now - e.at > self.ttl_s]:
                del self._map[sid]

    def get(self, session_id: str) -> str | None:
        """The search id of the session's last prompt (``None``: none, or the prompt ran no search)."""
        return self.known(session_id)[1]

    def known(self, session_id: str) -> tuple[bool, str | None]:
        """``(seen, search_id)``: whether this server saw the session's last prompt (within the TTL), its search."""
        with self._lock:
            e = self._map.get(session_id)
            if e is None or time.monotonic() - e.at > self.ttl_s:
                return False, None
            return True, e.search_id


def check_transcript_path(raw: object, roots: tuple[Path, ...]) -> Path:
    """The resolved transcript path when it lies under one of ``roots``, else :class:`TranscriptPathError`.

    Refused without touching the file: a non-string or relative path, any ``..`` component, a
    path whose resolution (symlinks followed) leaves every root (resolved too)."""
    if not isinstance(raw, str) or not raw:
        raise TranscriptPathError("transcript_path: missing or not a string")
    p = Path(raw)
    if not p.is_absolute():
        raise TranscriptPathError("transcript_path: not an absolute path")
    if ".." in p.parts:
        raise TranscriptPathError("transcript_path: '..' components are not accepted")
    real = Path(os.path.realpath(p))
    for root in roots:
        r = Path(os.path.realpath(root))
        if real == r or r in real.parents:
            return real
    raise TranscriptPathError("transcript_path: outside the configured project roots (ASSAY_SERVER_ROOTS)")


def last_assistant_message(path: Path, max_bytes: int) -> str:
    """The text of the last assistant turn of a Claude Code transcript (JSONL), ``""`` when none.

    Reads the last ``max_bytes`` of the file. A turn is every assistant entry after the last
    user entry that carries the user's own text (tool results belong to the turn); its text
    blocks are joined with newlines. Lines that are not JSON objects are skipped. ``OSError``
    when the file is missing or is not a regular file (never blocks on a FIFO)."""
    # O_NONBLOCK + a regular-file check: a FIFO (or device) under the roots would block the
    # worker thread forever on open or read, and with it the SIGTERM drain (found by rtry).
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - max_bytes))
        data = f.read()
    texts: list[str] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(entry, dict):
            continue
        raw_msg = entry.get("message")
        msg: dict[str, Any] = raw_msg if isinstance(raw_msg, dict) else {}
        kind = entry.get("type") or msg.get("role")
        content = msg.get("content")
        if kind == "user" and _user_text(content):
            texts = []
        elif kind == "assistant":
            texts.extend(_texts(content))
    return "\n".join(t for t in texts if t.strip())


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    return []


def _user_text(content: Any) -> bool:
    return isinstance(content, str) or bool(_texts(content))


def handle_hook(
    service: MemoryService, settings: ServerSettings, sessions: SessionMap, event: Mapping[str, Any]
) -> dict[str, Any]:
    """The hook's output JSON for its input ``event`` (see the module docstring).

    Raises :class:`TranscriptPathError` (400) for a transcript outside the roots and
    ``ValueError`` (400) for an input that is not a hook event (no ``hook_event_name``)."""
    name = event.get("hook_event_name")
    if not isinstance(name, str):
        raise ValueError("hook_event_name: missing or not a string")
    session = event.get("session_id") if isinstance(event.get("session_id"), str) else None
    session = session[:200] if session else None
    if name == "UserPromptSubmit":
        return _on_prompt(service, settings, sessions, event, session)
    if name == "Stop":
        return _on_stop(service, settings, sessions, event, session)
    return {}


def _scope(event: Mapping[str, Any]) -> str | None:
    cwd = event.get("cwd")
    return cwd if isinstance(cwd, str) and 0 < len(cwd) <= 200 else None


def _on_prompt(
    service: MemoryService,
    settings: ServerSettings,
    sessions: SessionMap,
    event: Mapping[str, Any],
    session: str | None,
) -> dict[str, Any]:
    prompt = event.get("prompt")
    if session:  # this turn's entry replaces the last one now: a turn without a search grades no older one
        sessions.put(session, None)
    if not isinstance(prompt, str) or not prompt.strip():
        return {}
    try:
        res = service.search(prompt, k=settings.hook_k, scope=_scope(event), session_id=session)
    except ValueError:  # a prompt that cleans to nothing: no memories to show
        return {}
    if session:
        sessions.put(session, res["search_id"])
    arm = service.hook_arm(settings.hook_experiment, session, res["search_id"]) if settings.hook_experiment else None
    block = context_block(
        [(h["memory_id"], h["text"] or "") for h in res["hits"]],
        instruction=arm.instruction if arm is not None else None,
        max_chars=settings.hook_context_max_chars,
    )
    if not block:
        return {}
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": block}}


def _last_search(service: MemoryService, settings: ServerSettings, sessions: SessionMap, session: str) -> str | None:
    seen, sid = sessions.known(session)
    if seen:  # this server answered the session's last prompt: its search, or none
        return sid
    since = time.time() - settings.session_ttl_s
    with service.store.engine.connect() as conn:  # another server may have answered the prompt
        rows = conn.execute(
            select(memory_deliveries.c.search_id, memory_deliveries.c.created_at)
            .where(memory_deliveries.c.session_id == session)
            .order_by(memory_deliveries.c.created_at.desc())
            .limit(1)
        ).all()
    if not rows:
        return None
    at = rows[0].created_at
    ts = (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).timestamp()  # SQLite keeps no offset: UTC
    return str(rows[0].search_id) if ts >= since else None


def _on_stop(
    service: MemoryService,
    settings: ServerSettings,
    sessions: SessionMap,
    event: Mapping[str, Any],
    session: str | None,
) -> dict[str, Any]:
    if (
        event.get("stop_hook_active", False) is not False
    ):  # true, or not a boolean ("true"): the safe side, nothing written
        return {}
    path = check_transcript_path(event.get("transcript_path"), settings.project_roots)
    try:
        message = last_assistant_message(path, settings.transcript_max_bytes)
    except OSError:
        return {}
    if not message:
        return {}
    block = parse_reply_block(message)
    sid = _last_search(service, settings, sessions, session) if session else None
    report: dict[str, Any] = {"malformed": len(block.malformed)}
    response = strip_reply_block(message)
    if sid is not None:
        try:
            if block.grades:
                g = service.grade(sid, block.grades)
                report["malformed"] += len(g["malformed"])
            if response:
                service.respond(sid, response)
        except UnknownSearchError:
            pass
    if block.memories:
        scope = _scope(event)
        new = [{"text": t, "scope": scope} for t in block.memories]
        exp = settings.hook_experiment
        arm = service.hook_arm(exp, session, sid) if exp else None
        if exp and arm is not None:
            service.ab_stamp(exp, arm.unit, new, source_ref=HOOK_SOURCE_REF)
        else:
            service.add([{**m, "source_ref": HOOK_SOURCE_REF} for m in new])
    service.note_reply(report["malformed"])
    return {}
