"""Which word families each sentence of an answer holds, found in one scan of the answer (issue 15:
the inline latency of a memo the gate has never seen).

The sentence rules (:mod:`assay.grounding.context`, :mod:`assay.grounding.forms`) read a
sentence only for the word families it can hold: a sum word, a cross-period word, "total",
"respectively", a loss or profit word, a form's cue (a negation, an inflow, a quarter, a bound,
an average). Each rule's pre-check is "one of these substrings is in the lower-cased sentence";
run per sentence, the pre-checks cost more than the reads they spare (a case-insensitive regex
search over an 80-character sentence is ~3 µs, and a memo has 30 sentences). Here every family's
substrings are found once in the lower-cased answer (``str.find``, a C scan) and each hit marks
the sentence holding it.

:func:`sentence_triggers` gives, per sentence, the bit set of the families whose pre-check holds.
The substrings of a family are those of its rule's pre-check (or a superset: "no" before any
white space for ``no\\s``, "took" for ``took\\s+in``), so a family a sentence's bits lack is one its
rule's own pre-check would not find: a rule may skip it with the same result. A non-ASCII
sentence gets every bit (the rules' pre-checks pass every non-ASCII text). Pure.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from assay.claims import Claim
from assay.grounding.lexicon import CROSS_PERIOD_WORDS, GAIN_WORDS, LOSS_WORDS, SUM_WORDS

__all__ = ["SUM", "CROSS", "TOTAL", "RESPECTIVE", "POLAR", "FORMS", "ALL", "FAMILIES"]
__all__ += ["claim_triggers", "sentence_triggers"]

SUM, CROSS, TOTAL, RESPECTIVE, POLAR, FORMS = 1, 2, 4, 8, 16, 32
#: Every bit: the value for a sentence whose families are not known (each rule runs its pre-check).
ALL = SUM | CROSS | TOTAL | RESPECTIVE | POLAR | FORMS

_SPACES = tuple(c for c in map(chr, range(128)) if re.fullmatch(r"\s", c))
#: The pre-check substrings of the form rules (:mod:`assay.grounding.forms`, :mod:`assay.grounding.quarters`),
#: lower case: negation (``not|n['’]t|never|failed|no\s``), inflows (``receiv|receipt|collect|inflow|
#: proceeds|brought|took\s+in|taken\s+in``), quarters (``Q[1-4]|[1-4]Q|quarter``), averages
#: (``averag|mean``) and the bound hints (``_BOUND_HINTS``); their non-ASCII entries need no entry here.
_FORM_WORDS = (
    ("not", "n't", "never", "failed", *(f"no{c}" for c in _SPACES))
    + ("receiv", "receipt", "collect", "inflow", "proceeds", "brought", "took", "taken")
    + (*(f"q{i}" for i in "1234"), *(f"{i}q" for i in "1234"), "quarter", "averag", "mean")
    + ("than ", "over ", "above ", "excess of", "exceeding ", "upwards of", "least ")
    + ("minimum of", "under ", "below ", "at most", "up to", "maximum of")
)
#: Family bit → its substrings (lower case, ASCII: on ASCII text a case-insensitive match of an
#: entry is the entry as a substring of the lower-cased text).
FAMILIES: dict[int, tuple[str, ...]] = {
    SUM: tuple(w for w in SUM_WORDS if w.isascii()),
    CROSS: tuple(w for w in CROSS_PERIOD_WORDS if w.isascii()),
    TOTAL: ("total",),
    RESPECTIVE: ("espective",),
    POLAR: tuple(w for w in LOSS_WORDS + GAIN_WORDS if w.isascii()),
    FORMS: _FORM_WORDS,
}


def sentence_triggers(texts: Sequence[str]) -> list[int]:
    """Per text of ``texts`` (an answer's sentences; ``""`` for one not to be read), the bit set
    (:data:`SUM` … :data:`FORMS`) of the word families it holds (module doc); :data:`ALL` for a
    non-ASCII text. Shape: ``len(texts)`` ints. Cost: one ``str.find`` pass per substring over
    the joined lower-cased texts, plus one ``bisect`` per (substring, sentence) hit."""
    out = [0] * len(texts)
    parts, starts, pos = [], [], 0
    for i, t in enumerate(texts):
        ascii_text = t.isascii()
        if not ascii_text:
            out[i] = ALL
        low = t.lower() if ascii_text else ""
        starts.append(pos)
        parts.append(low)
        pos += len(low) + 1  # "\0" between sentences: no entry holds it, so no hit spans two
    joined = "\0".join(parts)
    ends = [s + len(p) for s, p in zip(starts, parts, strict=True)]
    for bit, words in FAMILIES.items():
        for w in words:
            i = joined.find(w)
            while i != -1:
                k = bisect_right(starts, i) - 1
                out[k] |= bit
                i = joined.find(w, ends[k] + 1)  # the next sentence: this one holds the family
    return out


def claim_triggers(claims: Sequence[Claim]) -> list[int]:
    """:func:`sentence_triggers` of ``claims``' sentences, the claims stating no number left out
    (``0``: they are never read)."""
    return sentence_triggers([c.text if c.numbers else "" for c in claims])
