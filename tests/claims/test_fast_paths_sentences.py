"""Sentence splitting's and date masking's pre-checks change nothing (issue 15, speed).

- :func:`~assay.claims.sentences.split_sentences` skips the name-initial search unless the
  character before the dot is an upper-case ASCII letter (its pattern ends in ``[A-Z]\\.$``),
  and the line-break scan when the text has no line break;
- :func:`~assay.claims.citations.mask` scans for numeric dates only when the text holds what
  every date holds (``d-d``, ``d/d`` or ``d.dd`` and a second separator), not for any decimal.
"""

from __future__ import annotations

import re
from itertools import pairwise

from hypothesis import example, given, settings
from hypothesis import strategies as st

from assay.claims import citations as ci
from assay.claims import sentences as se
from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask
from assay.claims.patterns import NUMERIC_DATE

_CITE = re.compile(DEFAULT_CITATION_PATTERN)


def _split_reference(text: str, masked: str) -> list[tuple[int, int]]:
    """``split_sentences`` before the pre-checks (the same code, every search run)."""
    cuts = [0]
    for m in se._SENT_END.finditer(masked):
        st = m.start()  # an ellipsis the sentence goes on after is no end (gate-13), before any pre-check
        if (masked[st] == "…" or masked[max(0, st - 2) : st + 1] == "...") and not se._OPENS.match(masked, m.end()):
            continue
        word = se._ABBREV_BEFORE.search(masked, max(0, m.start() - 24), m.start() + 1)
        if word and word.group(1).lower().rstrip(".") in se._ABBREVIATIONS:
            continue
        if word and se._INITIAL.search(masked, max(0, m.start() - 40), m.start() + 1):
            continue
        cuts.append(m.end())
    cuts.extend(m.end() for m in se._NEWLINES.finditer(masked))
    cuts = sorted(set(cuts)) + [len(text)]
    spans: list[tuple[int, int]] = []
    for a, b in pairwise(cuts):
        seg = text[a:b]
        lead = se._LEAD_MARKERS.match(seg) if "[" in seg[:8] or seg[:1].isspace() else None
        if lead and spans and lead.end() < len(seg.rstrip()) + 1:
            pa, _ = spans[-1]
            spans[-1] = (pa, a + len(seg[: lead.end()].rstrip()))
            a += lead.end()
        s, e = a, b
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            spans.append((s, e))
    return spans


_SENTENCE_PARTS = [
    "Revenue was $5.2 billion.", "Richard S. Hill", "J. R. R.", "Mr.", "Inc.", "U.S.", "VMware, Inc.", "S.", "s.",
    "Q.", "incl.", "FY2023.", "[F1]", "[F1, F2].", " ", "  ", "\n", "\n\n", ".", "!", "?", "。", "3.5", "A.", "Ab.",
    "x.", "Z.", "É.", "ab", "1/3", "2023-03-31", "3.12.2023", "approx.", "e.g.", "etc..", "Sept.", "(Co.", "a-b.",
    "performance.", "abcdefghijklmnopqrstuvwxyzab.", "APPROX.", "Él.", "ſt.", "\tLtd.", "x!", "1.",
]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_SENTENCE_PARTS), max_size=14), st.sampled_from([" ", "", "\n"]))
@example(["Revenue was $5.2 billion.", "etc..", ".", "[F1]", "."], "")  # the reference lacked the ellipsis rule
def test_property_split_sentences_is_the_unchecked_split(parts, sep):
    text = sep.join(parts)
    masked = mask(text, _CITE, keep_fractions=True)
    assert se.split_sentences(text, masked) == _split_reference(text, masked)
    plain = mask(text, _CITE)
    assert se.split_sentences(text, plain) == _split_reference(text, plain)


def test_split_sentences_examples():
    text = "Richard S. Hill joined in 2019. Revenue was $5.2 billion [F1]. It rose.\nNet income fell."
    assert [text[a:b] for a, b in se.split_sentences(text)] == [
        "Richard S. Hill joined in 2019.",
        "Revenue was $5.2 billion [F1].",
        "It rose.",
        "Net income fell.",
    ]


_DATE_PARTS = ["1", "12", "2023", "3.6", "4,753.6", "/", "-", ".", ",", " ", "03", "31", "x", "1/3", "$", "%"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_DATE_PARTS), max_size=10))
def test_property_date_hint_is_necessary(parts):
    text = "".join(parts)
    if NUMERIC_DATE.search(text):
        assert ci._DATE_HINT.search(text), text
    assert ci._may_hold_date(text) == bool(ci._DATE_HINT.search(text)), text


def test_a_decimal_alone_is_no_date_hint_and_dates_still_are():
    assert ci._DATE_HINT.search("revenue was $4,753.6 million and 12.5%") is None
    assert not ci._may_hold_date("revenue was $4,753.6 million and 12.5%")
    for date in ("2023-03-31", "3/31/2023", "31.12.2023", "3.1.23", "12/31"):
        assert ci._DATE_HINT.search(date) and ci._may_hold_date(date), date
        assert mask(f"on {date} it", _CITE) == "on " + " " * len(date) + " it"  # blanked, same length
