"""A bare figure takes its period from the question it answers (issue 15, uncited mode; used by
:func:`assay.grounding.sentence_rules.sentence_reader`).

The period rule (``period_mismatch``, :mod:`assay.grounding.acceptable`) judges only the years a
sentence names, so an answer that is only a figure ("50% [T5C1]", "$2.6 million", "-14
million") names none and any period's figure of the same value backs it: to "What is the
operating margin for fiscal 2018?" the 2017 margin passes. A bare figure says nothing of its
own; the question says what it is. Rule, in uncited mode: a sentence that states ONE number and
no word but its unit or scale (:func:`is_bare`) and names no known year is given the ONE known
year the question names (``2018``, ``FY2019``, ``fiscal 2018``: the same year reading as the
sentence's), as if it named it. Conservative as the period rule is: a question that names no
year of the snapshot, or several (a change's endpoints, whose figures may be change columns
between them; a "respectively" list), a sentence with any other word, or a figure whose
candidate has no period change nothing. Not in cited mode: there the marker says which fact
the figure is, and the gate checks the figure against it; TAT-QA's gold figures cite facts
whose period the question names otherwise in 9 of 1,481 accepted cases (a question's "2019"
for a fiscal year ending January 31, 2020; "fiscal years 2019 to 2017"), which the rule would
reject there for wording, not for a wrong figure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from assay.claims import DEFAULT_CITATION_PATTERN, Quantity
from assay.grounding.context import SentenceContext
from assay.grounding.labels import SnapshotVocabulary
from assay.grounding.operands import YEAR as _YEAR
from assay.grounding.operands import match_year

__all__ = ["is_bare", "with_question_years"]

_MARKER = re.compile(DEFAULT_CITATION_PATTERN)
#: What may stand beside a bare figure: its unit, scale, sign and punctuation.
_BARE_REST = re.compile(
    r"(?:[\s\W_]|\b(?:million|billion|thousand|trillion|mn|bn|m|b|k|per\s+cent|percent|pts?|bps|x|times)\b)*",
    re.I,
)


def is_bare(text: str, offset: int, numbers: tuple[Quantity, ...]) -> bool:
    """Whether sentence ``text`` (at ``offset`` of the answer) is one number and nothing but its
    unit, scale, sign, punctuation and citation markers ("$2.6 million [P3N0].", "£(8.2m)")."""
    if len(numbers) != 1:
        return False
    s, e = numbers[0].span[0] - offset, numbers[0].span[1] - offset
    rest = _MARKER.sub(" ", text[:s] + " " + text[e:])
    return _BARE_REST.fullmatch(rest) is not None


def with_question_years(
    ctx: SentenceContext, vocab: SnapshotVocabulary, question: str | None, numbers: tuple[Quantity, ...]
) -> SentenceContext:
    """``ctx`` with the question's known years given to its one number when the sentence is bare
    and names no known year (module doc); else ``ctx`` itself."""
    if not question or not vocab.years or ctx.year_mentions or not is_bare(ctx.text, ctx.offset, numbers):
        return ctx
    mentions = [y for m in _YEAR.finditer(question) if (y := match_year(m)) in vocab.years]
    if len(set(mentions)) != 1:
        return ctx  # no known year, or several: a change's endpoints, a "respectively" list
    start = numbers[0].span[0]
    _, items = ctx.by_number.get(start, (frozenset(), ()))
    by_number = {**ctx.by_number, start: (frozenset(mentions), items)}
    return replace(ctx, by_number=by_number, year_mentions=len(mentions))
