"""The one-scan word families (:mod:`assay.grounding.triggers`) hold wherever the rules' own
pre-checks would: a family a sentence's bits lack is one its rule would not find (issue 15's
latency work may skip it only then)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.grounding import forms, quarters
from assay.grounding.lexicon import CROSS_PERIOD_WORDS, GAIN_WORDS, LOSS_WORDS, SUM_WORDS, may_cross, may_polar, may_sum
from assay.grounding.triggers import (
    ALL,
    AVERAGE,
    BOUND,
    CROSS,
    FAMILIES,
    FORMS,
    INFLOW,
    NEEDLES,
    NEGATION,
    POLAR,
    QUARTER,
    RESPECTIVE,
    SUM,
    TOTAL,
    claim_triggers,
    sentence_triggers,
)


def _rule_prechecks(text: str) -> int:
    """The bits the rules' own pre-checks give ``text`` (what the triggers stand in for)."""
    low = text.lower()
    bits = 0
    bits |= SUM if may_sum(text) else 0
    bits |= CROSS if may_cross(text) else 0
    bits |= TOTAL if (not text.isascii() or "total" in low) else 0
    bits |= RESPECTIVE if (not text.isascii() or "espective" in low) else 0
    bits |= POLAR if may_polar(text) else 0
    bits |= NEGATION if forms._MAY_NEGATE.search(text) else 0
    bits |= INFLOW if forms._MAY_FLOW.search(text) else 0
    bits |= QUARTER if quarters._MAY_QUARTER.search(text) else 0
    bits |= AVERAGE if forms._MAY_AVERAGE.search(text) else 0
    bits |= BOUND if any(h in low for h in forms._BOUND_HINTS) else 0
    return bits


#: The rules' own words (their modules' lists, not the triggers'), so a word the triggers miss shows.
_RULE_WORDS = {*SUM_WORDS, *CROSS_PERIOD_WORDS, *LOSS_WORDS, *GAIN_WORDS, *forms.INFLOW_WORDS, *forms._BOUND_HINTS}
_RULE_WORDS |= {"average", "Averaged", "mean", "not", "never", "failed to", "n't", "No ", "quarter", "Q3", "2q"}
_RULE_WORDS |= {"Total", "Respectively", "collect", "receiv", "brought", "took in", "taken in"}
_WORDS = sorted(_RULE_WORDS)
_FILLER = ["revenue", "was", "$5.2 million", "[F1]", "in", "2023", ",", ".", " ", "\t", "\n", "and", "nothing"]
_piece = st.one_of(st.sampled_from(_WORDS), st.sampled_from(_FILLER), st.text(max_size=6))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_piece, max_size=12).map(" ".join), min_size=1, max_size=6))
def test_each_sentence_holds_every_family_its_rules_would_find(sentences):
    bits = sentence_triggers(sentences)
    assert len(bits) == len(sentences)
    for text, got in zip(sentences, bits, strict=True):
        want = _rule_prechecks(text)
        assert want & ~got == 0, (text, bin(want), bin(got))
        if not text.isascii():
            assert got == ALL


def test_a_family_is_the_sentences_own_not_its_neighbours():
    bits = sentence_triggers(["Revenue was $5 million [F1].", "Net loss was $2 million [F2].", "Combined, $7 million."])
    assert bits[0] & POLAR == 0 and bits[1] & POLAR and bits[2] & SUM
    assert bits[0] & SUM == 0 and bits[1] & SUM == 0


def test_no_entry_spans_two_sentences():
    # "tot" ending one sentence and "al" opening the next are no "total"
    assert sentence_triggers(["Revenue rose tot", "al 5%"]) == [0, 0]


def test_every_form_cue_sets_the_forms_bit():
    for cue in ("did not decline", "received $5", "Q2 2023", "averaged", "more than $5", "under $5", "no\tchange"):
        assert sentence_triggers([f"Revenue {cue} 5%"])[0] & FORMS, cue


def test_claims_without_numbers_are_not_scanned():
    from assay.claims import extract_claims

    claims = extract_claims(
        "Net loss widened. Net loss was $5 million [F1]. Sales were $3 million. Costs were $2 million."
    )
    bits = claim_triggers(claims)
    assert [bool(c.numbers) for c in claims] == [False, True, True, True]
    assert bits[0] == 0 and bits[1] & POLAR and not bits[2] & POLAR
    # a short answer is not scanned: every bit, each rule runs its own pre-check
    assert claim_triggers(extract_claims("Sales were $3 million.")) == [ALL]


def test_no_whitespace_forms_cover_regex_whitespace():
    # forms' "no\\s" pre-check: every ASCII character re's \\s matches has its entry
    spaces = [c for c in map(chr, range(128)) if re.fullmatch(r"\s", c)]
    assert all(f"no{c}" in FAMILIES[NEGATION] for c in spaces)
    assert all(sentence_triggers([f"There was no{c}change of 5%"])[0] & NEGATION for c in spaces)


def test_every_family_entry_holds_a_needle_of_its_family():
    ws = str.maketrans(dict.fromkeys((c for c in map(chr, range(128)) if re.fullmatch(r"\s", c)), " "))
    for bit, entries in FAMILIES.items():
        for entry in entries:
            assert any(n in entry.translate(ws) and b & bit for n, b in NEEDLES.items()), (bit, entry)


_BASE_WORDS = ["as a percentage of", "percent of", "share of", "% of", "of the", "of total", "the", "total", "of"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(_BASE_WORDS), st.sampled_from(["revenue", "5%", "\n", "\t", " "])), max_size=8),
    st.sampled_from(["", " ", "  ", "\n", " \n", "\u00a0"]),
)
def test_the_share_base_look_back_runs_wherever_it_could_match(words, tail):
    from assay.grounding.context import _BASE_BEFORE, _may_base

    text = " ".join(words) + tail + "net sales"
    s = len(text) - len("net sales")
    if _BASE_BEFORE.search(text, 0, s):
        assert _may_base(text, s), repr(text)
