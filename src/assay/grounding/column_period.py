"""A passage number's table column names its period (issue 15, used by
:func:`assay.grounding.sentence_rules.sentence_reader`).

Pages flattened from filings (FinanceBench) carry no facts, so the period rule of
:mod:`assay.grounding.acceptable` (years of the snapshot's facts) never judges their numbers: "the
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

import re

from assay.grounding.candidates import Candidate
from assay.grounding.lead_period import RELATIVE
from assay.grounding.lexicon import RESPECTIVELY
from assay.grounding.operands import YEAR, match_year

__all__ = ["named_years", "column_veto", "derived_cell_veto"]


def named_years(text: str) -> frozenset[int]:
    """Every year ``text`` names (:data:`assay.grounding.operands.YEAR`; ``FY23`` read as 2023), and
    in a sentence that says "respectively" the years between two it joins by "to", "through" or a
    dash ("for fiscal years 2019 to 2017 respectively was $53,294, $61,431 and $279,745 thousand"
    names 2018; gate-18, a TAT-QA gold sentence the "|" tables' column years failed)."""
    found = [(m.start(), m.end(), match_year(m)) for m in YEAR.finditer(text)]
    years = {y for _, _, y in found}
    if len(found) > 1 and RESPECTIVELY.search(text):
        for (_, e1, y1), (s2, _, y2) in zip(found, found[1:], strict=False):
            if _RANGE.fullmatch(text, e1, s2) and abs(y1 - y2) <= 10:
                years |= set(range(min(y1, y2), max(y1, y2) + 1))
    return frozenset(years)


#: A ratio of two figures (not a relative change): of one row's two years, it is no figure of one year
#: ("The current ratio in 2019 was 0.78" on "Retained profits | 79,918 | 102,680": 2019's over 2018's).
_RATIOS = ("a/b", "|a|/|b|")
_RANGE = re.compile(r"\s*(?:to|through|thru|-|–)\s*")


def column_veto(c: Candidate, years: frozenset[int]) -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the sentence names ``years`` and passage number ``c``
    sits in a column of another year (module doc); else None."""
    if c.column_year is None or c.op is not None or not years or c.column_year in years:
        return None
    named = ", ".join(str(y) for y in sorted(years))
    return "period_mismatch", f"the sentence names {named}, but {c.ref} sits in the {c.column_year} column"


def derived_cell_veto(c: Candidate, years: frozenset[int], text: str = "") -> tuple[str, str] | None:
    """``("period_mismatch", reason)`` when the sentence names ``years`` and derivation ``c`` of passage
    cells does not fit them (gate-18; with column years a row's change is ordered, so the check its
    direct cells get, :func:`column_veto`, is due to it too): every operand in a column of a year and
    a named year none of theirs ("The change from 2017 to 2019 was …" on the 2019 and 2018 cells), or
    a ratio of one row's cells of two years said to be of one year (gate-20: "The current ratio in 2019 was
    0.78" on "Retained profits | 79,918 | 102,680", 2019's over 2018's), unless ``text`` (the sentence) names
    the other as the year before or after ("1.15 times the prior year's revenue"), or
    a cell of a column year moved by an undated cell of its row (a change column): a level moved by
    its change is another period's level ("Goodwill impairment | 9,174 | 8,418 | 756" under "2018 |
    2017 | Change": 9,174 − 756 is 2017's 8,418, no figure of 2018; the passage form of
    :func:`~assay.grounding.direction.shifted_level`). Else None."""
    if c.op is None or not years or any(o.origin != "passage" for o in c.operands):
        return None
    dated = {o.column_year for o in c.operands} - {None}
    if all(o.column_year is not None for o in c.operands):
        if years - dated:
            named = ", ".join(str(y) for y in sorted(years - dated))
            return "period_mismatch", f"the sentence names {named}, which is none of {c.ref}'s columns"
        if (
            c.op in _RATIOS
            and len(dated) == 2
            and len(years) == 1
            and c.operands[0].ref == c.operands[1].ref
            and RELATIVE.search(text) is None  # ("1.15 times the prior year's": the other year, unnamed)
        ):
            of = " and ".join(str(y) for y in sorted(y for y in dated if y is not None))
            return "period_mismatch", f"{c.ref} divides one row's figures of {of}: no one year's ratio"
        return None
    a, b = c.operands
    if c.op in ("a+b", "a-b") and len(dated) == 1 and a.ref == b.ref:
        year = next(iter(dated))
        return "period_mismatch", f"{c.ref} moves {year}'s cell by an undated cell of its row: another period's level"
    return None
