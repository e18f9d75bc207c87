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

from assay.importers.base import ImportedCases, write_cases_jsonl
from assay.importers.financebench import import_financebench
from assay.importers.tatqa import import_tatqa

__all__ = ["ImportedCases", "write_cases_jsonl", "import_tatqa", "import_financebench"]
