"""Second templated sets for the perturbation suite: sentences that carry a sign or a direction.

The first template (:func:`~assay.grounding.perturbations.templated_case`) states a TAT-QA gold
figure as "The {X} was {answer}", which rarely carries a profit/loss word or a direction, so
``sign_word`` (n = 87) and ``direction_word`` (n = 163) could not prove ≤ 1% even at zero false
accepts (0/n needs n ≥ ~380 for a 95% Wilson upper bound of 1%). These templates build, from
each in-scope TAT-QA case's cited cells, one TRUE sentence whose wording carries the sign or the
direction; each set is reported on its own with its n, and the perturbation applied is the
class's documented rule (:mod:`assay.grounding.perturbations`):

- :func:`sign_case` — the first fact (cited ones first, then the snapshot's) whose line item
  is a result (:data:`RESULT_ITEM`: net income/loss/earnings/profit, operating
  income/loss/profit, gross profit, profit/loss before tax, gains/losses on …), an amount with a
  year: ``"{Line item} in {year} was a {profit|loss} of {figure} [{id}]."``; "loss" for an
  item naming a loss (whatever the stored sign: a loss row holds the loss, shown as a magnitude
  or in parentheses), "profit" for an item naming a profit with a positive value; the figure is
  the magnitude as the fact displays it, with its unit's scale word. Items naming both
  ("profit/(loss)", "income (loss)") and a negative profit item are skipped (the sentence would
  name both kinds, to which ``sign_word`` does not apply).
- :func:`direction_case` — the first cited fact with a year whose line item has another year's
  fact (same row label, same unit, another value; both values positive: a cost or a loss stored
  negative, "(28,237)" → "(21,387)", would "increase" as it shrinks) in the snapshot: ``"{Line item}
  {increased|decreased} by {|later − earlier|} from {earlier year} to {later year} [{later id},
  {earlier id}]."`` (not for a generic item: "Total", "Other"); the change at the facts'
  displayed decimals (the larger), with the unit's scale word.

Amounts only (units ``USD``, ``USD thousands|millions|billions``, ``thousands``, ``millions``,
or none): a percent's change would be read in percentage points, which the template does not
state. A fact "with a year" has a bare year as its period and a column naming no other year
("2017/2018" is a fiscal year across two, "2019 over 2018" a change column: "in 2017" or a
change "from 2018 to 2019" read from them would not be true). ``variant`` is
``"templated_sign"`` / ``"templated_direction"``; the case's question is dropped (``None``): the
sentence states the data, it answers no question, so the question's wording (a "total" that
licenses a sum, a loss that licenses a magnitude) must not judge it.
"""

from __future__ import annotations

import re

from assay.cases import Case
from assay.claims import DEFAULT_CITATION_PATTERN, find_citations
from assay.facts import Fact, canonical_number
from assay.grounding.labels import GENERIC_ITEMS

__all__ = ["RESULT_ITEM", "sign_case", "direction_case"]

#: Line items that are a result (a profit or a loss), the ones a profit/loss word describes.
RESULT_ITEM = re.compile(
    r"^(?:net\s+(?:income|loss|earnings|profit)|operating\s+(?:income|loss|profit)|gross\s+profit"
    r"|(?:profit|loss|income|earnings)\s+before\b.*|(?:gains?|losses?)\s+on\b.*|net\s+(?:gains?|losses?)\b.*)$",
    re.I,
)
_LOSS = re.compile(r"\bloss(?:es)?\b", re.I)
_PROFIT = re.compile(r"\b(?:income|earnings|profit|gains?)\b", re.I)
_SCALE = {
    None: ("", ""),
    "USD": ("$", ""),
    "USD thousands": ("$", " thousand"),
    "USD millions": ("$", " million"),
    "USD billions": ("$", " billion"),
    "thousands": ("", " thousand"),
    "millions": ("", " million"),
}
_YEAR = re.compile(r"^(?:19|20)\d{2}$")
_ANY_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


def sign_case(case: Case) -> Case | None:
    """The profit/loss sentence of ``case``'s first result fact, cited ones first (module doc), or None."""
    for f in dict.fromkeys((*_cited(case), *case.facts)):
        item = _item(f)
        if f.unit not in _SCALE or not _has_year(f) or not RESULT_ITEM.match(item) or f.value == 0:
            continue
        loss_item, profit_item = bool(_LOSS.search(item)), bool(_PROFIT.search(item))
        if (loss_item and profit_item) or (profit_item and f.value < 0):
            continue  # "income (loss)", or "Net income … a loss": the sentence would name both kinds
        word = "loss" if loss_item else "profit"
        text = f"{item} in {f.period} was a {word} of {_figure(abs(f.value), f, _decimals(f))} [{f.id}]."
        return case.model_copy(update={"answer": text, "variant": "templated_sign", "question": None})
    return None


def direction_case(case: Case) -> Case | None:
    """The "increased/decreased by … from … to …" sentence of ``case``'s first cited fact with
    another year of its line item (module doc), or None."""
    for f in _cited(case):
        if f.unit not in _SCALE or not _has_year(f) or _item(f).lower() in GENERIC_ITEMS:
            continue
        other = next(
            (
                g
                for g in case.facts
                if g.id != f.id
                and g.label.split(" | ")[0] == f.label.split(" | ")[0]
                and g.unit == f.unit
                and _has_year(g)
                and g.period != f.period
                and g.value != f.value
                and g.value > 0
            ),
            None,
        )
        if other is None or f.value <= 0:
            continue  # a cost or loss stored negative "increases" as it shrinks: positive values only
        later, earlier = (f, other) if str(f.period) > str(other.period) else (other, f)
        d = max(_decimals(later), _decimals(earlier))
        change = round(later.value - earlier.value, d)
        if change == 0:
            continue
        verb = "increased" if change > 0 else "decreased"
        text = (
            f"{_item(f)} {verb} by {_figure(abs(change), f, d)} from {earlier.period} to {later.period}"
            f" [{later.id}, {earlier.id}]."
        )
        return case.model_copy(update={"answer": text, "variant": "templated_direction", "question": None})
    return None


# --- helpers -------------------------------------------------------------------------------


def _cited(case: Case) -> list[Fact]:
    by_id = {f.id: f for f in case.facts}
    ids = dict.fromkeys(find_citations(case.answer, DEFAULT_CITATION_PATTERN))
    return [by_id[i] for i in ids if i in by_id]


def _item(f: Fact) -> str:
    item = f.label.split(" | ")[0].strip()
    return item[:1].upper() + item[1:]


def _has_year(f: Fact) -> bool:
    """``f``'s period is a year and its column names no other ("2017/2018", "2019 over 2018": a
    fiscal year across two, or a change column, of which "in 2017" would not be true)."""
    column = f.label.split(" | ", 1)[1] if " | " in f.label else ""
    return bool(f.period and _YEAR.match(f.period)) and set(_ANY_YEAR.findall(column)) <= {f.period}


def _decimals(f: Fact) -> int:
    shown = f.displayed_value or canonical_number(abs(f.value))
    m = re.search(r"\.(\d+)", shown)
    return len(m.group(1)) if m else 0


def _figure(value: float, f: Fact, decimals: int) -> str:
    symbol, scale = _SCALE[f.unit]
    return f"{symbol}{value:,.{decimals}f}{scale}"
