"""The sentence reader's fast paths give what the slow paths give (issue 15 latency follow-up).

Each fast path is checked against the plain computation it skips or replaces: the ASCII word
pre-checks never skip a regex that would match, the trie matcher of named line items finds the
spans the longest-first alternation finds, and the cached helpers equal their uncached bodies.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.grounding.label_rule import names_own_item
from assay.grounding.labels import CONCEPTS, _alternation, is_line_item, line_item
from assay.grounding.lexicon import (
    CROSS,
    CROSS_PERIOD_WORDS,
    GAIN_WORDS,
    LOSS_WORDS,
    POLARITY,
    QSIGN,
    QUESTION_SIGN_WORDS,
    SUM,
    SUM_WORDS,
    may_cross,
    may_name,
    may_polar,
    may_sum,
    text_licences,
    total_over_years,
)

WORDS = [*SUM_WORDS, *CROSS_PERIOD_WORDS, *LOSS_WORDS, *GAIN_WORDS, *QUESTION_SIGN_WORDS]
WORDS += ["total", "respectively", "2019", "FY19"]
# pieces that stress case folding and boundaries: the re.I extras (ſ, ı, İ, K), digits, punctuation
PIECES = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(["ſum", "loſs", "ıncome", "İn total", "Kelvin", "-", ",", ". ", " ", "$5", "(loss)", "x"]),
    st.text(alphabet="abcdefghilnorstuLOSTNG _-.,()0123456789ſıİK합계손실", max_size=6),
)
TEXTS = st.lists(PIECES, max_size=12).map(lambda parts: "".join(p if i % 2 else p.upper() for i, p in enumerate(parts)))


def _slow_alternation(names: set[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


def _spans(alternation: str, text: str) -> list[tuple[int, int, str]]:
    rx = re.compile(r"(?<![\w])(?:" + alternation + r")(?![\w])", re.I)
    return [(m.start(), m.end(), m.group(0).lower()) for m in rx.finditer(text)]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_word_prechecks_never_skip_a_match(text: str) -> None:
    assert may_sum(text) or SUM.search(text) is None
    assert may_cross(text) or CROSS.search(text) is None
    assert may_polar(text) or POLARITY.search(text) is None
    assert may_name(("total",), text) or re.search(r"\btotal\b", text, re.I) is None
    assert may_name(QUESTION_SIGN_WORDS, text) or QSIGN.search(text) is None


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_total_over_years_equals_its_plain_form(text: str) -> None:
    plain = bool(text) and (SUM.search(text) is not None or re.search(r"\btotal\b", text, re.I) is not None)
    plain = plain and re.search(r"(?:19|20)\d{2}\D{1,12}(?:19|20)\d{2}", text) is not None
    assert total_over_years(text) == plain


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXTS, TEXTS.map(lambda t: t + " 2019 and 2018")))
def test_text_licences_equal_the_plain_word_scans(text: str) -> None:
    """One lowered copy for every pre-check: the licences the sentence reader computed with a
    lowering per pre-check (and, without pre-checks, the plain regexes)."""
    cross = CROSS.search(text) is not None
    plain_cross = cross or total_over_years(text)
    assert text_licences(text) == (SUM.search(text) is not None or plain_cross, plain_cross)


NAME = st.text(alphabet="abcdeinorst -&'", min_size=1, max_size=8).map(str.strip).filter(bool)
NAMES = st.sets(st.one_of(NAME, st.sampled_from(sorted(CONCEPTS))), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(NAMES, st.data())
def test_trie_matcher_finds_the_alternations_spans(names: set[str], data: st.DataObject) -> None:
    pieces = st.one_of(st.sampled_from(sorted(names)), PIECES, st.sampled_from([" ", ", ", "s", "-"]))
    parts = data.draw(st.lists(pieces, max_size=10))
    text = "".join(p.upper() if i % 3 == 1 else p for i, p in enumerate(parts))
    assert _spans(_alternation(names), text) == _spans(_slow_alternation(names), text)


def test_trie_matcher_prefers_the_longest_name_that_ends_on_a_boundary() -> None:
    names = {"cash", "cash and cash equivalents", "cash and", "net sales", "sales"}
    text = "Cash and cash equivalents, cash andx and net sales rose; sales-cash."
    assert _spans(_alternation(names), text) == _spans(_slow_alternation(names), text)
    assert _spans(_alternation(names), text)[0] == (0, 25, "cash and cash equivalents")


def test_upper_case_or_cased_non_ascii_names_use_the_plain_alternation() -> None:
    assert _alternation({"Revenue", "net sales"}) == _slow_alternation({"Revenue", "net sales"})
    assert _alternation({"ſales", "sales"}) == _slow_alternation({"ſales", "sales"})


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.lists(st.sampled_from(["net sales", "cash", "loss", "total", "sum", "ſum"]), min_size=1, max_size=3))
def test_names_own_item_equals_a_plain_scan(text: str, labels: list[str]) -> None:
    low = text.lower()
    plain = any(re.search(r"(?<![\w])" + re.escape(line_item(lab)) + r"(?![\w])", low) is not None for lab in labels)
    assert names_own_item(text, labels) == plain


@given(st.text(max_size=40))
def test_cached_line_item_helpers_equal_their_bodies(label: str) -> None:
    assert line_item(label) == label.split(" | ")[0].strip().lower()
    assert is_line_item(label) == (
        bool(label)
        and not label.startswith(("…", "..."))
        and not label.endswith(("…", "..."))
        and len(label) <= 160
        and len(label.split(" | ")[0].strip().lower().split()) <= 16
    )


def test_read_context_memo_equals_a_fresh_read_and_keys_on_vocabulary_content() -> None:
    from assay.claims import extract_claims
    from assay.facts import Fact, Snapshot
    from assay.grounding.context import SentenceContext
    from assay.grounding.index import SnapshotIndex
    from assay.grounding.lead_period import with_lead_year
    from assay.grounding.sentence_rules import read_context

    facts = [Fact(id="F1", label="Net sales", value=5.0, unit="USD millions", period="FY2019")]
    facts.append(Fact(id="F2", label="Net loss", value=2.0, unit="USD millions", period="FY2018"))
    answer = "In fiscal 2019 net sales were $5.0 million [F1], and the net loss in 2018 was $2.0 million [F2]."
    claim = extract_claims(answer)[0]
    a, b = SnapshotIndex.build(Snapshot(facts=facts)), SnapshotIndex.build(Snapshot(facts=facts))
    assert a.vocabulary is not b.vocabulary and a.vocabulary == b.vocabulary
    read_context.cache_clear()
    first = read_context(claim.text, claim.span[0], a.vocabulary, "What were net sales?", claim.numbers)
    again = read_context(claim.text, claim.span[0], b.vocabulary, "What were net sales?", claim.numbers)
    assert again is first and read_context.cache_info().hits == 1
    fresh = SentenceContext.read(claim.text, claim.span[0], a.vocabulary, "What were net sales?", claim.numbers)
    assert first == fresh and first.by_number  # it names years and items, attributed to its numbers
    other = SnapshotIndex.build(Snapshot(facts=facts[:1])).vocabulary
    assert other != a.vocabulary
    assert read_context(claim.text, claim.span[0], other, "What were net sales?", claim.numbers) == with_lead_year(
        SentenceContext.read(claim.text, claim.span[0], other, "What were net sales?", claim.numbers),
        other,
        tuple(claim.numbers),
    )  # (read_context reads the opening "In fiscal 2019" too: gate-13's comma-less lead)


#: The year pattern before it was written literal-first (issue 15 speed follow-up).
_PLAIN_YEAR = re.compile(r"(?<![\d.,$])((?:19|20)\d{2})(?!\d|[.,]\d)|\b(?:FY|CY)\s?'?(\d{2})\b", re.I)
YEAR_TEXTS = st.text(alphabet="0129FYCyfc' ,.$_-xéıſKİ\n", max_size=16)


@settings(max_examples=300, deadline=None)
@given(st.one_of(YEAR_TEXTS, TEXTS))
def test_literal_first_year_pattern_finds_what_the_plain_one_finds(text: str) -> None:
    from assay.grounding.context import _YEAR

    def found(rx: re.Pattern[str]) -> list[tuple[tuple[int, int], str | None, str | None]]:
        return [(m.span(), m.group(1), m.group(2)) for m in rx.finditer(text)]

    assert found(_YEAR) == found(_PLAIN_YEAR)


def test_literal_first_year_pattern_reads_years_and_fiscal_years() -> None:
    from assay.grounding.context import _YEAR

    text = "2019 and FY 19, fy'20, CY21, $2019, 1.2019, 20190, xFY22, 1899"
    assert [(m.group(1), m.group(2)) for m in _YEAR.finditer(text)] == [
        ("2019", None),
        (None, "19"),
        (None, "20"),
        (None, "21"),
    ]


@settings(max_examples=150, deadline=None)
@given(NAMES, st.data())
def test_ascii_fast_path_of_named_spans_equals_the_re_i_scan(names: set[str], data: st.DataObject) -> None:
    from assay.grounding.labels import SnapshotVocabulary

    vocab = SnapshotVocabulary(tuple((n, "FY2019") for n in names))
    pieces = st.one_of(st.sampled_from(sorted(names)), PIECES, st.sampled_from([" ", ", ", "s", "-", "Net Sales"]))
    text = "".join(p.upper() if i % 3 == 1 else p for i, p in enumerate(data.draw(st.lists(pieces, max_size=10))))
    slow = [] if vocab._re is None else [(m.start(), m.end(), m.group(0).lower()) for m in vocab._re.finditer(text)]
    assert vocab.named_spans(text) == slow


def test_ascii_fast_path_is_refused_for_patterns_that_fold_onto_ascii() -> None:
    from assay.grounding.labels import _ascii_matcher

    assert _ascii_matcher(re.compile("net sales|매출", re.I)) is not None  # Hangul folds onto nothing
    assert _ascii_matcher(re.compile("ſales", re.I)) is None  # "ſ" matches "s" under re.I
    assert _ascii_matcher(re.compile("\u212aelvin", re.I)) is None  # the Kelvin sign matches "k"
    assert _ascii_matcher(re.compile("Revenue", re.I)) is None  # an upper-case literal


def test_stated_sign_shortcut_equals_the_full_read() -> None:
    from assay.claims import extract_claims
    from assay.facts import Fact, Snapshot
    from assay.grounding.context import SentenceContext
    from assay.grounding.index import SnapshotIndex
    from assay.grounding.lexicon import stated_sign_at

    vocab = SnapshotIndex.build(Snapshot(facts=[Fact(id="F1", label="Net income", value=5.0)])).vocabulary
    answers = ("Net income was $5 [F1].", "Apple lost $5 [F1].", "It was $5 [F1] in revenue.", "영업손실 5억원 [F1].")
    for answer in answers:
        claim = extract_claims(answer)[0]
        ctx = SentenceContext.read(claim.text, claim.span[0], vocab, None, claim.numbers)
        for q in claim.numbers:
            full = stated_sign_at(ctx.text, q.span[0] - ctx.offset, q.span[1] - ctx.offset, ctx.number_ends)
            assert ctx.stated_sign(q) == full


QUESTION_PARTS = st.sampled_from(["What was", "and how much", "? What is", ", and what were"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(TEXTS, QUESTION_PARTS), max_size=4))
def test_question_licences_shortcut_equals_every_sub_question_read(parts: list[str]) -> None:
    """``licences`` returns (False, False) without reading sub-questions when the question holds no
    licence word: the same as every sub-question's ``text_licences`` (second session of issue 15's
    speed work)."""
    from assay.grounding.lexicon import licences, sub_questions

    question = " ".join(parts)
    plain = [text_licences(p) for p in sub_questions(question)] if question else []
    want = (all(s for s, _ in plain), all(c for _, c in plain)) if question else (False, False)
    assert licences.__wrapped__(question) == want


def test_sentence_context_read_builds_what_the_dataclass_builds() -> None:
    """``SentenceContext.read`` fills the instance dict directly: every field, in order, equal to a
    ``SentenceContext(**fields)`` and as hashable-equal under ``replace``."""
    from dataclasses import fields, replace

    from assay.claims import extract_claims
    from assay.facts import Fact, Snapshot
    from assay.grounding.context import SentenceContext
    from assay.grounding.index import SnapshotIndex

    facts = [Fact(id="F1", label="Net income", value=1.0, unit="USD", period="FY2023")]
    vocab = SnapshotIndex.build(Snapshot(facts=facts)).vocabulary
    claim = extract_claims("In FY2023 net income rose 5% to $1.0, respectively, in total.")[0]
    ctx = SentenceContext.read(claim.text, claim.span[0], vocab, "What was the net loss?", claim.numbers)
    assert list(vars(ctx)) == [f.name for f in fields(SentenceContext)]
    built = SentenceContext(**vars(ctx))
    assert built == ctx and vars(built) == vars(ctx)
    assert replace(ctx, year_mentions=3) == replace(built, year_mentions=3)
