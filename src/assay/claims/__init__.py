"""Claims and quantities in answer text: sentence claims, citation markers, numbers with units.

``extract_claims(text)`` splits an answer into sentence-level :class:`Claim` objects, each with
its citation ids, the :class:`Quantity` objects it states and the :class:`Unchecked` spans it
holds. ``extract_quantities(text)`` is the number parser on its own (also used on source
passages); what counts as a quantity is in :mod:`assay.claims.quantities`.

Modules, bottom up: :mod:`~assay.claims.patterns` (the reader's regexes and word lists),
:mod:`~assay.claims.citations` (markers, masking), :mod:`~assay.claims.wording` (direction,
sign, loss and comparison words around a number), :mod:`~assay.claims.quantity` (the
:class:`Quantity` record), :mod:`~assay.claims.numwords` (numbers in words),
:mod:`~assay.claims.quantities` (the number parser), :mod:`~assay.claims.unchecked` (forms seen
but not read), :mod:`~assay.claims.lexicons` (sum-licensing words), :mod:`~assay.claims.periods`
(period mentions) and :mod:`~assay.claims.sentences` (sentence splitting and claims).

Added in issue 15 (the API of before is unchanged; everything below is new or defaulted):

- ``Quantity.form`` (``"digits"``/``"words"``/``"fraction"``/``"multiple"``), ``Quantity.tolerance``
  (absolute precision on ``value`` when ``decimals`` does not state it: a third ± 0.02, doubled ±
  0.05, ``3조 5천억`` ± 500 억), ``Quantity.negative_wording`` (the loss word asserting a negative:
  ``"loss"``, ``"lost"``, ``"deficit"``, ``"negative"``, ``"손실"``, ``"적자"``; None = no such
  wording; ``sign_wording`` keeps its meaning, outflow *or* loss words) and
  ``Quantity.change_base`` (``"against_other"`` for "higher than"/"exceeded … by",
  ``"from_base"`` for "from"/"versus"/"대비"; None otherwise). Units added: ``"ratio"`` (a
  fraction: "a third" = 0.333…) and multiples in words use ``"x"`` ("doubled" = 2.0).
- Numbers in words and digit fractions: ``extract_quantities(text, words=True)`` (always on in
  ``extract_claims``); rules in :mod:`assay.claims.numwords`.
- Korean compound amounts (``3조 5천억원`` = 3.5e12 KRW, ``1조 2,000억``, ``5천만원``), ``%p``
  (percentage points), Korean change verbs after a number (``12% 감소했다`` → direction −1;
  증가/감소/늘/줄/상승/하락…), 손실/적자 as loss words; ``k`` after a currency amount
  (``$5.2k`` = 5,200; a bare ``401k`` stays a name).
- :class:`Unchecked` ``(text, span, reason)``, ``Claim.unchecked`` and
  :func:`find_unchecked(text) <assay.claims.unchecked.find_unchecked>` (the reasons' list is in
  :mod:`assay.claims.unchecked`).
- :func:`licenses_sum(sentence, span) <assay.claims.lexicons.licenses_sum>` →
  ``"periods"``/``"components"``/None, :func:`negative_word(sentence)
  <assay.claims.lexicons.negative_word>`, and :func:`find_periods(text)
  <assay.claims.periods.find_periods>` → :class:`Period` ``(text, span, key)`` with keys
  ``"FY2023"``, ``"2024Q3"``, ``"2023H1"``; :func:`period_key(s) <assay.claims.periods.period_key>`
  normalises a fact's free-text period to the same keys.
"""

from assay.claims.citations import DEFAULT_CITATION_PATTERN, find_citations
from assay.claims.quantities import Quantity, extract_quantities
from assay.claims.sentences import Claim, extract_claims, split_sentences
from assay.claims.unchecked import Unchecked, find_unchecked

__all__ = [
    "Quantity",
    "Claim",
    "Unchecked",
    "DEFAULT_CITATION_PATTERN",
    "extract_quantities",
    "extract_claims",
    "find_citations",
    "find_unchecked",
    "split_sentences",
]
