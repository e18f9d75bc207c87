"""Wording lexicons for the gate's sum and sign rules (issue 15), as pure functions of a sentence.

- :func:`licenses_sum`: does the wording license a number as a *sum* of figures — across
  periods ("over the two years", "cumulative") or of components ("combined", "together", "in
  total", "합계")?
- :func:`negative_word`: the loss word asserting a negative figure in a sentence ("loss",
  "lost", "deficit", "negative", "손실"); per number the reader already sets
  :attr:`~assay.claims.Quantity.negative_wording` (clause-scoped, see
  :meth:`assay.claims.wording.WordIndex.negative_word`).

The change-base words ("higher than", "exceeded … by", "from") are on each quantity as
:attr:`~assay.claims.Quantity.change_base` (:func:`assay.claims.wording.change_base_at`).
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["SumLicense", "licenses_sum", "negative_word"]

#: What a sum of cited figures may be: of periods (one label, several periods) or components.
SumLicense = Literal["periods", "components"]


def licenses_sum(sentence: str, span: tuple[int, int] | None = None) -> SumLicense | None:
    """``"periods"`` when the wording states a total across periods, ``"components"`` when it
    states a total of parts, else None.

    ``"periods"``: "over the two/three years", "over the past two years", "across both years",
    "for the two years combined", "in the two years", "cumulative(ly)", "in aggregate over",
    "2년간", "2년 동안", "누적", "합산" across years ("두 해"). ``"components"``: "combined",
    "together", "in total", "total of" ("a total of"), "totaled"/"totalled"/"totaling",
    "sum of", "altogether", "in aggregate", "aggregate of", "합계", "합쳐", "합산", "총합".
    A bare "total" is not a license (it is part of labels: "Total net sales"). A periods phrase
    wins over a components word ("combined over the two years" is a sum across periods).

    ``span`` (a number's ``[start, end)`` in ``sentence``; for a claim, ``q.span`` minus
    ``claim.span[0]``) narrows the look to the number's clause (the text between the ``;``
    around it); None looks at the whole sentence. Pure; case-insensitive."""
    text = sentence
    if span is not None:
        lo = sentence.rfind(";", 0, span[0]) + 1
        hi = sentence.find(";", span[1])
        text = sentence[lo : hi if hi >= 0 else len(sentence)]
    if _PERIODS.search(text):
        return "periods"
    if _COMPONENTS.search(text):
        return "components"
    return None


def negative_word(sentence: str) -> str | None:
    """The first loss word of ``sentence`` asserting a negative figure, lowercased, or None.

    English: "loss", "losses", "lost", "deficit(s)", "negative" (not "negative growth/change",
    which is a direction), "shortfall"; Korean: "손실", "적자". For the per-number scope use
    :attr:`assay.claims.Quantity.negative_wording`."""
    m = _NEGATIVE.search(sentence)
    return None if m is None else m.group(0).lower()


_NUMBER_WORD = r"(?:two|three|four|five|both|\d+)"
_PERIODS = re.compile(
    r"\b(?:over|across|in|for|during)\s+(?:the\s+)?(?:(?:past|last|prior)\s+)?" + _NUMBER_WORD + r"\s+"
    r"(?:fiscal\s+)?(?:years|periods|quarters)\b"
    r"|\b(?:over|across|in|for)\s+both\s+(?:fiscal\s+)?(?:years|periods|quarters)\b"
    r"|\bcumulative(?:ly)?\b|\bin\s+aggregate\s+over\b|\bcombined\s+over\b"
    r"|\d+\s?년\s?(?:간|동안)|누적|두\s?해",
    re.I,
)
_COMPONENTS = re.compile(
    r"\b(?:combined|together|altogether|in\s+total|total\s+of|total(?:ed|led|ing|ling)|sum\s+of|summed|"
    r"in\s+aggregate|aggregate\s+of|taken\s+together)\b"
    r"|합계|합쳐|합산|총합",
    re.I,
)
_NEGATIVE = re.compile(
    r"\b(?:loss(?:es)?|lost|deficits?|shortfall|negative(?!\s+(?:growth|change|changes|return|returns)\b))\b|손실|적자",
    re.I,
)
