"""The wording look-ups' first-character pre-checks and the word index's token set change
nothing (speed, 0f5c384 → cx).

:func:`~assay.claims.wording.direction_after`, :meth:`WordIndex.negative_word
<assay.claims.wording.WordIndex.negative_word>` and :func:`~assay.claims.wording.change_base_at`
try their pattern after a number only when the first character it could start with (after the
whitespace) is an initial of one of its branches: every branch's first letter is among the
initials, and the look-ups give what the bare patterns give on generated text. The index's
set of words (:func:`~assay.claims.wording._tokens`) is the word pattern's, and its clause dot
(:data:`~assay.claims.patterns.CLAUSE_DOT`, look-behinds grouped by length) matches what one
look-behind per abbreviation matched.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import wording as w
from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask
from assay.claims.patterns import ABBREVIATIONS, CLAUSE_DOT


def _direction_reference(text: str, end: int) -> int | None:
    m = w._DIRECTION_AFTER.match(text, end, min(len(text), end + 24))
    return None if m is None else (1 if m.group("up") or m.group("kup") else -1)


def _negative_after_reference(text: str, end: int) -> str | None:
    m = w._NEGATIVE_AFTER.match(text, end, min(len(text), end + 20))
    return None if m is None else (m.group("w") or m.group("w2")).lower()


def _base_reference(text: str, start: int, end: int) -> tuple[str | None, int | None]:
    after = w._BASE_AFTER.match(text, end, min(len(text), end + 30))
    if after is not None:
        return (
            ("against_other", 1)
            if after.group("up")
            else ("against_other", -1)
            if after.group("down")
            else (
                "from_base",
                None,
            )
        )
    window = text[max(0, start - 100) : start]
    if "by" in window and (m := w._EXCEEDED_BY.search(window)) is not None:
        return "against_other", (-1 if m.group("less") else 1)
    return ("from_base", None) if "대비" in window[-20:] else (None, None)


_WORDS = [
    "increase", "Increases", "growth", "rise", "gain", "GAINS", "higher", "jump", "decrease", "declines", "drop",
    "fall", "reduction", "lower", "contraction", "loss", "Losses", "deficit", "net", "operating", "pre-tax",
    "pretax", "comprehensive", "greater", "more", "larger", "bigger", "above", "less", "smaller", "below", "than",
    "from", "over", "versus", "vs.", "vs", "against", "compared", "with", "to", "relative", "in FY2022", "by",
    "exceeded", "trailed", "fell short of", "and", "the", "in", "of", "x", "İ", "ı", "ſmaller", "\u212a",
    "증가", "감소", "이", "가", "손실", "의", "순", "적자", "대비", "$5", "12%", "3.5", "[F1]", "é",
]  # fmt: skip
_SEPS = [" ", "  ", "", "\n", "\t", ", ", ". ", "      ", "\u00a0"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPS)), max_size=10))
def test_property_wording_prechecks_are_the_patterns(parts):
    text = mask("".join(a + b for a, b in parts), re.compile(DEFAULT_CITATION_PATTERN))
    index = w.WordIndex(text)
    for end in range(len(text) + 1):
        assert w.direction_after(text, end) == _direction_reference(text, end), (text, end)
        for start in {0, max(0, end - 3), end}:
            assert w.change_base_at(text, start, end) == _base_reference(text, start, end), (text, start, end)
        if not index.neg:
            assert index.negative_word(end, end) == _negative_after_reference(text, end), (text, end)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="abzAZ-- \n\t.,'5é\u00a0İ", max_size=30))
def test_property_tokens_are_the_word_pattern(text):
    for low in (text.lower(), text.encode("ascii", "replace").decode().lower()):
        assert w._tokens(low) == set(w._WORD.findall(low))


_ONE_PER_ABBREVIATION = r"\.(?=\s)(?<!\b[A-Z]\.)(?<!\.\.\.)" + "".join(
    rf"(?<!(?i:\b{re.escape(a)}\.))" for a in sorted(ABBREVIATIONS, key=len, reverse=True)
)  # CLAUSE_DOT before its look-behinds were grouped by length (with gate-13's "..." that cuts no clause)
_DOT_PARTS = [
    *sorted(ABBREVIATIONS),
    "INC",
    "Approx",
    "U.S",
    "x",
    "S",
    "ab",
    "İnc",
    "ſt",
    "\u212ao",
    " ",
    ".",
    "\n",
    "5",
]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_DOT_PARTS), max_size=10), st.sampled_from([". ", ".", " ", "-", ".\n"]))
def test_property_grouped_clause_dot_is_one_look_behind_per_abbreviation(parts, sep):
    text = sep.join(parts) + sep
    grouped, single = re.compile(CLAUSE_DOT), re.compile(_ONE_PER_ABBREVIATION)
    assert [m.span() for m in grouped.finditer(text)] == [m.span() for m in single.finditer(text)], text


def _first(items) -> tuple[set[str], bool]:
    """The characters a parsed (``re._parser``) sequence can match first, and whether it can
    match empty; whitespace categories are ``"\\s"``, zero-width items are skipped."""
    out: set[str] = set()
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            return out | {chr(arg)}, False
        if name == "IN":
            for kind, value in arg:
                if str(kind) == "LITERAL":
                    out.add(chr(value))
                elif str(kind) == "RANGE":
                    out |= {chr(c) for c in range(value[0], value[1] + 1)}
                else:
                    out.add("\\s" if str(value) == "CATEGORY_SPACE" else "?")
            return out, False
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue
        if name == "SUBPATTERN":
            first, empty = _first(arg[-1])
        elif name == "BRANCH":
            firsts = [_first(branch) for branch in arg[1]]
            first, empty = set().union(*(f for f, _ in firsts)), any(e for _, e in firsts)
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            first, empty = _first(arg[2])
            empty = empty or arg[0] == 0
        else:
            return out | {"?"}, False
        out |= first
        if not empty:
            return out, False
    return out, True


def _initials(pattern: re.Pattern[str]) -> set[str]:
    """The characters other than whitespace a match of ``pattern`` can start with, lowercased."""
    first, _ = _first(re._parser.parse(pattern.pattern, pattern.flags))  # type: ignore[attr-defined]
    return {c.lower() for c in first if c not in (" ", "\\s")}


def test_every_initial_the_patterns_start_with_is_listed():
    for pattern, initials in (
        (w._DIRECTION_AFTER, w._DIRECTION_INITIALS),
        (w._NEGATIVE_AFTER, w._NEGATIVE_INITIALS),
        (w._BASE_AFTER, w._BASE_INITIALS),
    ):
        assert pattern.flags & re.I
        found = _initials(pattern)
        assert "?" not in found
        assert {c for c in found if c.isascii()} <= initials, pattern.pattern
