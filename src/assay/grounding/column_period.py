"""A passage number's table column names its period (issue 15, used by
:func:`assay.grounding.sentence_rules.sentence_reader`).

Pages flattened from filings (FinanceBench) carry no facts, so the period rule of
:mod:`assay.grounding.context` (years of the snapshot's facts) never judges their numbers: "the
total inventories at the end of fiscal year 2019 was $5,410 million" passed on 5,410, Best Buy's
fixtures and equipment in the February 3, 2018 column. :func:`assay.grounding.passages.parse_passages`
gives a number its column's year when the page's header names one year per number of its row
(``Candidate.column_year``). Rule: a sentence that names years (:data:`~assay.grounding.operands.YEAR`: ``2019``,
``FY2019``, ``fiscal 2019``, ``February 2, 2019``), none of them the column's year, is not backed
by that number directly (``period_mismatch``). Conservative: a number with no column year, a
sentence naming no year and derivations are not judged; every year the sentence names counts
(a sentence comparing two years may take either column).
"""

from __future__ import annotations

from assay.grounding.candidates import Candidate
from assay.grounding.operands import YEAR, match_year

__all__ = ["named_years", "column_veto"]


def named_years(text: str) -> frozenset[int]:
    """Every year ``text`` names (:data:`assay.grounding.operands.YEAR`; ``FY23`` read as 2023)."""
    return frozenset(match_year(m) for m in YEAR.finditer(text))


def column_veto(c: Candidate, years: frozenset[int]) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the sentence names ``years`` and passage number ``c``
    sits in a column of another year (module doc); else None."""
    if c.column_year is None or c.op is not None or not years or c.column_year in years:
        return None
    named = ", ".join(str(y) for y in sorted(years))
    return "period_mismatch", f"the sentence names {named}, but {c.ref} sits in the {c.column_year} column"
