"""What every case importer returns and how its cases are written: :class:`ImportedCases`,
:func:`write_cases_jsonl`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from assay.atomic import atomic_write_text
from assay.cases import Case

__all__ = ["ImportedCases", "OnProgress", "write_cases_jsonl"]

#: ``on_progress(done, total)`` of the importers: records (or files) read so far and in all, for
#: progress bars; ``total`` may grow as more files are opened.
OnProgress = Callable[[int, int], None]


class ImportedCases(list[Case]):
    """The cases an importer made, plus ``skipped``: why source records were left out (counts)."""

    def __init__(self, cases: Iterable[Case] = (), skipped: dict[str, int] | None = None):
        super().__init__(cases)
        self.skipped: dict[str, int] = dict(skipped or {})


def write_cases_jsonl(cases: Iterable[Case], path: str | os.PathLike[str]) -> Path:
    """Write ``cases`` to ``path`` as JSONL, one ``Case`` a line (defaults omitted), atomically.

    The whole text is built before the file is touched; the write goes to a temporary file in
    the same directory and is renamed onto ``path`` (the parent directory must exist). Returns
    the path.
    """
    text = "".join(case.model_dump_json(exclude_defaults=True) + "\n" for case in cases)
    return atomic_write_text(path, text)
