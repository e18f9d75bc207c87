"""The answer reader's one-scan citation markers change nothing (speed, 0f5c384 → cx).

- :func:`~assay.claims.citations.mask_default` masks as :func:`~assay.claims.citations.mask`
  does, and the markers it returns are exactly those :func:`~assay.claims.find_citations`
  finds in any slice of the text that holds them whole;
- :func:`~assay.claims.extract_claims` gives each claim the ids ``find_citations`` finds in its
  sentence (default pattern: from the one scan; another pattern: per sentence, as before), and
  its claims are the dataclass's constructions.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import Claim, extract_claims, find_citations
from assay.claims.citations import DEFAULT_CITATION_PATTERN, mask, mask_default

_CITE = re.compile(DEFAULT_CITATION_PATTERN)
_PARTS = [
    "[F1]", "[F1, F2]", "[ F3 ;F4 ]", "[F1,\nF2]", "[", "]", "F3", " ", ";", ",", "[3]", "(F4)", "x", ".", ". ",
    "\n", "Revenue was $5.2 billion", "12/31", "1/3", "2023-03-31", "[T3C1, T3C2]", "[a.b:c-d_e]", "[]", "[ ]",
]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=12), st.data())
def test_property_mask_default_is_mask_and_find_citations(parts, data):
    text = "".join(parts)
    masked, markers = mask_default(text)
    assert masked == mask(text, _CITE, keep_fractions=True)
    assert [(m.start(), m.end()) for m in _CITE.finditer(text)] == [(s, e) for s, e, _ in markers]
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    inside = [i for s, e, ids in markers if a <= s and e <= b for i in ids]
    assert inside == find_citations(text[a:b]), (text, a, b)


_SENTENCES = [
    "Revenue was $5.2 billion [F1].", "It rose 5% [F2, F3].", "[F4] Net income fell.", "Capex was $3M [F1][F1].",
    "Cash was 12 (C1).", "Inc. [F5]", "U.S. sales grew [F6;F7]!", "Done?", " ", "\n", "[F8,\nF9]", "[F1, F1].",
]  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_SENTENCES), max_size=10), st.sampled_from([" ", "", "\n"]))
def test_property_claim_citations_are_find_citations_of_the_sentence(parts, sep):
    text = sep.join(parts)
    for pattern in (DEFAULT_CITATION_PATTERN, r"\(([A-Z0-9]+)\)"):
        cite_re = re.compile(pattern)
        for claim in extract_claims(text, citation_pattern=pattern):
            assert claim.citations == tuple(dict.fromkeys(find_citations(claim.text, cite_re)))


def test_claims_are_the_dataclass_construction():
    for claim in extract_claims("Revenue was $5.2 billion [F1]. It rose 5% [F2, F3]. Several million."):
        built = Claim(claim.text, claim.span, claim.numbers, claim.citations, claim.unchecked)
        assert claim == built and hash(claim) == hash(built) and vars(claim) == vars(built)
        assert replace(claim, text="x") == replace(built, text="x")
