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

__all__ = ["SUM", "CROSS", "TOTAL", "RESPECTIVE", "POLAR", "NEGATION", "INFLOW", "QUARTER", "AVERAGE", "BOUND"]
__all__ += ["FORMS", "ALL", "FAMILIES", "NEEDLES"]
__all__ += ["MIN_SENTENCES_TO_SCAN", "claim_triggers", "sentence_triggers"]

SUM, CROSS, TOTAL, RESPECTIVE, POLAR = 1, 2, 4, 8, 16
#: The form rules' families (:mod:`assay.grounding.forms`): negation, inflows, quarters, averages, bounds.
NEGATION, INFLOW, QUARTER, AVERAGE, BOUND = 32, 64, 128, 256, 512
FORMS = NEGATION | INFLOW | QUARTER | AVERAGE | BOUND
#: Every bit: the value for a sentence whose families are not known (each rule runs its pre-check).
ALL = SUM | CROSS | TOTAL | RESPECTIVE | POLAR | FORMS

_SPACES = tuple(c for c in map(chr, range(128)) if re.fullmatch(r"\s", c))
#: Family bit → the substrings its rule's pre-check looks for (lower case, ASCII: on ASCII text a
#: case-insensitive match of an entry is the entry as a substring of the lower-cased text; the
#: non-ASCII entries need none, a non-ASCII sentence gets every bit). The form rules' pre-checks:
#: ``not|n['’]t|never|failed|no\s``, ``receiv|receipt|collect|inflow|proceeds|brought|took\s+in|
#: taken\s+in``, ``Q[1-4]|[1-4]Q|quarter``, ``averag|mean`` and ``_BOUND_HINTS``.
FAMILIES: dict[int, tuple[str, ...]] = {
    SUM: tuple(w for w in SUM_WORDS if w.isascii()),
    CROSS: tuple(w for w in CROSS_PERIOD_WORDS if w.isascii()),
    TOTAL: ("total",),
    RESPECTIVE: ("espective",),
    POLAR: tuple(w for w in LOSS_WORDS + GAIN_WORDS if w.isascii()),
    NEGATION: ("not", "n't", "never", "failed", *(f"no{c}" for c in _SPACES), "false", "untrue", "far from"),
    INFLOW: ("receiv", "receipt", "collect", "inflow", "proceeds", "brought", "took", "taken"),
    QUARTER: (*(f"q{i}" for i in "1234"), *(f"{i}q" for i in "1234"), "quarter"),
    AVERAGE: ("averag", "mean"),
    BOUND: ("than ", "over ", "above ", "excess of", "exceed", "upwards of", "least ")
    + ("minimum of", "under ", "below ", "at most", "up to", "maximum of", "topped ", "surpassed ")
    + ("north of", "short of"),
}
#: What is searched: each substring → the bits it sets. Fewer than :data:`FAMILIES`' entries (each
#: search is a scan of the whole answer): an entry holding another entry of its family ("net
#: loss" ⊃ "loss", "in total" ⊃ "total") is found through it, one stem stands for its forms ("recei"
#: for "receiv", "receipt"; "income" for "net income", "operating income", "income from
#: operations"), and white space is read as one space (``no\s`` is "no "). Every entry of a family
#: holds one of its substrings, so a bit is set wherever its entries are (tested); a substring
#: looser than its entries only sets a bit the rule's own pre-check then clears.
NEEDLES: dict[str, int] = {
    "total": SUM | TOTAL | CROSS,
    **dict.fromkeys(("combined", "together", "sum", "for both"), SUM),
    **dict.fromkeys(("two", "both years", "cumulative", "within", "over the next"), CROSS),
    "espective": RESPECTIVE,
    **dict.fromkeys(("loss", "lost", "deficit", "negative", "income", "profit", "earn", "gain"), POLAR),
    **dict.fromkeys(("not", "n't", "never", "failed", "no ", "false", "untrue", "far from"), NEGATION),
    **dict.fromkeys(("recei", "collect", "inflow", "proceeds", "brought", "took", "taken"), INFLOW),
    **dict.fromkeys(FAMILIES[QUARTER], QUARTER),
    **dict.fromkeys(FAMILIES[AVERAGE], AVERAGE),
    **dict.fromkeys(FAMILIES[BOUND], BOUND),
}
_ONE_SPACE = str.maketrans(dict.fromkeys(_SPACES, " "))


def sentence_triggers(texts: Sequence[str]) -> list[int]:
    """Per text of ``texts`` (an answer's sentences; ``""`` for one not to be read), the bit set
    (:data:`SUM` … :data:`FORMS`) of the word families it holds (module doc); :data:`ALL` for a
    non-ASCII text. Shape: ``len(texts)`` ints. Cost: one ``str.find`` pass per substring over
    the joined lower-cased texts (:data:`NEEDLES`), plus one ``bisect`` per (substring, sentence) hit."""
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
    joined = "\0".join(parts).translate(_ONE_SPACE)
    ends = [s + len(p) for s, p in zip(starts, parts, strict=True)]
    for w, bits in NEEDLES.items():
        i = joined.find(w)
        while i != -1:
            k = bisect_right(starts, i) - 1
            out[k] |= bits
            i = joined.find(w, ends[k] + 1)  # the next sentence: this one holds the substring
    return out


#: Fewer sentences stating numbers than this: every bit (each rule runs its own pre-check, on the
#: sentences it reads). One scan costs ~20 µs on any answer (one search per substring), the rules'
#: own pre-checks ~20 µs per sentence read: a TAT-QA one-sentence answer was 24 µs slower with it.
MIN_SENTENCES_TO_SCAN = 3


def claim_triggers(claims: Sequence[Claim]) -> list[int]:
    """:func:`sentence_triggers` of ``claims``' sentences, the claims stating no number left out
    (``0``: they are never read); :data:`ALL` for each when fewer than
    :data:`MIN_SENTENCES_TO_SCAN` state numbers."""
    texts = [c.text if c.numbers else "" for c in claims]
    if sum(1 for t in texts if t) < MIN_SENTENCES_TO_SCAN:
        return [ALL] * len(texts)
    return sentence_triggers(texts)
