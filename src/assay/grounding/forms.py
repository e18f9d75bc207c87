"""What the form of a sentence says about its numbers beyond their value, period and line item
(issue 15, false accepts a new user found; used by :func:`assay.grounding.sentence_rules.sentence_reader`).

:func:`read_forms` reads one sentence once (memoised) into :class:`SentenceForms`;
:func:`forms_veto` is the veto of one (quantity, candidate) value match. Rules:

- **negation** (``negated``): a change or a figure the sentence denies states nothing the data
  can back. "Total net sales did not decline 2.8%" read as "declined 2.8%" passed on the fall it
  denies. A number is negated when the verb of change that gives it its direction (the last one
  of :data:`~assay.claims.wording.UP_WORDS` / :data:`~assay.claims.wording.DOWN_WORDS` in its
  clause, within 60 characters before it) follows a negation ("not", "n't", "never", "failed
  to", "no longer", with at most two auxiliaries or adverbs between: "has not yet increased",
  "did not significantly decline"), when the number itself follows one ("was not $383.3
  billion", "did not reach $5 million", "no 2.8% decline"), or, in Korean, when its change verb
  is negated after it ("12% 감소하지 않았다"). Flipping the direction would be a guess ("did not
  decline 2.8%" does not say it rose 2.8%), so every match of such a number is vetoed: the gate
  fails closed. "not only", "not including", "did not exceed" (a bound) are no negation of the
  number.
- **inflows** (``inflow``): an inflow word attributed to the number — the last money-flow word
  of its clause within 60 characters before it (after the previous number) is one of
  :data:`INFLOW_WORDS` ("received", "collected", "proceeds", "inflow", "brought in", 수령, 유입),
  or "in proceeds" / "of inflows" follows it — says the figure came in, so a magnitude-only
  match of a negative figure (an outflow shown as ``(1,577)``) is vetoed, as a profit word on a
  negative figure is. The sign licence of a question ("How much cash was used in investing …")
  or of an outflow word elsewhere in the sentence no longer lets "The company received $1,577
  million" pass on (1,577); an outflow word nearer the number ("received approval and spent
  $1,577 million") keeps the match. The mirror, an outflow word on an inflow-labelled fact, is
  :mod:`assay.grounding.outflows` (gate-13).
- **bounds** (``bounds``): "less than $383 billion", "more than $400 billion", "at least",
  "up to" state a bound, not an equality. The gate still backs a number only at its displayed
  precision (a bound far from every figure, "less than $1 trillion", is not backed: the data
  shows no such number), and the matched figure must satisfy the bound in magnitude: "Total net
  sales were less than $383 billion" fails on 383,285 (it is more), "more than $383 billion"
  passes; an exact figure stated as a strict bound ("more than $383.285 billion") fails. Read
  only where the bound phrase stands right before the first number of its clause: in
  "$97.0 billion was less than $99.8 billion" the second number is a comparison's base, not a
  bound ("nearly", "almost", "about" are hedges, not bounds). Judged on table figures and
  structured facts only: a number of a passage or paragraph may carry the bound in its own
  words ("over 50 countries" copied from "…distributes content to over 50 countries"), which
  the gate does not read, so the bound is left to the value match there.
- **multiples** (:func:`multiple_veto`): a verb of a multiple ("doubled", "tripled", "halved",
  "a doubling of") states the new figure over the old one, so it is backed only by a ratio
  later ÷ earlier: "Revenue halved" fails on a doubling (old ÷ new = 0.5), "doubled" fails on a
  tripling (a growth (new − old) ÷ old of 2.0 is no doubling), and on two figures nothing orders
  in time it fails closed (as a direction does, gate-8). "twice as much" compares, it states no
  time, and is not judged.
- **averages** (``averages``): a number stated as an average ("averaged", "average of",
  "on average", "mean", 평균) is a mean, never a sum: "Total net sales averaged $777.6 billion
  over the two years" no longer passes on FY2023 + FY2022 (the sum a cross-period word
  licenses). A mean is no one-operation derivation, so a true average of two figures stays
  unbacked unless the data holds it.
- **a share's base** (:func:`share_base_veto`): the item a share is stated "of" ("25.3% of
  total net sales", "as a percentage of revenue") is the ratio's denominator, so a ratio a ÷ b
  whose b is another line item is vetoed (``label_mismatch``): "Net income was 25.3% of
  interest expense" no longer passes on net income ÷ total net sales. Judged only when the
  named base is an item the snapshot knows (:meth:`~assay.grounding.labels.SnapshotVocabulary.named_spans`)
  standing right after the number, and b is a line item.
- **quarters** (``quarters``): a quarter named next to a number must be its figure's
  (:mod:`assay.grounding.quarters`, ``period_mismatch``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from assay.claims import Quantity
from assay.claims.wording import DOWN_WORDS, UP_WORDS
from assay.grounding.candidates import Candidate, time_rank
from assay.grounding.labels import is_line_item, related_to
from assay.grounding.lexicon import CLAUSE
from assay.grounding.match import readings
from assay.grounding.quarters import named_quarters, quarter_veto
from assay.grounding.sentence_memo import sentence_memo
from assay.grounding.triggers import ALL, AVERAGE, BOUND, FORMS, INFLOW, NEGATION, QUARTER

__all__ = [
    "INFLOW_WORDS",
    "SentenceForms",
    "average_numbers",
    "bound_holds",
    "forms_veto",
    "inflow_numbers",
    "multiple_veto",
    "negated_numbers",
    "read_forms",
    "share_base_veto",
    "stated_bounds",
]

#: ``(rule kind, reason)`` when a match is refused.
Veto = tuple[str, str] | None


@dataclass(frozen=True)
class SentenceForms:
    """The numbers of one sentence that its form constrains, by their start in the answer."""

    negated: frozenset[int] = frozenset()
    inflow: frozenset[int] = frozenset()
    quarters: dict[int, frozenset[str]] = field(default_factory=dict)  # number start → quarters named
    bounds: dict[int, tuple[int, bool]] = field(default_factory=dict)  # number start → (way, strict)
    averages: frozenset[int] = frozenset()


_EMPTY = SentenceForms()
#: A number of a sentence with its window: ``(q, start, end, clause cut, previous number's end)``.
Window = tuple[Quantity, int, int, int, int]


@sentence_memo
def read_forms(text: str, offset: int, numbers: tuple[Quantity, ...], may: int = ALL) -> SentenceForms:
    """The sentence ``text`` (at ``offset`` of the answer, stating ``numbers``) read for the rules
    of the module docstring; memoised (a pure function of its arguments). ``may``: the sentence's
    :func:`~assay.grounding.triggers.sentence_triggers` bits (a rule whose family bit it lacks is
    not run: its pre-check would not hold)."""
    if not numbers or not may & FORMS:
        return _EMPTY
    negated = negated_numbers(text, offset, numbers) if may & NEGATION else frozenset()
    inflow = inflow_numbers(text, offset, numbers) if may & INFLOW else frozenset()
    quarters = named_quarters(text, offset, numbers) if may & QUARTER else {}
    bounds = stated_bounds(text, offset, numbers) if may & BOUND else {}
    averages = average_numbers(text, offset, numbers) if may & AVERAGE else frozenset()
    if not (negated or inflow or quarters or bounds or averages):
        return _EMPTY
    return SentenceForms(negated, inflow, quarters, bounds, averages)


@sentence_memo
def number_windows(text: str, offset: int, numbers: tuple[Quantity, ...]) -> tuple[Window, ...]:
    """Each number of sentence ``text`` (at ``offset`` of the answer) as ``(q, start, end, cut,
    prev_end)`` in the sentence's coordinates: ``cut`` the end of the last clause break before it
    (``CLAUSE``, 0 when none), ``prev_end`` the end of the number before it (0 for the first). The
    clause scan every rule of this module reads, made once per sentence (memoised: pure)."""
    out: list[Window] = []
    prev_end = 0
    for q in numbers:
        s, e = q.span[0] - offset, q.span[1] - offset
        cut = max((m.end() for m in CLAUSE.finditer(text, 0, s)), default=0)
        out.append((q, s, e, cut, prev_end))
        prev_end = e
    return tuple(out)


def forms_veto(q: Quantity, c: Candidate, forms: SentenceForms) -> Veto:
    """``(kind, reason)`` when the sentence's form contradicts ``q`` matched to ``c``, else None."""
    if forms is _EMPTY:
        return multiple_veto(q, c) if q.form == "multiple" else None
    if q.span[0] in forms.negated:
        return "sign", "the sentence denies this change or figure ('did not decline'): a denial backs no figure"
    if q.span[0] in forms.inflow and c.value < 0 < q.value and not q.explicit_sign:
        return "sign", f"the wording states an inflow ('received'), but {c.ref} is an outflow (negative)"
    if c.op == "a+b" and q.span[0] in forms.averages:
        return "sum", f"the sentence states an average; {c.ref} is a sum"
    if q.form == "multiple" and (veto := multiple_veto(q, c)) is not None:
        return veto
    bound = forms.bounds.get(q.span[0])
    if bound is not None and not bound_holds(q, c, *bound):
        way, strict = bound
        said = ("more than" if strict else "at least") if way > 0 else ("less than" if strict else "at most")
        return "bound", f"the sentence says {said} {q.text}, and {c.ref} is not"
    return quarter_veto(q, c, forms.quarters) if forms.quarters else None


# --- negation ------------------------------------------------------------------------------

_NEG = r"(?:\b(?:not|never|cannot|failed\s+to|no\s+longer)|n['’]t)"
#: Before a verb of change: a negation, then at most two auxiliaries or adverbs.
_NEG_BEFORE_VERB = re.compile(
    _NEG + r"\s+(?:(?:have|has|had|be|been|being|actually|really|significantly|materially|substantially|"
    r"meaningfully|much|quite|further|yet|even|so|as)\s+){0,2}\Z",
    re.I,
)
#: Right before a number: "was not", "did not reach", "has not totaled", "no" (a noun's negation).
_NEG_BEFORE_NUMBER = re.compile(
    r"(?:"
    + _NEG
    + r"\s+(?:(?:have|has|had|be|been|quite|exactly|even|yet|reach|reached|total|totaled|totalled|equal|equaled|"
    r"equalled|amount\s+to|amounted\s+to|come\s+to|came\s+to|by|to|at|about|approximately|around|roughly|an?|the)\s+)"
    r"{0,3}|\bno\s+|\bfar\s+from\s+(?:the\s+)?)\Z",  # gate-16: "revenue was far from $383.3 billion"
    re.I,
)
#: A sentence that denies all it says (gate-16, a helper's non-year hunt): "It is false that …", "It is not
#: true that …", "It is not the case that …"; a figure then "was not achieved / reached / met"; Korean "…
#: 것은 아니다", "… 사실이 아니다" closing the sentence after the figure.
_DENIED_SENTENCE = re.compile(r"^\W*it\s+(?:is|was)\s+(?:false|untrue|not\s+true|not\s+the\s+case)\s+that\b", re.I)
_NOT_ACHIEVED_AFTER = re.compile(
    r"\s*(?:\[[^\[\]\n]{1,60}\]\s*)?(?:was|were|is|are|has|have|had)\s+(?:not|never)\s+(?:been\s+)?"
    r"(?:achieved|reached|attained|met|realized|realised|recorded)\b",
    re.I,
)
_KR_DENIED_AFTER = re.compile(r"[^.;,]*?(?:것[은이]\s*(?:사실이\s*)?아니|사실이\s*아니)")
_CHANGE_WORD = re.compile(
    r"(?<![A-Za-z-])(?:" + "|".join(sorted(UP_WORDS | DOWN_WORDS, key=len, reverse=True)) + r")(?![A-Za-z]|-[A-Za-z])",
    re.I,
)
#: A Korean change verb negated after the number: "12% 감소하지 않았다", "늘지 못했다".
_KR_NEG_AFTER = re.compile(r"[^\s.;,]{0,3}\s?[가-힣]{0,6}?지\s?(?:않|못)")
#: A Korean level denied after the number: "3,833억 달러가 아니었다" (was not), "…를 기록하지 않았다"
#: (did not record); not a bound ("넘지 않았다", "초과하지 않았다", "웃돌지 않았다": did not exceed).
_KR_NEG_LEVEL = re.compile(r"\s?(?:[이가을를은는에]\s?)?(?:아니|(?!넘|초과|웃돌|상회)[가-힣]{1,6}?지\s?(?:않|못))")
_MAY_NEGATE = re.compile(r"not|n['’]t|never|failed|no\s|false|untrue|far\s+from|지\s?[않못]|아니", re.I)


def negated_numbers(text: str, offset: int, numbers: Sequence[Quantity]) -> frozenset[int]:
    """Starts (in the answer) of the numbers of sentence ``text`` that the sentence negates (module
    doc): their verb of change, or the number itself, follows a negation in its clause."""
    if not _MAY_NEGATE.search(text):
        return frozenset()
    out = set()
    korean, denied = not text.isascii(), _DENIED_SENTENCE.match(text) is not None
    for q, s, e, cut, _ in number_windows(text, offset, tuple(numbers)):
        before = text[max(cut, s - 60) : s]
        if (
            (denied and cut == 0)  # "It is false that …": its first clause
            or _NEG_BEFORE_NUMBER.search(before)
            or _NOT_ACHIEVED_AFTER.match(text, e)
            or (korean and _KR_DENIED_AFTER.match(text, e))
        ):
            out.add(q.span[0])
            continue
        if q.direction is None:
            if not text.isascii() and _KR_NEG_LEVEL.match(text, q.span[1] - offset):
                out.add(q.span[0])  # "3,833억 달러가 아니었다" (gate-13)
            continue
        verbs = list(_CHANGE_WORD.finditer(before))
        verb = verbs[-1] if verbs else None
        if verb is not None and _NEG_BEFORE_VERB.search(before, 0, verb.start()):
            out.add(q.span[0])
        elif not text.isascii() and _KR_NEG_AFTER.match(text, q.span[1] - offset):
            out.add(q.span[0])
    return frozenset(out)


# --- inflows -------------------------------------------------------------------------------

#: Words that state money came in (English and Korean).
INFLOW_WORDS = tuple(
    "received|receive|receives|receiving|receipts|receipt|collected|collects|collecting|inflows|inflow|proceeds|"
    "brought in|took in|taken in|수령|유입|받았|받은".split("|")
)
#: Words that state money went out: nearer the number than an inflow word, they keep the match.
#: ``FLOW``: either kind, as a whole word (groups ``inflow``, ``outflow``; read by :mod:`~.outflows` too).
_OUTFLOW_WORDS = (
    "spent|spend|spends|spending|paid|pays|pay|paying|used|invested|repurchased|repaid|outflows?|burned|burnt|"
    "consumed|지출|지급"
)
FLOW = re.compile(
    r"(?<![A-Za-z])(?:(?P<inflow>"
    + "|".join(w.replace(" ", r"\s+") for w in INFLOW_WORDS)
    + r")|(?P<outflow>"
    + _OUTFLOW_WORDS
    + r"))(?![A-Za-z])",
    re.I,
)
_INFLOW_AFTER = re.compile(r"\s+(?:in|of)\s+(?:cash\s+)?(?:proceeds|inflows?|receipts)\b", re.I)
_MAY_FLOW = re.compile(r"receiv|receipt|collect|inflow|proceeds|brought|took\s+in|taken\s+in|수령|유입|받", re.I)


def inflow_numbers(text: str, offset: int, numbers: Sequence[Quantity]) -> frozenset[int]:
    """Starts (in the answer) of the numbers of sentence ``text`` stated as inflows (module doc)."""
    if not _MAY_FLOW.search(text):
        return frozenset()
    out = set()
    for q, s, e, cut, prev_end in number_windows(text, offset, tuple(numbers)):
        flows = list(FLOW.finditer(text, max(cut, s - 60, prev_end), s))
        last = flows[-1] if flows else None
        if (last is not None and last.group("inflow")) or (last is None and _INFLOW_AFTER.match(text, e)):
            out.add(q.span[0])
    return frozenset(out)


# --- bounds --------------------------------------------------------------------------------

#: The bound phrase right before a number: its way (+1 the figure is above, −1 below) and strictness.
_BOUND = re.compile(
    r"(?:(?P<gt>\b(?:more|greater)\s+than|\bover|\babove|\bin\s+excess\s+of|\bexceed(?:ing|ed|s)|\bupwards\s+of"
    r"|\b(?:topped|surpassed|north\s+of))"  # gate-16: a verb of passing a figure (a helper's non-year hunt)
    r"|(?P<ge>\bat\s+least|\b(?:no|not)\s+less\s+than|\ba\s+minimum\s+of)"
    r"|(?P<lt>\b(?:less|fewer)\s+than|\bunder|\bbelow|\b(?:fell|came\s+in)\s+(?:just\s+)?short\s+of)"
    r"|(?P<le>\bat\s+most|\b(?:no|not)\s+more\s+than|\bup\s+to|\ba\s+maximum\s+of))\s+\Z",
    re.I,
)
#: A Korean bound after its figure (gate-16): "970억 달러를 넘었다 / 돌파했다 / 초과했다 / 상회했다" (more),
#: "… 이상이었다" (at least), "… 밑돌았다 / 하회했다 / 미만이었다" (less), "… 이하였다" (at most); a citation
#: marker may stand between.
_KO_BOUND_AFTER = re.compile(
    r"\s*(?:\[[^\[\]\n]{1,60}\]\s*)?(?:을|를)?\s*"
    r"(?:(?P<gt>넘었|넘어섰|돌파했|초과했|상회했)|(?P<ge>이상이었|이상이다|이상을)|(?P<lt>밑돌았|하회했|미만이었|미만이다)"
    r"|(?P<le>이하였|이하이다))"
)
#: Every bound phrase holds one of these (a substring test per sentence, no scan per number).
_BOUND_HINTS: tuple[str, ...] = ("than ", "over ", "above ", "excess of", "exceed", "upwards of", "least ")
_BOUND_HINTS += ("minimum of", "under ", "below ", "at most", "up to", "maximum of", "topped ", "surpassed ")
_BOUND_HINTS += ("north of", "short of", "넘", "돌파", "초과", "상회", "이상", "밑돌", "하회", "미만", "이하")
_BOUNDS = {"gt": (1, True), "ge": (1, False), "lt": (-1, True), "le": (-1, False)}


def stated_bounds(text: str, offset: int, numbers: Sequence[Quantity]) -> dict[int, tuple[int, bool]]:
    """Number start (in the answer) → ``(way, strict)`` of the bound the sentence states on it
    (module doc): a bound phrase right before the first number of its clause."""
    low = text.lower()
    if not any(map(low.__contains__, _BOUND_HINTS)):
        return {}
    out = {}
    korean = not text.isascii()
    for q, s, e, cut, prev_end in number_windows(text, offset, tuple(numbers)):
        m = _BOUND.search(text, max(cut, prev_end, s - 40), s) if prev_end <= cut or prev_end == 0 else None
        if m is None and korean:
            m = _KO_BOUND_AFTER.match(text, e)
        if m is not None:
            out[q.span[0]] = _BOUNDS[m.lastgroup or ""]
    return out


def bound_holds(q: Quantity, c: Candidate, way: int, strict: bool) -> bool:
    """Whether ``c``'s figure, read in ``q``'s scale (the reading nearest the stated value),
    satisfies the bound ``q`` states, in magnitude (module doc)."""
    if any(o.origin == "passage" or not is_line_item(o.label) for o in c.operands or (c,)):
        return True  # a quoted number may carry the bound in its own words ("over 50 countries")
    values = readings(q, c)
    if not values:
        return True
    stated = abs(q.value)
    figure = abs(min(values, key=lambda t: abs(abs(t) - stated)))
    eps = 1e-9 * max(1.0, stated)
    if way > 0:
        return figure > stated + eps if strict else figure >= stated - eps
    return figure < stated - eps if strict else figure <= stated + eps


# --- multiples -----------------------------------------------------------------------------

_MULTIPLE_VERB = re.compile(r"doubl|tripl|trebl|quadrupl|halv", re.I)


def multiple_veto(q: Quantity, c: Candidate) -> Veto:
    """The veto of a multiple verb ``q`` ("doubled", "halved") matched to ``c`` (module doc)."""
    if not _MULTIPLE_VERB.match(q.text) or c.op is None:
        return None
    if c.op not in ("a/b", "|a|/|b|") or len(c.operands) != 2:
        return "sign", f"'{q.text}' states the new figure over the old one; {c.ref} is no such ratio"
    ra, rb = (time_rank(o) for o in c.operands)
    if ra is None or rb is None or ra[0] != rb[0] or ra == rb:
        return "sign", f"'{q.text}' states a change in time, but the order in time of {c.ref}'s figures is unknown"
    if ra < rb:
        return "sign", f"'{q.text}' states the new figure over the old one; {c.ref} is the old over the new"
    return None


# --- averages ------------------------------------------------------------------------------

_AVERAGE = re.compile(r"\b(?:averag(?:e|ed|es|ing)|mean)\b|평균", re.I)
_AVERAGE_AFTER = re.compile(r"[^.;,\n]{0,30}?\b(?:on\s+average|on\s+avg)\b", re.I)
_MAY_AVERAGE = re.compile(r"averag|mean|평균", re.I)


def average_numbers(text: str, offset: int, numbers: Sequence[Quantity]) -> frozenset[int]:
    """Starts (in the answer) of the numbers stated as an average: an average word in their clause
    within 40 characters before them (after the previous number), or "on average" after them."""
    if not _MAY_AVERAGE.search(text):
        return frozenset()
    out = set()
    for q, s, e, cut, prev_end in number_windows(text, offset, tuple(numbers)):
        if _AVERAGE.search(text, max(cut, prev_end, s - 40), s) or _AVERAGE_AFTER.match(text, e):
            out.add(q.span[0])
    return frozenset(out)


# --- a share's base ------------------------------------------------------------------------

_OF_BASE = re.compile(r"\s*(?:of|as\s+an?\s+(?:share|percentage|percent|proportion)\s+of)\s+(?:the\s+)?\Z", re.I)


def share_base_veto(
    q: Quantity, c: Candidate, text: str, offset: int, named: Sequence[tuple[int, int, str]], exact: frozenset[str]
) -> Veto:
    """``("label_mismatch", reason)`` when ``q`` is stated as a share of a named item ("25.3% of
    total net sales") and ``c`` is a ratio over another line item (module doc); else None.
    ``named``: the sentence's named items ``(start, end, name)`` in ``text``; ``exact``: those that
    are exactly a fact's line item."""
    if c.op not in ("a/b", "|a|/|b|") or len(c.operands) != 2 or q.unit not in ("%", "x", "ratio"):
        return None
    base = c.operands[1]
    if base.origin == "passage" or not is_line_item(base.label):
        return None
    e = q.span[1] - offset
    for a, _, name in named:
        if a >= e and a - e <= 40 and _OF_BASE.match(text, e, a):
            if related_to(name, base.label.lower(), name in exact):
                return None
            return "label_mismatch", f"the sentence states a share of {name!r}, but {c.ref} is over {base.label!r}"
    return None
