"""Source-passage reading's pre-checks never skip a line their pattern would match (issue 15, speed)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.grounding import passages as p

_PARTS = [
    "(in millions)", "In Thousands", "$ in billions", "amounts in MILLIONS", "per share", "Per Diluted Share",
    "EPS", "eps", "Revenue", "1,577.3", "|", " ", "ſ", "\u212a", "ı", "thouſands", "per\tcommon share", "(",
    "—", "’", "é", "\u0130", "\u00a0", "£",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PARTS), max_size=6), min_size=1, max_size=4), st.sampled_from(["\n", "\r\n"]))
def test_property_header_and_per_share_prechecks_are_necessary(lines, end):
    """Every line the header or per-share pattern matches is among the lines ``_lines_holding`` finds."""
    passage = end.join(" ".join(parts) for parts in lines)
    _, starts = p._quantities_by_line(passage)
    low = p._plain_lower(passage)
    headers, per_share = (p._lines_holding(low, w, starts) for w in (p._HEADER_WORDS, p._PER_SHARE_WORDS))
    for li, line in enumerate(passage.splitlines(), start=1):
        if p._HEADER.search(line):
            assert headers is None or li in headers
        if p._PER_SHARE.search(line):
            assert per_share is None or li in per_share


_SCALE_PARTS = [
    "million", "Millions", "BILLION", "thousands", "Thousand", "millionaire", "xmillion", "_million", "million2",
    "thousandths", "billions.", "(in millions)", "$2.1 billion", "|", " ", "-", "\n", "ſ", "\u212a", "mıllion", "9",
    "—", "’", "é", "émillion", "\u0130", "\u00a0",
]  # fmt: skip


def _scales_reference(passage: str) -> frozenset[float]:
    """What ``parse_passages`` computed before the ASCII fast path: every match of the ``re.I`` pattern
    (by the word's first letter: "mıllion", "thouſand" match it too)."""
    return frozenset({"t": 1e3, "m": 1e6, "b": 1e9}[m.group(1)[0].lower()] for m in p._SCALE_NAMED.finditer(passage))


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_SCALE_PARTS), max_size=8), st.sampled_from(["", " "]))
def test_property_scales_named_equals_the_case_insensitive_scan(parts, sep):
    passage = sep.join(parts)
    assert p._scales_named(passage, p._plain_lower(passage)) == tuple(sorted(_scales_reference(passage)))


def _named(passage: str) -> frozenset[float]:
    return frozenset(p._scales_named(passage, p._plain_lower(passage)))


def test_scales_named_examples():
    assert _named("Revenue (in millions) | 2019\n$2.1 Billion total") == frozenset({1e6, 1e9})
    assert _named("millionaire thousandths xmillion _million") == frozenset()
    assert _named("million2 THOUSANDS") == frozenset({1e3})  # "million2" is one token: no word boundary
    assert _named("über 5 millions") == frozenset({1e6})  # non-ASCII, no folding character: lowered
    assert p._plain_lower("über 5 millions") == "über 5 millions"


def test_the_characters_that_fold_onto_ascii_letters_are_the_four():
    """Over all of Unicode: the non-ASCII characters ``re.I`` matches with an ASCII character are
    exactly those of ``_FOLDS_ONTO_ASCII``; ``lower()`` keeps every other length, maps no other
    onto ASCII, and keeps whether a character is a word character (``\\w``, for ``\\b``)."""
    import re

    ascii_class, word = re.compile(r"[\x00-\x7f]", re.I), re.compile(r"\w")
    folds, longer, to_ascii, word_changes = set(), set(), set(), set()
    for cp in range(0x80, 0x110000):
        ch = chr(cp)
        if ascii_class.fullmatch(ch):
            folds.add(ch)
        low = ch.lower()
        if len(low) != 1:
            longer.add(ch)
        elif low.isascii():
            to_ascii.add(ch)
        elif bool(word.match(ch)) != bool(word.match(low)):
            word_changes.add(ch)
    assert folds == set(p._FOLDS_ONTO_ASCII.pattern[1:-1])
    assert longer <= folds and to_ascii <= folds and not word_changes


def test_scale_word_with_a_dotless_i_is_read_not_a_crash():
    # found by the property test above: "mıllion" matches the re.I pattern and was looked up as
    # "mıllion" (a KeyError out of parse_passages, so out of an uncited gate on such a page)
    assert _named("in mıllions") == frozenset({1e6})
    assert _named("thouſand") == frozenset({1e3})


def test_a_scale_header_with_a_dotless_i_is_read_not_a_crash():
    # the same KeyError at the header rule: "(in mıllions)" matches _HEADER under re.I
    got = p.parse_passages(["Revenue (in m\u0131llions)\nTotal | 5.2"])
    plain = p.parse_passages(["Revenue (in millions)\nTotal | 5.2"])
    assert [c.value for c in got.direct] == [c.value for c in plain.direct] and got.direct


@settings(max_examples=300, deadline=None)
@given(
    st.floats(allow_nan=False),
    st.sampled_from(["currency", "percent", "amount", "none", "per_share"]),
    st.sampled_from([None, "USD", "EUR"]),
    st.one_of(st.none(), st.floats(allow_nan=False)),
    st.sampled_from([None, (), (1e6,), (1e3, 1e9)]),
    st.sampled_from([None, 2019]),
)
def test_property_make_candidate_is_the_dataclass_construction(value, dim, currency, displayed, scales, year):
    """``make_candidate`` (passage numbers, facts, derivations) builds what ``Candidate(...)`` builds."""
    from dataclasses import fields, replace

    from assay.grounding.candidates import Candidate, make_candidate

    label = "Revenue | 2019"
    kw = {"origin": "passage", "page_scales": scales, "column_year": year}
    fast = make_candidate(value, dim, "S1:L2", label, currency, displayed, **kw)  # type: ignore[arg-type]
    slow = Candidate(value, dim, "S1:L2", label, currency, displayed, **kw)  # type: ignore[arg-type]
    assert fast == slow and hash(fast) == hash(slow) and vars(fast) == vars(slow)
    assert [f.name for f in fields(Candidate)] == list(vars(fast))
    assert replace(fast, column_year=2018) == replace(slow, column_year=2018)
    args = (value, dim, "F1+F2", "", currency, displayed, ("F1", "F2"), "a-b", "derived")
    kw = {"period": "FY2019", "chrono": year is None, "operands": (slow, fast), "digits": displayed}
    made, built = make_candidate(*args, **kw), Candidate(*args, **kw)  # type: ignore[arg-type]
    assert made == built and hash(made) == hash(built) and vars(made) == vars(built)


def test_passage_candidate_is_make_candidate_of_a_passage_number():
    """``passage_candidate`` (the passage reader's, positional) builds what ``make_candidate`` and
    ``Candidate(...)`` build for a passage number: every field, in order."""
    from dataclasses import fields

    from assay.claims import Quantity
    from assay.grounding.candidates import Candidate, make_candidate, passage_candidate

    q = Quantity(text="1.5", span=(10, 13), value=1.5)
    args = (1.5e6, "amount", "S1:L3", "Revenue", None, 1.5)
    kw = {"origin": "passage", "page_scales": (1e6,), "column_year": 2019, "page_names_change": True}
    fast = passage_candidate(q, 1e6, "S1:L3", "Revenue", (1e6,), 2019, True)
    assert fast == make_candidate(*args, **kw) == Candidate(*args, **kw)  # type: ignore[arg-type]
    assert vars(fast) == vars(Candidate(*args, **kw)) and list(vars(fast)) == [f.name for f in fields(Candidate)]
    assert hash(fast) == hash(Candidate(*args, **kw))  # type: ignore[arg-type]
    usd = passage_candidate(
        Quantity(text="$2.1 billion", span=(0, 12), value=2.1, scale=1e9, unit="USD"), 1e6, "S1:L1", "", (), None, False
    )
    assert (usd.value, usd.dim, usd.currency, usd.displayed) == (2.1e9, "currency", "USD", 2.1)


def test_passage_candidates_hold_nothing_the_collector_tracks():
    """A passage number's instance dict holds only untracked objects (its page's scales are one shared
    tuple of floats, not a frozenset): the cyclic collector never traverses it."""
    import gc

    from assay.grounding.passages import parse_passages

    gc.collect()  # (the shared tuples are untracked by the first collection after import)
    direct = parse_passages(("(in millions)\nRevenue | $ 1,234 | 1,100 | 12.2%\nNet income was $5.2 billion.",)).direct
    assert direct and all(not gc.is_tracked(vars(c)) for c in direct)
    assert direct[0].page_scales == (1e6, 1e9)
