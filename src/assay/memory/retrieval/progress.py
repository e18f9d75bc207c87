"""Progress of the memory's long loops (add, evaluate, train, calibrate, backfill, reembed) as the
``assay memory`` commands show it.

The CLI passes its bar factory in (``assay.cli.common.progress_bar``: a rich bar on a terminal, a
plain stderr line every 10 s off one, nothing when quiet), so retrieval never imports the CLI and
there is one progress implementation. ``quiet`` (the commands' ``--quiet``) turns it off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["memory_progress"]

#: ``update(done, total)``: ``total`` None while unknown.
Update = Callable[[int, "int | None"], None]


@contextmanager
def memory_progress(
    label: str, *, quiet: bool, console: Any, bar: Callable[..., Any], total: int | None = None
) -> Iterator[Update]:
    """Yield ``update(done, total)`` for a loop of ``total`` steps (``None``: unknown yet).

    ``bar(label, quiet=...)``: the progress factory (:func:`assay.cli.common.progress_bar`);
    ``console`` is kept for callers that pass it (the factory writes to stderr itself)."""
    del console
    with bar(label, quiet=quiet) as live:
        task = live.add_task(label, total=total)

        def update(done: int, total: int | None = None) -> None:
            live.update(task, completed=done, total=total)

        yield update
