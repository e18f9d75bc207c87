"""Atomic file writes: a reader sees the old file or the new one, never half of either.

Each write goes to a temporary file in the target's own directory (so the final rename stays on
one filesystem), is flushed and fsynced, then ``os.replace``-d onto the target. If anything fails
before the rename -- serialisation, a full disk, a KeyboardInterrupt -- the temporary file is
removed, the old target is left untouched, and the exception propagates.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["atomic_write_json", "atomic_write_text", "check_writable_dir", "dumps_json"]


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the path.

    The parent directory must exist. On any exception (including KeyboardInterrupt) the
    temporary file is removed and ``path`` keeps its previous content.
    """
    target = Path(path)
    tmp = tempfile.NamedTemporaryFile(
        mode="w",
        encoding="utf-8",
        newline="",
        dir=target.parent,
        prefix=f".{target.name}.",
        suffix=".tmp",
        delete=False,
    )
    try:
        with tmp:
            os.chmod(tmp.name, _mode_for(target))
            tmp.write(text)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp.name, target)
    except BaseException:
        _remove_quietly(tmp.name)
        raise
    return target


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> Path:
    """Serialise ``obj`` with :func:`dumps_json` and write it to ``path`` atomically.

    Serialisation happens before any file is touched, so a ``ValueError`` (NaN/inf) or
    ``TypeError`` (an unserialisable object) leaves no temporary file and no change to ``path``.
    """
    return atomic_write_text(path, dumps_json(obj))


def dumps_json(obj: Any) -> str:
    """The JSON text assay writes: 2-space indent, UTF-8 as is, no NaN/inf, trailing newline."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def check_writable_dir(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` (with parents) if missing and check a file can be written in it.

    Returns the directory as an absolute path. Raises ``OSError`` naming the directory and the
    reason when it cannot be created, is not a directory, or is not writable.
    """
    directory = Path(path).expanduser().absolute()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot create output directory {directory}: {exc.strerror or exc}") from exc
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".assay-write-check.", suffix=".tmp"):
            pass
    except OSError as exc:
        raise OSError(f"output directory {directory} is not writable: {exc.strerror or exc}") from exc
    return directory


def _mode_for(target: Path) -> int:
    """Keep an existing file's permissions; a new file gets the usual ``0o666 & ~umask``
    (a temp file is created ``0o600``, which would make every report private to its writer)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    try:  # read without changing it (Linux >= 4.7); os.umask() below briefly sets it process-wide
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove_quietly(name: str) -> None:
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
