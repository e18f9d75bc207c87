"""Sentence claims of an answer: sentence splitting, and each sentence's citations and quantities.

``extract_claims(text)`` splits an answer into sentence-level :class:`Claim` objects, each with
its citation ids and the :class:`~assay.claims.quantities.Quantity` objects it states.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import pairwise

from assay.claims.citations import DEFAULT_CITATION_PATTERN, find_citations, mask, mask_default
from assay.claims.patterns import ABBREVIATIONS, CLOSERS, OPENS_SENTENCE
from assay.claims.quantities import Quantity, extract_masked
from assay.claims.unchecked import Unchecked, unchecked_masked
from assay.claims.wording import WordIndex

__all__ = ["Claim", "extract_claims", "split_sentences"]


@dataclass(frozen=True)
class Claim:
    """One sentence of an answer: its text, span, the quantities it states and the ids it cites.

    ``unchecked`` (issue 15): the number-like forms of the sentence the reader saw but did not
    interpret (:class:`~assay.claims.unchecked.Unchecked`); a sentence whose only numbers are
    unchecked has ``numbers == ()`` and a non-empty ``unchecked``."""

    text: str
    span: tuple[int, int]
    numbers: tuple[Quantity, ...] = ()
    citations: tuple[str, ...] = field(default_factory=tuple)
    unchecked: tuple[Unchecked, ...] = ()


def extract_claims(text: str, *, citation_pattern: str = DEFAULT_CITATION_PATTERN) -> list[Claim]:
    """Split ``text`` into sentence claims with their quantities and citation ids.

    A citation marker right after a sentence's final period (``… $5 billion. [F1]``) belongs to
    that sentence. Spans index into ``text``. Numbers in words and digit fractions are read
    (``extract_quantities(..., words=True)``), and each claim lists its unchecked spans.
    """
    cite_re = re.compile(citation_pattern)
    default = citation_pattern == DEFAULT_CITATION_PATTERN
    if default:  # one scan masks the markers and finds them (not one find_citations per sentence)
        masked, markers = mask_default(text)
    else:
        masked, markers = mask(text, cite_re, keep_fractions=True), []
    m_starts = [m[0] for m in markers]
    index = WordIndex(masked)
    quantities = extract_masked(masked, words=True, index=index)
    starts = [q.span[0] for q in quantities]
    unchecked = unchecked_masked(masked, [q.span for q in quantities], index.tokens)
    u_starts = [u.span[0] for u in unchecked]
    claims: list[Claim] = []
    for start, end in split_sentences(text, masked):
        sentence = text[start:end]
        if not default:
            cites = tuple(dict.fromkeys(find_citations(sentence, cite_re)))
        elif markers:  # the sentence's markers: those that start and end inside it
            inside = markers[bisect_left(m_starts, start) : bisect_left(m_starts, end)]
            ids = [i for s, e, marker_ids in inside if e <= end for i in marker_ids]
            cites = tuple(dict.fromkeys(ids)) if len(ids) > 1 else tuple(ids)
        else:
            cites = ()
        nums = tuple(quantities[bisect_left(starts, start) : bisect_left(starts, end)])
        unread = tuple(unchecked[bisect_left(u_starts, start) : bisect_left(u_starts, end)]) if unchecked else ()
        claims.append(_claim(sentence, (start, end), nums, cites, unread))
    return claims


def split_sentences(text: str, masked: str | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``[start, end)`` of ``text`` (whitespace trimmed, empty ones dropped).

    Splits after ``.``/``!``/``?``/``…`` followed by whitespace (or the text's end), after
    ``.``/``!``/``?`` right before a capitalised word ("moved.Total"), after ``。``/``！``/``？``
    (no space follows them in CJK text), each with the closing quotes and brackets that follow
    it ("moved." Total, "(see note 3.) Revenue"), and at line breaks; never inside a decimal or
    after a common abbreviation (``Inc.``, ``U.S.``). An ellipsis (``…``, ``...``) followed by
    whitespace ends a sentence only before a capital letter, an opening quote or bracket
    (``patterns.OPENS_SENTENCE``): "revenue was … $383.3 billion" is one sentence. ``masked`` is
    ``text`` with citation markers blanked; a marker that opens a sentence is moved to the
    previous one. Why the cuts matter (issue 15): a change word of one sentence licenses a
    difference stated as a level in the next only when the two are read as one ("Sales moved…
    Total net sales were $11,043 million [F1, F2]." was a false accept).
    """
    masked = masked if masked is not None else mask(text, re.compile(DEFAULT_CITATION_PATTERN))
    cuts = [0]
    for m in _SENT_END.finditer(masked):
        st = m.start()
        mark = masked[st]
        if (mark == "…" or masked[max(0, st - 2) : st + 1] == "...") and not _OPENS.match(masked, m.end()):
            continue  # an ellipsis the sentence goes on after ("revenue was … $383.3 billion")
        if mark != ".":
            cuts.append(m.end())  # "!", "?", "…", "。": no abbreviation (its pattern ends in a period)
            continue
        lo = max(0, st - 24)
        run = masked[max(lo, masked.rfind(" ", lo, st) + 1) : st]
        if run.isascii() and run.isalpha():
            # the common word before a period: the whole letter run _ABBREV_BEFORE would find
            if run.lower() in _ABBREVIATIONS:
                continue
            if "A" <= run[-1] <= "Z" and _INITIAL.search(masked, max(0, st - 40), st + 1):
                continue
            cuts.append(m.end())
            continue
        word = _ABBREV_BEFORE.search(masked, lo, st + 1)
        if word and word.group(1).lower().rstrip(".") in _ABBREVIATIONS:
            continue
        if (
            word
            and "A" <= masked[m.start() - 1] <= "Z"
            and _INITIAL.search(masked, max(0, m.start() - 40), m.start() + 1)
        ):
            continue  # "Richard S. Hill": a capitalised name's initial (its "[A-Z]\.$" pre-checked)
        cuts.append(m.end())
    if "\n" in masked:  # (a C-level pre-check of the scan below: most answers are one paragraph)
        cuts.extend(m.end() for m in _NEWLINES.finditer(masked))
    cuts = sorted(set(cuts)) + [len(text)]
    spans: list[tuple[int, int]] = []
    for a, b in pairwise(cuts):
        seg = text[a:b]
        rest = seg.lstrip()
        lead = _LEAD_MARKERS.match(seg) if rest[:1] == "[" else None  # (its whitespace, then "[")
        if lead and spans and lead.end() < len(seg.rstrip()) + 1:
            pa, _ = spans[-1]
            spans[-1] = (pa, a + len(seg[: lead.end()].rstrip()))  # the marker, not the space after it
            a += lead.end()
            seg = text[a:b]
            rest = seg.lstrip()
        body = rest.rstrip()  # the span less its whitespace (strip's is str.isspace(), as before)
        if body:
            s = a + len(seg) - len(rest)
            spans.append((s, s + len(body)))
    return spans


# --- helpers -------------------------------------------------------------------------------

_new = object.__new__


def _claim(
    text: str,
    span: tuple[int, int],
    numbers: tuple[Quantity, ...],
    citations: tuple[str, ...],
    unchecked: tuple[Unchecked, ...],
) -> Claim:
    """``Claim(text, span, numbers, citations, unchecked)`` without the frozen dataclass's
    ``object.__setattr__`` per field (as :func:`~assay.claims.quantity.digits_quantity`): the
    same instance dict, so the same fields, equality, hash and ``replace``."""
    c = _new(Claim)
    c.__dict__.update(text=text, span=span, numbers=numbers, citations=citations, unchecked=unchecked)
    return c


_ABBREVIATIONS = ABBREVIATIONS
_ABBREV_BEFORE = re.compile(r"([A-Za-z.]+)\.$")
_INITIAL = re.compile(r"\b[A-Z][a-z]+ (?:[A-Z]\. )*[A-Z]\.$")
_NEWLINES = re.compile(r"\n+")
_LEAD_MARKERS = re.compile(r"\s*(?:" + DEFAULT_CITATION_PATTERN + r"\s*)+")
#: A sentence's end (see :func:`split_sentences`; the forms of ``[.!?](?=\s)`` and
#: :data:`~assay.claims.patterns.SENTENCE_END_EXTRA` in one scan, abbreviations and ellipses then
#: checked in Python — two patterns, since the clause scans cannot run those checks): ``.!?…`` and
#: its closers before whitespace or the end; ``.!?…`` after a lower-case
#: letter, digit, ``%``, ``)`` or a dot right before a capitalised word; ``。！？`` and their
#: closers anywhere. ``m.start()`` is the punctuation mark.
_SENT_END = re.compile(  # (a literal mark first in each branch: see SENTENCE_END_EXTRA)
    "|".join(
        [
            *(re.escape(c) + rf"[{CLOSERS}]*(?=\s|$)" for c in ".!?…"),
            *(re.escape(c) + r"(?<=[a-z0-9%).…].)(?=[A-Z][a-z])" for c in ".!?…"),
            *(c + f"[{CLOSERS}]*" for c in "。！？"),
        ]
    )
)
#: After an ellipsis that ends a sentence: a capital letter, an opening quote or bracket, the end.
_OPENS = re.compile(OPENS_SENTENCE)
