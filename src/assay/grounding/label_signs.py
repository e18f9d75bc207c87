"""What a fact's own label says of its figure (split from :mod:`assay.grounding.labels`): the
direction a change label or a paragraph number's context states (:func:`told_direction`), the
polarity of a profit or loss line item (:func:`label_polarity`), the sign a reader gives the
figure (:func:`fact_sign`), and the labels that name a change (:data:`A_CHANGE_LABEL`,
:data:`NEUTRAL_CHANGE`)."""

from __future__ import annotations

import re
from functools import lru_cache

from assay.grounding.candidates import Candidate
from assay.grounding.labels import is_line_item, line_item
from assay.grounding.lexicon import GAIN, LOSS

__all__ = [
    "A_CHANGE_LABEL",
    "NEUTRAL_CHANGE",
    "told_direction",
    "label_polarity",
    "fact_sign",
    "own_clause",
    "negative_row_reading",
]

_UP_LABEL = re.compile(
    r"\b(?:increas(?:ed?|es|ing)|rose|ris(?:es|ing)|grew|grow(?:s|ing)|growth|higher|up)\b|증가|상승", re.I
)
_DOWN = r"decreas(?:ed?|es|ing)|declin(?:ed?|es|ing)|fell|fall(?:s|ing)|lower|down|dropp(?:ed|ing)|reduc(?:ed|tions?)"
_DOWN_LABEL = re.compile(rf"\b(?:{_DOWN})\b|감소|하락", re.I)
#: "(Gain) on completion of …" = (8,086): the accounting convention shows a gain negative.
_GAIN_IN_PARENS = re.compile(r"\((?:gains?|income|profits?)\)", re.I)
_UP_ITEM = re.compile(r"\b(?:increases?|growth)\b", re.I)
_DOWN_ITEM = re.compile(r"\b(?:decreases?|declines?)\b", re.I)
_CHANGE_COLUMN = re.compile(r"\|\s*(?:[$%]\s*)?(?:change|variance|difference|increase\s*/?\s*\(?decrease\)?)\b", re.I)
#: A line item named by a change of no stated way ("% change", "Change in …", "growth"): its sign is the way.
NEUTRAL_CHANGE = re.compile(r"^(?!.*\b(?:increase|decrease)).*\b(?:change[sd]?|growth|variance|movements?)\b", re.I)
#: A label that names a change, so its figure's sign is a direction, not a profit or a loss: a
#: "… | Change" column, "Net increase in cash", "Increase (decrease) in …", "Growth", "Movement",
#: "Variance", a "$ change" sub-column ("| $", "| %": a header "Change" over "$" and "%").
A_CHANGE_LABEL = re.compile(
    r"\b(?:change[sd]?|increases?|increased|decreases?|decreased|growth|movements?|variance|difference"
    r"|net\s+(?:additions?|reductions?))\b|\|\s*[$%]\s*$",
    re.I,
)


def told_direction(c: Candidate) -> int | None:
    """The direction a fact itself states: the one change word of a paragraph number's context
    ("…increased by $16.9 million…") or of a passage number's line (else its paragraph twin's), the sign of
    a "Change" column's cell or of a line item named by a change (:data:`NEUTRAL_CHANGE`), or the one change
    noun of a positive line item ("Rate of compensation increase"; not "Increase (decrease) in …"); else None."""
    if c.origin not in ("fact", "passage") or not c.label:
        return None
    if c.origin == "passage" or not is_line_item(c.label):  # a paragraph number or passage line: its text
        text = own_clause(c.label, c.displayed if c.displayed is not None else c.value)
        up, down = _UP_LABEL.search(text) is not None, _DOWN_LABEL.search(text) is not None
        return (c.cell_direction if c.origin == "passage" else None) if up == down else (1 if up else -1)
    if (_CHANGE_COLUMN.search(c.label) or NEUTRAL_CHANGE.search(c.label)) and c.value != 0:
        return 1 if c.value > 0 else -1
    if c.value > 0:  # a line item named by its change: "Rate of compensation increase" = 4.3
        item = line_item(c.label)
        up, down = _UP_ITEM.search(item) is not None, _DOWN_ITEM.search(item) is not None
        return None if up == down else (1 if up else -1)
    return None


_LABEL_CLAUSE = re.compile(r"[.;](?=\s)|,\s(?=but|while|whereas)|[()]")


@lru_cache(maxsize=8192)
def own_clause(text: str, value: float) -> str:
    """The clause of a context ``text`` that holds the number ``value`` (cut at ". ", ";", ", but",
    parentheses), or the whole text when the number is not found in it: "(1 percent adjusted for
    currency), but increased…" says nothing of the direction of the 1 percent."""
    v = abs(value)
    forms = {f"{v:,.0f}", f"{v:.0f}"} if v == int(v) else set()
    forms |= {f"{v:,.{d}f}".rstrip("0") for d in (1, 2, 3)} - {""}
    alts = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True) if f and f[-1] != ".")
    m = re.search(r"(?<![\d.,])(?:" + alts + r")(?!\d|[.,]\d)", text) if alts else None
    if m is None:
        return text
    lo = max((x.end() for x in _LABEL_CLAUSE.finditer(text, 0, m.start())), default=0)
    nxt = _LABEL_CLAUSE.search(text, m.end())
    return text[lo : nxt.start() if nxt else len(text)]


def label_polarity(c: Candidate) -> int | None:
    """−1 for a loss line item ("Net loss", "Operating loss carryforward"), the value's sign for a
    profit line item ("Net income" = −5 is a loss), None for a neutral or mixed one ("Net income
    (loss)"); a passage number's line (its row label) is read the same way."""
    if not c.label or (c.origin != "passage" and not is_line_item(c.label)):
        return None
    item = c.label.lower() if c.origin == "passage" else line_item(c.label)
    loss, gain = LOSS.search(item) is not None, GAIN.search(item) is not None
    if loss == gain:
        return None
    if gain and c.value < 0 and _GAIN_IN_PARENS.search(item):
        return 1
    if A_CHANGE_LABEL.search(c.label) or c.cell_direction is not None:  # a change's sign is its direction:
        return -1 if loss else 1  # gross profit −3,709 is no loss, nor its "(4.3)%" cell under "2019 vs 2018"
    return -1 if loss or c.value < 0 else 1


def fact_sign(c: Candidate) -> int:
    """−1 for a negative value (but +1 for a "(Gain)" line item shown negative) or a loss line
    item shown positive ("Net loss" = 5), else +1."""
    label = line_item(c.label)
    if c.value < 0:
        return 1 if _GAIN_IN_PARENS.search(label) and not LOSS.search(label) else -1
    if LOSS.search(label) and not GAIN.search(label):
        return -1
    return 1


def negative_row_reading(c: Candidate) -> str | None:
    """How a stated direction ("increased by", "fell") reads derivation ``c`` when it is a change
    ``a−b`` of one row's two figures, both shown negative (None for any other candidate):

    - ``"size"`` — the row is a deduction (:data:`_SIZE_ITEM`: a loss, an expense or cost, cash used or
      paid, an impairment, depreciation): "Net Loss | $(15,571) | $(24,122)" *decreased* by 8,551 from
      2018 to 2019, though −15,571 is above −24,122;
    - ``"sign"`` — the row is an inflow or a revenue (:data:`_SIGN_ITEM`): "Other sales | (500) | (300)"
      *decreased* by 200 (a profit shown negative is a loss: the wording's sign rule judges it first);
    - ``"neither"`` — the label says neither, or both ("Net cash provided by (used in)", "Income (loss)",
      "gain/loss", "Valuation allowance", "Disposals", "Deferred tax liabilities"): a reader cannot tell
      which the writer meant, so the gate backs no direction with it (fail-closed). On TAT-QA's templated
      change sentences the annotators' own arithmetic went both ways on such rows (the size of "Disposals"
      in one table, its sign in another): either single reading passed the flipped direction of 3–4 of
      them (gate-20, :mod:`assay.grounding.perturbations` ``direction_word``).

    A relative change ``(a−b)/b`` of two negatives has one sign either way: not judged here."""
    if c.op != "a-b" or len(c.operands) != 2:
        return None
    a, b = c.operands
    if a.value >= 0 or b.value >= 0 or a.op is not None or b.op is not None:
        return None
    if a.origin == "passage":
        if a.ref != b.ref:
            return None
        item = a.label.lower()
    else:
        item = line_item(a.label).lower()
        if item != line_item(b.label).lower():
            return None
    if _TWO_SIGNS.search(item):
        return "neither"
    size, sign = _SIZE_ITEM.search(item) is not None, _SIGN_ITEM.search(item) is not None
    return "neither" if size == sign else "size" if size else "sign"


#: A label that names both signs of its figure: "(used in)", "(loss)", "(expense)", "Increase/(decrease)",
#: "gain/loss", "+/-" (any "/": a label of alternatives).
_TWO_SIGNS = re.compile(
    r"\((?:used|loss|losses|expense|expenses|deficit|benefit|decrease|increase|gain|gains|income|charge|credit"
    r"|provision)\b|/",
    re.I,
)
#: A deduction's label (its figure shown negative is a size): a loss, an expense or a cost, cash used, paid or
#: spent, an outflow, a purchase or repurchase, an impairment, a write-off, depreciation or amortization.
_SIZE_ITEM = re.compile(
    r"\b(?:loss(?:es)?|deficit|expenses?|expenditures?|costs?|used|paid|spent|payments?|outflows?|purchases?"
    r"|repurchases?|impairments?|write-?(?:offs?|downs?)|depreciation|amortization|amortisation)\b",
    re.I,
)
#: A profit's or an inflow's label (its figure shown negative keeps its sign): income, profit, earnings,
#: a gain, revenue or sales, cash provided or generated, proceeds.
_SIGN_ITEM = re.compile(
    r"\b(?:income|profits?|earnings|gains?|revenues?|sales|provided|generated|proceeds|inflows?)\b", re.I
)
