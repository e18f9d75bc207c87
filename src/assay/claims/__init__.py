"""Claims and quantities in answer text: sentence claims, citation markers, numbers with units.

``extract_claims(text)`` splits an answer into sentence-level :class:`Claim` objects, each with
its citation ids and the :class:`Quantity` objects it states. ``extract_quantities(text)`` is
the number parser on its own (also used on source passages); what counts as a quantity is in
:mod:`assay.claims.quantities`.

Modules, bottom up: :mod:`~assay.claims.patterns` (the reader's regexes and word lists),
:mod:`~assay.claims.citations` (markers, masking), :mod:`~assay.claims.wording` (direction and
sign words around a number), :mod:`~assay.claims.quantities` (the number parser) and
:mod:`~assay.claims.sentences` (sentence splitting and claims).
"""

from assay.claims.citations import DEFAULT_CITATION_PATTERN, find_citations
from assay.claims.quantities import Quantity, extract_quantities
from assay.claims.sentences import Claim, extract_claims, split_sentences

__all__ = [
    "Quantity",
    "Claim",
    "DEFAULT_CITATION_PATTERN",
    "extract_quantities",
    "extract_claims",
    "find_citations",
    "split_sentences",
]
