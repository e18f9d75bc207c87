"""A figure stated as a rate (gate-17; group C of a helper's hunt for non-year false accepts, used by
:func:`assay.grounding.sentence_rules.sentence_reader`): "Net income was $97.0 billion per month [F7]" and
"Total net sales were $383.3 billion per store [F1]" passed on the year's totals. A number followed by "per
<noun>", "for each <noun>" or "a month/week/day", or stated as the value of "<item> per <noun>" ("Revenue
per employee was …", "Net income per share was $97.0 billion"), states an amount for each of something, so a
total does not back it. Not judged: a ratio of two figures (a/b: "the margin was 25.3 cents per dollar of
sales" is one over the other). Backed: a fact or passage number whose label names a rate ("Revenue per
employee", "Average revenue per user", "Cost/unit"). Not rates: "per share" (read with the number: a
per-share figure), "per cent", a year or quarter ("per annum", "a year": the period of the fact), "per the
agreement" and "per Apple's 10-K" (as a source says) and a bare "each" ("£3,600 each", a TAT-QA gold answer:
one award's value).
"""

from __future__ import annotations

import re

from assay.claims import Quantity
from assay.grounding.candidates import Candidate

__all__ = ["rate_veto"]

Veto = tuple[str, str] | None

#: Right after a number: what it is a rate of ("per store", "for each employee", "a month"); its noun is group 1.
_RATE_AFTER = re.compile(
    r"\s*(?:(?:per|for\s+each)\s+(?!(?:share|cent|annum|year|quarter|fiscal|diluted|basic|common|ordinary"
    r"|the|a|an|our|its|their|his|her|this|that|these|those)\b)"
    r"([A-Za-z]+)|an?\s+(month|week|day|hour)\b)",
    re.I,
)
#: Right before a number: a rate named as its subject ("Revenue per employee was", "Net income per share
#: was"); its noun is group 1. "per share" counts here: the number is stated as the item's, not read with it.
_RATE_BEFORE = re.compile(
    r"\b(?:per|for\s+each)\s+(?!(?:cent|annum|year|quarter|fiscal|the|a|an|our|its|their|this|that)\b)([a-z]+)"
    r"\s+(?:was|were|is|are|of|totall?ed|reached|amounted\s+to|came\s+(?:in\s+)?(?:to|at)|stood\s+at)"
    r"\s+(?:(?:about|approximately|around|roughly|nearly|almost|some)\s+)?\Z",
    re.I,
)
#: A label that names a rate: its figures are amounts per something.
_RATE_LABEL = re.compile(r"\bper\b|\baverage\b|\barpu\b|/|\bratio\b|\brate\b", re.I)


def rate_veto(q: Quantity, c: Candidate, text: str, offset: int) -> Veto:
    """``("label_mismatch", reason)`` when ``q`` (in sentence ``text``, which starts at ``offset`` of
    the answer) is stated as a rate (module doc) and ``c`` is neither a ratio of two figures nor a
    figure whose label (or an operand's) names a rate; else None."""
    if c.op in ("a/b", "|a|/|b|") or q.unit is not None and q.unit.endswith("/share"):
        return None  # a ratio of two figures; a per-share figure (its unit says so)
    start, end = q.span[0] - offset, q.span[1] - offset
    m = _RATE_AFTER.match(text, end) if end < len(text) and text[end] in " \t" else None  # (after a space only)
    lo = max(0, start - 60)
    if m is None and ("per " in text[lo:start].lower() or "each " in text[lo:start]):
        m = _RATE_BEFORE.search(text, lo, start)  # "Revenue per employee was …"
    if m is None or any(_RATE_LABEL.search(o.label) for o in c.operands or (c,)):
        return None
    if m.group(1) and m.group(1)[0].isupper():
        return None  # "per Apple's 10-K": according to a source, not a rate
    if m.group(1) and m.group(1).lower() == "share" and q.scale <= 1:
        return None  # "earnings per share of $0.43": a per-share figure a passage's EPS cell backs (TAT-QA gold)
    noun = m.group(1) or m.group(2)
    return "label_mismatch", f"the figure is stated per {noun.lower()}, but {c.ref} is a total, not a rate"
