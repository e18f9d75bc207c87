"""Merging assay's hooks into a Claude Code ``settings.json``: idempotent, other hooks kept, no token.

:func:`merge_hooks` is pure (settings dict in, settings dict out); :func:`install` reads,
merges and writes the file atomically. assay's entries are recognised by their command
(``assay-hook``) or their URL (ending in ``/v1/hooks/claude-code``), so installing again
replaces them in place and never adds a second copy; every other hook, matcher group and
setting is kept as it was. The token is never written (``.claude/settings.json`` is often
committed): the ``http`` hook's ``Authorization`` header names ``$ASSAY_SERVER_TOKEN``, which
Claude Code fills from the environment because it is listed in ``allowedEnvVars``; the
``command`` client reads the token file itself. A ``settings.json`` that is a symlink (dotfiles
kept in a repository) is written through: its final target is replaced atomically, the link
(and any link between) stays as it was.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from assay.atomic import atomic_write_text

__all__ = ["merge_hooks", "install", "hook_entry", "check_url", "EVENTS", "HOOK_ROUTE", "DEFAULT_URL"]

#: The events assay hooks into: the prompt (memories in) and the end of the reply (labels back).
EVENTS = ("UserPromptSubmit", "Stop")
HOOK_ROUTE = "/v1/hooks/claude-code"
COMMAND = "assay-hook"
#: The server address the hooks use unless told otherwise (``assay serve``'s default bind).
DEFAULT_URL = "http://127.0.0.1:8377"


def hook_entry(kind: str, url: str) -> dict[str, Any]:
    """One hook entry: ``kind`` ``"command"`` (the stdlib client; Claude Code's timeout 5 s, the
    client gives up after its own 0.8 s budget) or ``"http"`` (posted by Claude Code itself, 2 s)."""
    if kind == "command":  # a --url other than the default travels in the command (the client reads ASSAY_SERVER_URL)
        prefix = f"ASSAY_SERVER_URL={url} " if url and url.rstrip("/") != DEFAULT_URL else ""
        return {"type": "command", "command": prefix + COMMAND, "timeout": 5}
    if kind == "http":
        return {
            "type": "http",
            "url": url.rstrip("/") + HOOK_ROUTE,
            "headers": {"Authorization": "Bearer $ASSAY_SERVER_TOKEN"},
            "allowedEnvVars": ["ASSAY_SERVER_TOKEN"],
            "timeout": 2,
        }
    raise ValueError(f"hook kind must be command or http, got {kind!r}")


def check_url(url: str) -> str:
    """``url`` when it is an ``http``/``https`` address with a host and no whitespace, else
    ``ValueError`` naming the problem (``assay hook install --url``: exit 2)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if any(c.isspace() for c in url) or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--url {url!r}: expected http(s)://HOST[:PORT] without spaces")
    return url


def _is_ours(hook: Any) -> bool:
    """Whether ``hook`` is assay's: a command whose executable, after any ``NAME=value``
    assignments (and an ``env`` word), is named ``assay-hook`` whatever its folder
    (``/x/.venv/bin/assay-hook``, ``ASSAY_SERVER_URL=http://… assay-hook``), or a URL ending
    in :data:`HOOK_ROUTE`."""
    if not isinstance(hook, dict):
        return False
    cmd = hook.get("command")
    url = hook.get("url")
    return (isinstance(cmd, str) and _executable(cmd) == COMMAND) or (
        isinstance(url, str) and url.rstrip("/").endswith(HOOK_ROUTE)
    )


def _executable(command: str) -> str | None:
    """The basename of the program ``command`` runs, skipping leading ``NAME=value`` words and ``env``."""
    for word in command.split():
        name, eq, _ = word.partition("=")
        if (eq and name.isidentifier()) or word == "env":
            continue
        return word.strip("'\"").replace("\\", "/").rsplit("/", 1)[-1]
    return None


def merge_hooks(settings: dict[str, Any], kind: str, url: str) -> dict[str, Any]:
    """A copy of ``settings`` with assay's hook for each of :data:`EVENTS`; ``ValueError`` when
    ``hooks`` (or an event's list) is not the shape Claude Code reads."""
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("hooks: expected an object of event → list of matcher groups")
    entry = hook_entry(kind, url)
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ValueError(f"hooks.{event}: expected a list of matcher groups")
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                rest = [h for h in g["hooks"] if not _is_ours(h)]
                if rest or not g["hooks"]:
                    kept.append({**g, "hooks": rest})
            else:
                kept.append(g)
        kept.append({"hooks": [entry]})
        hooks[event] = kept
    return out


def install(project: Path, kind: str, url: str) -> tuple[Path, bool]:
    """Merge assay's hooks into ``project/.claude/settings.json`` (created when missing);
    ``(path, changed)``. ``ValueError`` naming the file when it is not a JSON object, or when
    it is a link into a folder that does not exist.

    A symlinked file is written through the link: the file it finally points to is replaced
    atomically (a dangling link's target is created), the link itself is kept — replacing
    the link with a regular file would cut a dotfiles repository's copy off."""
    path = project / ".claude" / "settings.json"
    current: dict[str, Any] = {}
    if path.exists():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{e.lineno}: <json>: {e.msg}") from None
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: not a JSON object")
        current = loaded
    try:
        merged = merge_hooks(current, kind, url)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    if merged == current and path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    target = Path(os.path.realpath(path))  # the link's final target; ``path`` itself when no link
    if not target.parent.is_dir():
        raise ValueError(f"{path}: links to {target}, whose folder does not exist")
    atomic_write_text(target, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
    return path, True
