"""Importers: public benchmarks → assay cases.

Each importer reads a benchmark's own files and returns :class:`~assay.cases.Case` objects; it
never prints and never writes. :func:`write_cases_jsonl` writes them as a case file (one JSON
object a line, atomically). A malformed source file raises ``ValueError`` naming the file, the
record (index or line) and the field.

- :func:`import_tatqa` — TAT-QA (table + paragraphs → facts; gold answers with citations).
- :func:`import_financebench` — FinanceBench (human-graded model answers + evidence passages).

Importers return an :class:`ImportedCases`: a plain ``list`` of cases that also carries
``skipped`` (reason → count) for source records that were left out on purpose.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from assay.atomic import atomic_write_text
from assay.cases import Case

__all__ = ["ImportedCases", "write_cases_jsonl", "import_tatqa", "import_financebench"]


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


from assay.importers.financebench import import_financebench  # noqa: E402
from assay.importers.tatqa import import_tatqa  # noqa: E402
