"""acceptable's own-sign licence (gate-21): a passage number whose own words on its page state the
sentence's sign passes the sign rule, and the rules after it still judge the match."""

from __future__ import annotations

from assay.claims import Quantity, extract_claims
from assay.grounding.acceptable import acceptable
from assay.grounding.candidates import Candidate, make_candidate
from assay.grounding.context import SentenceContext
from assay.grounding.labels import SnapshotVocabulary

VOCAB = SnapshotVocabulary((("Revenue", "2019"), ("Revenue", "2018")))


def _read(sentence: str) -> tuple[SentenceContext, Quantity]:
    claim = extract_claims(sentence)[0]
    return SentenceContext.read(claim.text, claim.span[0], VOCAB, None, tuple(claim.numbers)), claim.numbers[0]


def _passage_number(period: str | None) -> Candidate:
    """3.8 million on a page: a positive number whose label names no loss item (a paragraph's)."""
    return make_candidate(3.8e6, "currency", "S1:L4", currency="USD", origin="passage", period=period, displayed=3.8)


def _kind(veto: tuple[str, str] | None) -> str | None:
    return None if veto is None else veto[0]


def test_a_passage_numbers_own_words_license_the_stated_loss():
    ctx, q = _read("The net loss was $3.8 million.")
    c = _passage_number(None)
    assert _kind(acceptable(q, c, ctx)) == "sign"
    assert acceptable(q, c, ctx, lambda _: -1) is None  # "… a net loss of $3.8 million …" on its page
    assert _kind(acceptable(q, c, ctx, lambda _: 1)) == "sign"  # its words say a profit
    assert _kind(acceptable(q, c, ctx, lambda _: None)) == "sign"  # they say neither


def test_the_rules_after_the_sign_rule_still_judge_a_licensed_number():
    ctx, q = _read("The net loss in 2019 was $3.8 million.")
    assert acceptable(q, _passage_number("2019"), ctx, lambda _: -1) is None
    # gate-20 waived the sign veto after acceptable returned, so this period rule was never reached
    assert _kind(acceptable(q, _passage_number("2018"), ctx, lambda _: -1)) == "period_mismatch"


def test_the_own_sign_licence_covers_the_label_polarity_of_a_paragraph_numbers_line():
    """A paragraph number's label is its line's first words ("Operating income increased $6.0 billion …"):
    its own words ("LinkedIn operating loss increased $63 million") decide the loss, not that label."""
    ctx, q = _read("The operating loss was $63 million.")
    c = make_candidate(
        63e6,
        "currency",
        "S1:L5",
        label="Operating income increased $6.0 billion or 21%",
        currency="USD",
        origin="passage",
        displayed=63,
    )
    assert acceptable(q, c, ctx) is not None
    assert acceptable(q, c, ctx, lambda _: -1) is None
    assert acceptable(q, c, ctx, lambda _: 1) is not None
