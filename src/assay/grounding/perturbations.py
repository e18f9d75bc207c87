"""The gate-soundness perturbation suite: each class a pure function ``(case) -> perturbed case | None``.

A perturbation changes a correct answer so that a reader would call it wrong; the sourcing gate
must reject the result. ``None`` means the class does not apply to the case (nothing to perturb,
or the change would not make the answer wrong). Every function copies the case with a new
``answer`` (``variant`` names the class) and never touches the snapshot. Rules (issue 15):

- :func:`moved_unit` — every stated number moved by one displayed unit in its last digit.
- :func:`sign_word` — the profit/income/gain/earned wording around a correct, unsigned figure
  (60 characters before it, or right after, in its own sentence) flipped to loss/lost (or
  back): "net income of $97.0 billion" → "net loss of $97.0 billion". None when no such word
  stands by a figure or the answer has both kinds ("gain (loss)").
- :func:`direction_word` — the verb or noun of change that gives an unsigned number its
  direction flipped: rose↔fell, increase↔decrease, higher↔lower, grew↔shrank, up↔down, 증가↔감소;
  None when no number takes its direction from the wording, both directions are written, or the
  word is a bound ("up to $584 million": no change is stated).
- :func:`period_swap` — the first year the answer names (``2019``, ``FY2023``, ``fiscal 2022``,
  ``2023년``) that is the period of a cited fact replaced by another year present in the
  snapshot's fact periods that the answer does not already name (a swap to a named year would
  make "between 2019 and 2019", a sentence no reader writes, not a false one); None when no such
  year exists or some fact of the same row label and that year has the same value (then the
  swapped sentence would still be true).
- :func:`label_swap` — the cited fact's line item (the row part of its label, found verbatim,
  case-insensitively, on word boundaries, in the answer) replaced by another fact's line item of
  the same unit, for which no fact of the same period has the cited value; the new item must name
  a line item (:func:`_nameable`: not a paragraph number's context, "Total", "Other", a
  placeholder "row 6", under four characters or over 16 words; a trailing " ." is cut).
- :func:`sum_periods` — for an answer citing ONE fact with one number, the number replaced by
  the sum of that fact and the same line item's other period (first in snapshot order), written
  at the same decimals and scale word, both ids cited.
- :func:`scale_word` — the first scale word swapped: million→billion, billion→million,
  thousand→million, 억→만, 만→억 (``$5.2 million`` → ``$5.2 billion``).

:func:`templated_case` builds a sentence from a TAT-QA question and its bare gold figure (the
template is in its docstring); the templated cases are reported as their own measured set.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assay.cases import Case
from assay.claims import DEFAULT_CITATION_PATTERN, extract_quantities, find_citations
from assay.facts import Fact
from assay.grounding.candidates import period_rank
from assay.grounding.labels import GENERIC_ITEMS, is_line_item

__all__ = [
    "CaseChange",
    "CLASSES",
    "moved_unit",
    "sign_word",
    "direction_word",
    "period_swap",
    "label_swap",
    "sum_periods",
    "scale_word",
    "templated_case",
    "line_item",
]

CaseChange = Callable[[Case], Case | None]


def moved_unit(case: Case) -> Case | None:
    """Every stated number moved by one displayed unit; None when the answer states no number."""
    from assay.grounding.validity import move_all_numbers  # validity imports this module

    if not extract_quantities(case.answer):
        return None
    return _with(case, move_all_numbers(case.answer), "moved_unit")


_SIGN_FLIPS = {
    "net income": "net loss",
    "operating income": "operating loss",
    "net profit": "net loss",
    "profit": "loss",
    "profits": "losses",
    "gain": "loss",
    "gains": "losses",
    "earned": "lost",
    "net loss": "net income",
    "operating loss": "operating income",
    "loss": "gain",
    "losses": "gains",
    "lost": "earned",
}
_POSITIVE = re.compile(r"\b(?:net income|operating income|net profit|profits?|gains?|earned)\b", re.I)
_NEGATIVE = re.compile(r"\b(?:net loss|operating loss|loss|losses|lost)\b", re.I)
_SIGN_ANY = re.compile(
    r"\b(?:net income|operating income|net profit|net loss|operating loss|profits?|gains?|earned|losses|loss|lost)\b",
    re.I,
)


def sign_word(case: Case) -> Case | None:
    """The profit/loss word around a stated figure flipped (``_SIGN_FLIPS``): the last such word
    within 60 characters before an unsigned number (or the first within 24 after it); None without
    one, or when the answer has both kinds ("gain (loss)")."""
    text = case.answer
    if not (_POSITIVE.search(text) is None) ^ (_NEGATIVE.search(text) is None):
        return None
    words = list(_SIGN_ANY.finditer(text))
    for q in extract_quantities(text):
        if q.explicit_sign:
            continue
        s, e = q.span
        before = [m for m in words if s - 60 <= m.end() <= s and _one_sentence(text, m.end(), s)]
        after = [m for m in words if e <= m.start() <= e + 24 and _one_sentence(text, e, m.start())]
        m = before[-1] if before else after[0] if after else None
        if m is not None:
            return _with(case, _replace(text, m, _SIGN_FLIPS[m.group(0).lower()]), "sign_word")
    return None


_DIRECTION_FLIPS = {
    "rose": "fell",
    "fell": "rose",
    "rise": "fall",
    "fall": "rise",
    "increased": "decreased",
    "decreased": "increased",
    "increase": "decrease",
    "decrease": "increase",
    "increases": "decreases",
    "decreases": "increases",
    "higher": "lower",
    "lower": "higher",
    "grew": "shrank",
    "shrank": "grew",
    "growth": "decline",
    "decline": "growth",
    "declined": "grew",
    "up": "down",
    "down": "up",
    "증가": "감소",
    "감소": "증가",
}
_DIRECTION = re.compile(
    r"\b(?:rose|fell|rise|fall|increased|decreased|increases|decreases|increase|decrease|higher|lower|grew|"
    r"shrank|growth|decline|declined|up|down)\b|증가|감소",
    re.I,
)


def direction_word(case: Case) -> Case | None:
    """The word of change that gives an unsigned number its direction, flipped (``_DIRECTION_FLIPS``).

    The word is the one right after the first such number ("a 2.8% decline", "the 10.3% increase"),
    else the last one within 60 characters before it ("up"/"down" only right before it), else the
    first within 24 after it; None when no number takes a direction from the
    wording, or when the answer has both an increase and a decrease word ("increase /
    (decrease)": a label, not a statement).
    """
    text = case.answer
    words = list(_DIRECTION.finditer(text))
    kinds = {_DIRECTION_FLIPS[m.group(0).lower()] in _UP for m in words}
    if not words or len(kinds) > 1:
        return None
    for q in extract_quantities(text):
        if q.direction is None or q.explicit_sign or q.value == 0:
            continue
        before = [m for m in words if q.span[0] - 60 <= m.end() <= q.span[0] and _governs(text, m, q.span[0])]
        after = [m for m in words if q.span[1] <= m.start() <= q.span[1] + 24]
        right_after = after and after[0].start() - q.span[1] <= 2  # "a 10.3% increase": the number's own word
        m = after[0] if right_after else before[-1] if before else after[0] if after else None
        if m is not None and _BOUND.match(text, m.start()):
            return None  # "up to $584 million" is a bound, "down to" a level: no change is stated
        if m is not None:
            return _with(case, _replace(text, m, _DIRECTION_FLIPS[m.group(0).lower()]), "direction_word")
    return None


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")  # "… $1,824 million. Investing activities lost …": not its word


def _one_sentence(text: str, a: int, b: int) -> bool:
    return _SENTENCE_END.search(text, a, b) is None


def _governs(text: str, m: re.Match[str], start: int) -> bool:
    """Whether direction word ``m`` before a number can give it its direction: "up"/"down" only
    right before it ("up 5%", "down by $3 million"; not "adding those up results in $16,525")."""
    return m.group(0).lower() not in ("up", "down") or re.fullmatch(r"\s+(?:by\s+)?", text[m.end() : start]) is not None


_BOUND = re.compile(r"(?:up|down)\s+to\b", re.I)
_UP = {"rose", "rise", "increased", "increase", "increases", "higher", "grew", "growth", "up", "증가"}


_YEAR = re.compile(r"(?<![\d.,])((?:19|20)\d{2})(?![\d,]|\.\d)")


def period_swap(case: Case) -> Case | None:
    """The first named year that is a cited fact's period replaced by another year of the snapshot."""
    cited = _cited_facts(case)
    if not cited:
        return None
    years = {y for f in case.facts if (y := _year(f.period)) is not None}
    cited_years = {y for f in cited if (y := _year(f.period)) is not None}
    named = {int(m.group(1)) for m in _YEAR.finditer(case.answer)}
    for m in _YEAR.finditer(case.answer):
        y = int(m.group(1))
        if y not in cited_years:
            continue
        others = sorted(years - named, key=lambda o: (abs(o - y), o))  # never "between 2019 and 2019"
        for o in others:
            if not _still_true(case, cited, _in_year(o)):
                return _with(case, case.answer[: m.start(1)] + str(o) + case.answer[m.end(1) :], "period_swap")
        return None
    return None


def label_swap(case: Case) -> Case | None:
    """The cited fact's line item replaced by another line item of the same unit (see module doc)."""
    cited = _cited_facts(case)
    if not cited:
        return None
    lower = case.answer.lower()
    for f in cited:
        item = line_item(f.label)
        if len(item) < 3:
            continue
        m = re.search(r"(?<![\w])" + re.escape(item.lower()) + r"(?![\w])", lower)
        if m is None:
            continue
        for g in case.facts:
            other = _nameable(line_item(g.label)) if is_line_item(g.label) else None  # not a paragraph's text
            if g.unit != f.unit or other is None or other.lower() == item.lower() or other.lower() in lower:
                continue
            if _still_true(case, cited, _of_item(line_item(g.label))):
                continue
            return _with(case, case.answer[: m.start()] + other + case.answer[m.end() :], "label_swap")
    return None


#: Table row names that name no line item: placeholders the importers give unlabelled rows.
_PLACEHOLDER = re.compile(r"row \d+", re.I)


def _nameable(item: str) -> str | None:
    """``item`` as a sentence would name a line item (trailing " ." / ":" cut), or None when it
    names none: generic rows ("Total", "Other"), placeholders ("row 6") and names under four
    characters ("USD", "Low") or over 16 words, which the gate's vocabulary leaves out by design
    (:class:`~assay.grounding.labels.SnapshotVocabulary`): swapping to them makes a vague
    sentence, not a false one."""
    name = re.sub(r"[\s.:;,]+$", "", item).strip()
    if len(name) < 4 or len(name.split()) > 16 or name.lower() in GENERIC_ITEMS or _PLACEHOLDER.fullmatch(name):
        return None
    return name


def sum_periods(case: Case) -> Case | None:
    """One figure of a one-fact answer replaced by that fact + the same line item's other period."""
    cited = _cited_facts(case)
    qs = extract_quantities(case.answer)
    if len(cited) != 1 or len(qs) != 1 or qs[0].explicit_sign:
        return None
    f, q = cited[0], qs[0]
    other = next(
        (
            g
            for g in case.facts
            if g.id != f.id
            and g.unit == f.unit
            and line_item(g.label).lower() == line_item(f.label).lower()
            and g.period
            and g.period != f.period
            and g.value * f.value > 0
        ),
        None,
    )
    if other is None or abs(f.value) < 1e-12 or abs(q.value) < 1e-12:
        return None
    total = q.value * (f.value + other.value) / f.value  # the sum in the answer's own scale
    digits = re.search(r"\d[\d,]*(?:\.\d+)?|\.\d+", case.answer[q.span[0] : q.span[1]])
    if digits is None:
        return None
    s = q.span[0] + digits.start()
    text = case.answer[:s] + f"{abs(total):,.{q.decimals}f}" + case.answer[s + len(digits.group(0)) :]
    text = re.sub(re.escape(f.id) + r"(?=\s*\])", f"{f.id}, {other.id}", text, count=1)
    return _with(case, text, "sum_periods")


_SCALE_FLIPS = {"million": "billion", "billion": "million", "thousand": "million", "억": "만", "만": "억"}
_SCALE = re.compile(r"(?<=\d)(\s?)(million|billion|thousand)s?\b|(?<=\d)(억|만)", re.I)


def scale_word(case: Case) -> Case | None:
    """The first scale word after a number swapped (``_SCALE_FLIPS``); None without one."""
    m = _SCALE.search(case.answer)
    if m is None:
        return None
    grp = 2 if m.group(2) else 3
    word = m.group(grp)
    new = _SCALE_FLIPS[word.lower()]
    text = case.answer[: m.start(grp)] + new + case.answer[m.end(grp) :]
    return _with(case, text, "scale_word")


#: The suite, in report order.
CLASSES: dict[str, CaseChange] = {
    "moved_unit": moved_unit,
    "sign_word": sign_word,
    "direction_word": direction_word,
    "period_swap": period_swap,
    "label_swap": label_swap,
    "sum_periods": sum_periods,
    "scale_word": scale_word,
}

_QUESTION = re.compile(r"^\s*(?:what|how much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?P<x>[^?]{3,160}?)\s*\??\s*$", re.I)
_CHANGE = re.compile(
    r"^(?:percentage\s+)?change\s+(?:in\s+)?(?:the\s+)?(?P<x>.+?)\s+(?P<p>(?:in|from|between)\s.+)$", re.I
)


def templated_case(case: Case) -> Case | None:
    """A sentence from a TAT-QA question and its bare gold figure, or None when the question is
    not of the form "What/How much is/was/were/are [the] X?".

    Template: ``"The {X} was {answer}."`` (``answer`` keeps its citation marker; a multi-span
    answer, one figure per sentence, becomes one list "A [c1], B [c2] and C [c3]"), except for a
    change question "… [percentage] change in X in/from/between P" with a signed gold figure,
    which becomes ``"The {X} {increased|decreased} by {|answer|} {P}."`` (the direction word
    carries the sign). ``variant="templated"``.
    """
    m = _QUESTION.match(case.question or "")
    if m is None:
        return None
    x = m.group("x")
    ch = _CHANGE.match(x)
    qs = extract_quantities(case.answer)
    if ch and len(qs) == 1 and qs[0].explicit_sign and qs[0].value != 0:
        q = qs[0]
        body = case.answer[q.span[0] : q.span[1]].replace("-", "", 1).replace("(", "").replace(")", "")
        rest = case.answer[: q.span[0]] + body + case.answer[q.span[1] :]
        verb = "increased" if q.value > 0 else "decreased"
        return _with(case, f"The {ch.group('x')} {verb} by {rest.strip()} {ch.group('p')}.", "templated")
    return _with(case, f"The {x} was {_as_list(case.answer.strip())}.", "templated")


_PIECE = r"[^\[\].]{1,40}(?:\.\d+[^\[\].]{0,20})?\[[^\]]+\]"


def _as_list(answer: str) -> str:
    """A multi-span gold answer ("4.1% [T2C3]. 4.6% [T2C2].", each figure its own sentence) as one
    list "4.1% [T2C3] and 4.6% [T2C2]", so that the template is one sentence; else ``answer``."""
    if not re.fullmatch(r"(?:\s*" + _PIECE + r"\.){2,}", answer):
        return answer
    pieces: list[str] = [p.strip() for p in re.findall(r"\s*(" + _PIECE + r")\.", answer)]
    return ", ".join(pieces[:-1]) + " and " + pieces[-1]


def line_item(label: str) -> str:
    """The row part of a ``"row | column"`` label (the label itself without a ``|``), stripped."""
    return label.split(" | ")[0].strip()


# --- helpers -------------------------------------------------------------------------------


def _with(case: Case, answer: str, variant: str) -> Case | None:
    if answer == case.answer:
        return None
    return case.model_copy(update={"answer": answer, "variant": variant})


def _replace(text: str, m: re.Match[str], new: str) -> str:
    old = m.group(0)
    if old[:1].isupper():
        new = new[:1].upper() + new[1:]
    return text[: m.start()] + new + text[m.end() :]


def _cited_facts(case: Case) -> list[Fact]:
    by_id = {f.id: f for f in case.facts}
    return [by_id[c] for c in dict.fromkeys(find_citations(case.answer, DEFAULT_CITATION_PATTERN)) if c in by_id]


def _year(period: str | None) -> int | None:
    r = period_rank(period)
    return r[0] if r else None


def _in_year(year: int) -> Callable[[Fact], bool]:
    return lambda f: _year(f.period) == year


def _of_item(item: str) -> Callable[[Fact], bool]:
    return lambda f: line_item(f.label).lower() == item.lower()


def _still_true(case: Case, cited: list[Fact], selects: Callable[[Fact], bool]) -> bool:
    """Whether some fact picked by ``selects`` has a cited fact's value (the change stays true)."""
    values = {f.value for f in cited}
    return any(selects(f) and f.value in values for f in case.facts)
