"""A report set: the four files of one run (``NAME.local.json``, ``NAME.aggregate.json``,
``NAME.md``, ``NAME.html``), written under one lock and checked by the run id they share.

Each file is written atomically (:func:`assay.atomic.atomic_write_text`), which alone keeps a file
whole but not the set: two runs into one ``--out/--name`` could interleave their files (issue 16:
twice in 12 tries the html held other CIs than the aggregate). So a run writes its set under an
exclusive lock on ``OUT/.NAME.lock`` (:mod:`filelock`: ``flock`` on POSIX, released by the kernel
when a process dies, so a crashed writer never leaves the set locked), and every file carries the
run's id: ``"run_id"`` in both JSON files, ``<!-- run_id: … -->`` in the md, ``<meta
name="run_id" content="…">`` in the html. :func:`check_report_set` reads the four ids back.

The lock file stays (hidden) after the run: removing it while another writer waits on it would let
a third take a new lock beside the second's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from filelock import FileLock, Timeout

__all__ = [
    "ReportSetBusy",
    "SetCheck",
    "check_report_set",
    "lock_path",
    "read_run_id",
    "report_paths",
    "report_set_busy",
    "report_set_lock",
]

#: Seconds :func:`check_report_set` waits for a writer to finish its set before reading anyway.
CHECK_WAIT_S = 30.0

#: Longest file name (bytes) on the filesystems assay targets (Linux ext4/xfs/tmpfs, macOS APFS).
NAME_MAX = 255
#: Bytes :func:`assay.atomic.atomic_write_text` adds around a name for its temporary file
#: (``"." + name + "." + 8 random characters + ".tmp"``, minus the leading dot counted above).
_TEMP_SUFFIX_BYTES = len(".xxxxxxxx.tmp")


_MD_RUN_ID = re.compile(r"<!-- run_id: (\S+) -->")
_HTML_RUN_ID = re.compile(r'<meta name="run_id" content="([^"]*)">')


class ReportSetBusy(OSError):
    """Another run holds the lock of the report set (raised only when told not to wait)."""


def lock_path(out_dir: str | os.PathLike[str], name: str) -> Path:
    """The lock file of report set ``out_dir/name``: ``out_dir/.name.lock``."""
    return Path(out_dir).expanduser().absolute() / f".{name}.lock"


@contextmanager
def report_set_lock(
    out_dir: str | os.PathLike[str],
    name: str,
    *,
    wait: bool = True,
    on_wait: Callable[[Path], None] | None = None,
    timeout: float = -1,
) -> Iterator[Path]:
    """Hold the exclusive lock of report set ``out_dir/name`` (``out_dir`` must exist).

    When another process holds it: ``wait=False`` raises :class:`ReportSetBusy` at once;
    otherwise ``on_wait(lock file)`` is called once and the lock is awaited (``timeout`` seconds,
    ``-1`` = forever; past it ``filelock.Timeout``, a ``TimeoutError``).
    Yields the lock file's path.
    """
    path = lock_path(out_dir, name)
    lock = FileLock(path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        if not wait:
            raise ReportSetBusy(
                f"{path.parent / name}: another run is writing this report set (--no-wait given; nothing written)"
            ) from None
        if on_wait is not None:
            on_wait(path)
        lock.acquire(timeout=timeout)
    try:
        yield path
    finally:
        lock.release()


def report_paths(out_dir: str | os.PathLike[str], name: str) -> list[Path]:
    """The absolute paths :func:`write_reports` writes, in its order; ``name`` must be a plain file stem."""
    if not name or name in {".", ".."} or os.sep in name or (os.altsep and os.altsep in name) or "\0" in name:
        raise ValueError(f"report name must be a plain file name without path separators, got {name!r}")
    longest = len(os.fsencode(f".{name}.aggregate.json")) + _TEMP_SUFFIX_BYTES
    if longest > NAME_MAX:
        raise ValueError(
            f"report name is too long ({len(os.fsencode(name))} bytes; at most "
            f"{len(os.fsencode(name)) - (longest - NAME_MAX)} so its files fit the {NAME_MAX}-byte file name limit)"
        )
    base = Path(out_dir).expanduser().absolute()
    return [base / f"{name}{suffix}" for suffix in (".local.json", ".aggregate.json", ".md", ".html")]


def report_set_busy(out_dir: str | os.PathLike[str], name: str) -> bool:
    """Whether another process holds the lock of ``out_dir/name`` now (``False`` when the folder
    does not exist yet: nothing can hold it)."""
    if not Path(out_dir).expanduser().is_dir():
        return False
    try:
        with report_set_lock(out_dir, name, wait=False):
            return False
    except ReportSetBusy:
        return True


@dataclass(frozen=True)
class SetCheck:
    """What :func:`check_report_set` found: ``status`` ``consistent`` (the four files share one run
    id), ``mixed`` (they hold different ids) or ``broken`` (a file is missing, unreadable or has no
    run id); ``run_ids`` per file (``None`` where unread) and one line per ``problem``."""

    status: Literal["consistent", "mixed", "broken"]
    run_ids: dict[Path, str | None]
    problems: tuple[str, ...]


def check_report_set(out_dir: str | os.PathLike[str], name: str, *, wait_s: float = CHECK_WAIT_S) -> SetCheck:
    """Read the run id of each of the four files of ``out_dir/name``; a writer holding the set's
    lock is waited for (up to ``wait_s`` seconds, then the files are read anyway), so a set
    being written is not reported mixed; a set without a lock file is read as it is (the check
    creates nothing). Raises ``ValueError`` for a bad ``name``."""
    paths = report_paths(out_dir, name)
    if lock_path(out_dir, name).exists():  # no lock file: no assay writer has held it, and a check creates none
        try:
            with report_set_lock(out_dir, name, timeout=wait_s):
                return _check(paths)
        except (Timeout, PermissionError):  # a writer past wait_s, or a read-only folder: read as is
            pass
    return _check(paths)


def read_run_id(path: Path) -> str | None:
    """The run id a report file carries (by its suffix: JSON key, md comment, html meta), ``None``
    when it has none. Raises ``OSError`` / ``ValueError`` (bad JSON, not UTF-8) when unreadable."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        value = data.get("run_id") if isinstance(data, dict) else None
        return str(value) if value else None
    match = (_HTML_RUN_ID if path.suffix == ".html" else _MD_RUN_ID).search(text)
    return match.group(1) if match else None


def _check(paths: list[Path]) -> SetCheck:
    run_ids: dict[Path, str | None] = {}
    problems: list[str] = []
    for p in paths:
        run_ids[p] = None
        try:
            run_ids[p] = read_run_id(p)
        except FileNotFoundError:
            problems.append(f"{p}: missing")
            continue
        except (OSError, ValueError) as e:
            problems.append(f"{p}: unreadable: {type(e).__name__}: {e}")
            continue
        if run_ids[p] is None:
            problems.append(f"{p}: no run_id (written before report sets carried one?)")
    if problems:
        return SetCheck("broken", run_ids, tuple(problems))
    ids = set(run_ids.values())
    if len(ids) > 1:
        return SetCheck("mixed", run_ids, tuple(f"{p}: run_id {rid}" for p, rid in run_ids.items()))
    return SetCheck("consistent", run_ids, ())
