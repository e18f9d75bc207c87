"""Unchecked spans: number-like forms the reader sees but does not interpret (issue 15).

A gate must never pass a figure silently because the reader skipped it, so each form below is
reported as an :class:`Unchecked` span with its reason (the documented list; anything else
number-like is either read as a :class:`~assay.claims.quantities.Quantity` or is not a figure):

- ``"vague_quantity"``: a vague quantifier with a scale or unit — "several billion", "a few
  million", "many thousands", "hundreds of millions", "billions of dollars", "thousands of
  customers", "dozens of stores", and Korean 수/몇 amounts ("수천억원", "수조 원", "몇 억");
- ``"dozen"``: "a dozen", "dozens", "half a dozen" (a count the reader does not take as 12);
- ``"approximate_word"``: an ``-ish`` number — "a dozen-ish", "twenty-ish", "20-ish";
- ``"vague_fraction"``: "a fraction of", "a small/large fraction of", "a multiple of";
- ``"hedged_multiple"``: "nearly/almost/more than/roughly/about/over doubled" (and tripled,
  quadrupled, halved): a bound or an approximation of a ratio, not the ratio;
- ``"spelled_decimal"``: "two point five percent";
- ``"mixed_fraction"``: "two and a half", "one and a half times";
- ``"indefinite_scale"``: "a million", "a billion dollars", "a thousand", "a hundred";
- ``"roman_numeral_amount"``: Roman numerals with a scale or percent — "XII million";
- ``"unread_multiple"``: a multiple or a part the reader does not take as a ratio — "threefold",
  "5-fold", "twice as high as", "twice the", "thrice", "fell by half", "by a third", "one-third
  higher" (issue 15: a new user found them passed silently).

A span that overlaps a quantity the reader did read is not reported (``"$5 million"`` is read,
never unchecked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask
from assay.claims.quantities import extract_masked

__all__ = ["Unchecked", "find_unchecked", "unchecked_masked"]


@dataclass(frozen=True)
class Unchecked:
    """A number-like form the reader saw but did not interpret.

    ``text`` is the span's text, ``span`` its code-point offsets ``[start, end)``, ``reason`` one of
    the codes in :mod:`assay.claims.unchecked` (``"vague_quantity"``, ``"hedged_multiple"`` …)."""

    text: str
    span: tuple[int, int]
    reason: str


def find_unchecked(
    text: str, *, citation_pattern: str = DEFAULT_CITATION_PATTERN, read: list[tuple[int, int]] | None = None
) -> list[Unchecked]:
    """Every unchecked span of ``text``, in order (forms and reasons in the module docstring).

    ``read``: spans already read as quantities (overlapping forms are dropped); when None, the
    answer reader is run (``extract_quantities(text, words=True)``) to find them."""
    masked = mask(text, re.compile(citation_pattern), keep_fractions=True)
    if read is None:
        read = [q.span for q in extract_masked(masked, words=True)]
    return unchecked_masked(masked, read)


def unchecked_masked(
    masked: str, read: list[tuple[int, int]], tokens: set[str] | frozenset[str] | None = None
) -> list[Unchecked]:
    """:func:`find_unchecked` on an already masked text with the read spans given; ``tokens`` its
    lowercased words when known (:attr:`assay.claims.wording.WordIndex.tokens`)."""
    if not _may_hold_unchecked(masked, tokens):
        return []  # the common path: none of the forms' words at all
    forms = _forms_for(masked, tokens)
    if forms is None:
        return []
    found: list[Unchecked] = []
    for m in forms.finditer(masked):
        span = m.span()
        if any(a < span[1] and span[0] < b for a, b in read):
            continue
        reason = next(k for k, v in m.groupdict().items() if v is not None)
        found.append(Unchecked(masked[span[0] : span[1]], span, reason))
    return found


_SCALE = r"(?:thousands?|millions?|billions?|trillions?|percent|percentage\s+points?|dollars?|euros?)"
_CARD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
)
_MIXED_UNIT = r"(?:\s+(?:times|" + _SCALE + r")\b)?"
_MULT = r"(?:doubled|tripled|trebled|quadrupled|halved)"

_VAGUE_HEADS = frozenset("several few many numerous multiple some".split())
_SCALE_RUNS = frozenset(
    "thousand thousands million millions billion billions trillion trillions percent percentage dollar dollars "
    "euro euros".split()
)
_PLURAL_SCALES = frozenset("tens dozens hundreds thousands millions billions trillions".split())
_SINGULAR_SCALES = frozenset("hundred thousand million billion trillion".split())
_ROMAN_SCALES = frozenset("thousand million billion trillion percent".split())
_DOZENS = frozenset(("dozen", "dozens"))
_FRACTION_NOUNS = frozenset(("fraction", "multiple"))
_MULT_RUNS = frozenset("doubled tripled trebled quadrupled halved".split())
_A_AN = frozenset(("a", "an"))
_HALVES = frozenset("half third quarter".split())
_CARD_RUNS = frozenset(_CARD[3:-1].split("|"))
_MULTIPLE_RUNS = frozenset("fold twice thrice half third quarter".split())

#: The forms as ``(reason, pattern, condition)`` branches, in the order they are tried; the
#: condition is a NECESSARY condition for the branch to match anywhere in the text, on the set
#: of its lowercased letter runs (``[a-z]+``; every keyword a branch matches stands between
#: non-letters, so it is one whole run) and the text itself (for the two branches whose words
#: are common — "a million", "XII million" — a look at the words before each scale word of the
#: lowercased text, :func:`_heads_before_scales`: the ``re.I`` branch is tried at every position).
_Cond = Callable[[frozenset[str] | set[str], str], bool]
_BRANCHES: tuple[tuple[str, str, _Cond | None], ...] = (
    (
        "vague_quantity",
        r"\b(?:several|a\s+few|few|many|numerous|multiple|some)\s+(?:tens\s+of\s+|hundreds\s+of\s+)?" + _SCALE + r"\b",
        lambda r, t: bool(r & _VAGUE_HEADS and r & _SCALE_RUNS),
    ),
    (
        "vague_quantity",
        r"(?<!\bin\s)\b(?:tens|dozens|hundreds|thousands|millions|billions|trillions)\s+of\s+[A-Za-z]+",
        lambda r, t: bool("of" in r and r & _PLURAL_SCALES),
    ),
    ("vague_quantity", r"(?:수|몇)\s?[십백천]?\s?[만억조](?:\s?원)?", lambda r, t: "수" in t or "몇" in t),
    (
        "approximate_word",
        r"\b(?:a\s+)?(?:dozen|" + _CARD + r"(?:-" + _CARD + r")?|\d+)-ish\b",
        lambda r, t: "ish" in r,
    ),
    ("dozen", r"\b(?:half\s+a\s+dozen|a\s+dozen|dozens)\b", lambda r, t: bool(r & _DOZENS)),
    (
        "vague_fraction",
        r"\ba\s+(?:small\s+|large\s+|tiny\s+|sizable\s+)?(?:fraction|multiple)\s+of\b",
        lambda r, t: bool("a" in r and "of" in r and r & _FRACTION_NOUNS),
    ),
    (
        "hedged_multiple",
        r"\b(?:nearly|almost|more\s+than|less\s+than|roughly|about|approximately|over|close\s+to|"
        r"just\s+under|just\s+over|some)\s+" + _MULT + r"\b",
        lambda r, t: bool(r & _MULT_RUNS),
    ),
    (
        "spelled_decimal",
        r"\b" + _CARD + r"\s+point\s+(?:" + _CARD + r"|zero)\b(?:\s+" + _SCALE + r"\b)?",
        lambda r, t: bool("point" in r and r & _CARD_RUNS),
    ),
    (
        "mixed_fraction",
        r"\b(?:" + _CARD + r"|a)\s+and\s+(?:a|one)\s+(?:half|third|quarter)\b" + _MIXED_UNIT,
        lambda r, t: bool("and" in r and r & _HALVES),
    ),
    (
        "indefinite_scale",
        r"\ban?\s+(?:hundred|thousand|million|billion|trillion)\b(?!\s+(?:and|of)\b)",
        None,  # "a"/"an", whitespace, a scale word: _heads_before_scales
    ),
    (
        "roman_numeral_amount",
        r"\b[IVXLCDM]{2,}\s+(?:thousand|million|billion|trillion|percent)\b",
        None,  # two Roman-numeral letters, whitespace, a scale word: _heads_before_scales
    ),
    (
        "unread_multiple",
        r"\b(?:\d+(?:\.\d+)?|" + _CARD + r"|hundred)[-\s]?fold\b|\btwice\s+(?:as\s+[a-z]+\s+as|the)\b|\bthrice\b"
        r"|\bby\s+(?:a\s+|one\s+)?(?:half|third|quarter)\b|\b(?:one|a)[-\s](?:half|third|quarter)\s+"
        r"(?:higher|lower|more|less|above|below|larger|smaller)\b",
        lambda r, t: bool(r & _MULTIPLE_RUNS) or any(w.endswith("fold") for w in r),
    ),
)


def _alternation(branches: Sequence[tuple[str, str]]) -> str:
    """``(?P<reason>p1|p2)|(?P<reason2>p3)…``: consecutive branches of one reason share a group."""
    groups: list[tuple[str, list[str]]] = []
    for reason, pattern in branches:
        if groups and groups[-1][0] == reason:
            groups[-1][1].append(pattern)
        else:
            groups.append((reason, [pattern]))
    return "|".join(f"(?P<{reason}>" + "|".join(patterns) + ")" for reason, patterns in groups)


#: Every form, one pattern (the reference scan; :func:`_forms_for` drops the branches a text
#: cannot hold, which leaves every match unchanged and is ~50× faster on a 400-word memo).
_FORMS = re.compile(_alternation([(reason, pattern) for reason, pattern, _ in _BRANCHES]), re.I)


@lru_cache(maxsize=256)
def _compiled(kept: tuple[int, ...]) -> re.Pattern[str]:
    """The alternation of the branches ``kept`` (indices into :data:`_BRANCHES`, in order)."""
    return re.compile(_alternation([_BRANCHES[i][:2] for i in kept]), re.I)


def _forms_for(masked: str, tokens: set[str] | frozenset[str] | None) -> re.Pattern[str] | None:
    """The pattern :data:`_FORMS` reduced to the branches ``masked`` can match (None: none can).

    Dropping a branch that matches nowhere in the text changes no match of the scan (at each
    position the branches are tried in order, and a dropped one fails there anyway). A text
    with a non-ASCII character that ``re.I`` folds onto an ASCII letter (``ı``, ``İ``, ``ſ``,
    the Kelvin sign) is scanned with every branch: its lowercased runs may miss a keyword."""
    if not masked.isascii() and _FOLDS_TO_ASCII.search(masked):
        return _FORMS
    if tokens is None:
        tokens = set(_WORD.findall(masked.lower()))
    runs = {part for t in tokens for part in t.split("-")} if any("-" in t for t in tokens) else tokens
    kept = [i for i, (_, _, cond) in enumerate(_BRANCHES) if cond is not None and cond(runs, masked)]
    indefinite = bool(runs & _A_AN and runs & _SINGULAR_SCALES)
    roman = bool(runs & _ROMAN_SCALES) and any(len(w) > 1 and not w.strip("ivxlcdm") for w in runs)
    if indefinite or roman:
        a_scale, roman_scale = _heads_before_scales(masked.lower(), runs & (_SINGULAR_SCALES | _ROMAN_SCALES))
        kept += [i for i, ok in ((_INDEFINITE, indefinite and a_scale), (_ROMAN_AMOUNT, roman and roman_scale)) if ok]
    return _compiled(tuple(sorted(kept))) if kept else None


def _heads_before_scales(low: str, scales: set[str] | frozenset[str]) -> tuple[bool, bool]:
    """Whether lowercased ``low`` has, right before one of ``scales`` and whitespace, ``a``/``an``
    (the core of the indefinite-scale branch) and two Roman-numeral letters (of the Roman one).
    Found from the few scale words back, each with a literal-first search (in C; one regex
    alternation of them is ~15× slower) that also steps over the words right after a figure
    ("5 million", most of a memo's; ``tests/claims/test_fast_paths_numbers.py``)."""
    indefinite = roman = False
    for word in scales:
        for m in _NOT_AFTER_A_FIGURE[word].finditer(low):  # (one after "5 " is neither: skipped in C)
            k = m.start()
            j = k
            while j > 0 and low[j - 1].isspace():  # str.isspace() is re's \s (checked over all of Unicode)
                j -= 1
            if 1 <= j < k:
                if word in _SINGULAR_SCALES and (low[j - 1] == "a" or low[j - 2 : j] == "an"):
                    indefinite = True
                if word in _ROMAN_SCALES and low[j - 2 : j].isalpha() and not low[j - 2 : j].strip("ivxlcdm"):
                    roman = True
                if indefinite and roman:
                    return True, True
    return indefinite, roman


#: Each scale word where it does not follow a digit and one space ("5 million": the letters
#: before its whitespace are neither "a"/"an" nor Roman numerals), literal first; no scale word
#: overlaps itself, so these are the word's occurrences that ``str.find`` stepped to, less those.
_NOT_AFTER_A_FIGURE = {
    w: re.compile(re.escape(w) + r"(?<!\d " + re.escape(w) + ")") for w in _SINGULAR_SCALES | _ROMAN_SCALES
}
_INDEFINITE = next(i for i, b in enumerate(_BRANCHES) if b[0] == "indefinite_scale")
_ROMAN_AMOUNT = next(i for i, b in enumerate(_BRANCHES) if b[0] == "roman_numeral_amount")
#: The only non-ASCII code points ``re.I`` matches to an ASCII letter (checked over all of Unicode).
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def _may_hold_unchecked(masked: str, tokens: set[str] | frozenset[str] | None) -> bool:
    """Cheap pre-check (set operations): could any form above occur in ``masked``?

    A necessary condition of the full scan: every keyword is a whole letter run (a hyphenated
    token "dozens-strong" is split into its runs), and a text with a character ``re.I`` folds
    onto an ASCII letter (the Kelvin sign, ``ſ``) always goes on to the scan, as
    :func:`_forms_for` does (its lowercased words may not be the scan's)."""
    if not masked.isascii() and _FOLDS_TO_ASCII.search(masked):
        return True
    if tokens is None:
        tokens = set(_WORD.findall(masked.lower()))
    if any("-" in t for t in tokens):
        tokens = {part for t in tokens for part in t.split("-")}
    if tokens & _ALWAYS or "-ish" in masked or tokens & _MULTIPLE_RUNS or "fold" in masked:
        return True
    if tokens & _SCALE_WORDS and (tokens & _NEEDS_SCALE or _ROMAN.search(masked)):
        return True
    if "and" in tokens and tokens & _HALVES:
        return True
    return not masked.isascii() and _KR_VAGUE.search(masked) is not None


_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
#: Words that make a form on their own ("dozens", "doubled" after a hedge, "a fraction of" …).
_ALWAYS = frozenset(
    "tens dozen dozens hundreds thousands millions billions trillions fraction multiple point doubled tripled "
    "trebled quadrupled halved".split()
)
_SCALE_WORDS = frozenset(
    "hundred thousand thousands million millions billion billions trillion trillions percent dollars dollar euros "
    "euro percentage".split()
)
#: Words that make a form only beside a scale or unit word ("several billion", "a million").
_NEEDS_SCALE = frozenset("several few many numerous some a an".split())
_ROMAN = re.compile(r"\b[IVXLCDM]{2,}\s")
_KR_VAGUE = re.compile(r"[수몇]\s?[십백천]?\s?[만억조]")
