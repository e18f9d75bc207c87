"""The :class:`Quantity` record: a number stated in text (the reader's output)."""

from __future__ import annotations

from dataclasses import dataclass

from assay.claims.wording import ChangeBase

__all__ = ["Quantity"]


@dataclass(frozen=True)
class Quantity:
    """A number stated in text.

    ``value`` is signed and before scale (``1.2`` for ``$1.2 billion``); ``scale`` the multiplier
    (``1e9``); ``unit`` one of an ISO currency code, ``"<ISO>/share"``, ``"%"``, ``"pp"``, ``"x"``
    or ``None`` (bare number); ``decimals`` the displayed decimals (``383.3`` → 1).
    ``explicit_sign`` is True when the text wrote a minus or parentheses. ``direction`` is +1/−1
    when a verb of change precedes it ("grew", "fell") or a change word follows it ("a 2.8%
    decline", "12% 감소했다"), else None; ``sign_wording`` is True when the wording carries an
    outflow sign ("spent", "paid", "capex", "loss", "손실"). ``range_id`` links the two ends of a
    range.

    Added in issue 15 (all defaulted, so older constructions keep working):

    - ``form``: how it was written — ``"digits"`` (``12%``, ``3조 5천억원``), ``"words"``
      (``twelve percent``), ``"fraction"`` (``a third``, ``1/3``) or ``"multiple"``
      (``doubled``); see :mod:`assay.claims.numwords`.
    - ``tolerance``: the displayed precision as an absolute bound on ``value`` (same units as
      ``value``, before ``scale``) when ``decimals`` does not express it: ``a third`` → 0.02,
      ``doubled`` → 0.05, ``3조 5천억`` → 500 (half of 1천억 in 억 units). None: the precision is
      ``0.5 * 10**-decimals``, as before.
    - ``negative_wording``: the word that asserts the figure itself is negative, lowercased
      (``"loss"``, ``"lost"``, ``"deficit"``, ``"negative"``, ``"손실"``, ``"적자"``), found in the
      number's clause before it (within 60 characters, no other number between) or right after
      it ("a $3 million loss"); None when the wording states no sign. Unlike ``sign_wording``,
      outflow words ("spent", "cost", "capex") do not set it: a cost is stated as a positive
      magnitude, a loss asserts a negative result. See :func:`assay.claims.wording.negative_word_at`.
    - ``change_base``: how a change names its base — ``"against_other"`` for a comparison with
      another figure ("2.9% higher than FY2023", "exceeded … by 2.9%", "2.9% above"),
      ``"from_base"`` for a change from a named base ("down 2.8% from fiscal 2022", "up 5%
      versus", "compared with"), else None. Either way the base may be either cited figure.
    """

    text: str
    span: tuple[int, int]
    value: float
    scale: float = 1.0
    unit: str | None = None
    decimals: int = 0
    explicit_sign: bool = False
    direction: int | None = None
    sign_wording: bool = False
    range_id: int | None = None
    form: str = "digits"
    tolerance: float | None = None
    negative_wording: str | None = None
    change_base: ChangeBase | None = None

    @property
    def base_value(self) -> float:
        """``value * scale`` (``$1.2 billion`` → ``1.2e9``)."""
        return self.value * self.scale

    @property
    def has_scale_word(self) -> bool:
        """True when a scale word/suffix was written (``million``, ``bn``, ``억``)."""
        return self.scale != 1.0


_new = object.__new__


def digits_quantity(
    text: str,
    span: tuple[int, int],
    value: float,
    scale: float,
    unit: str | None,
    decimals: int,
    explicit_sign: bool,
    direction: int | None,
    sign_wording: bool,
    tolerance: float | None,
) -> Quantity:
    """``Quantity(text, span, …, sign_wording, tolerance=tolerance)`` (form ``"digits"``, no range,
    ``negative_wording``/``change_base`` unset), built without the frozen dataclass's
    ``object.__setattr__`` per field (~2.4× faster; the reader makes one per number read): the
    same instance dict, so the same fields, equality, hash and ``replace``
    (``tests/claims/test_fast_paths.py``)."""
    q = _new(Quantity)
    q.__dict__.update(
        text=text,
        span=span,
        value=value,
        scale=scale,
        unit=unit,
        decimals=decimals,
        explicit_sign=explicit_sign,
        direction=direction,
        sign_wording=sign_wording,
        range_id=None,
        form="digits",
        tolerance=tolerance,
        negative_wording=None,
        change_base=None,
    )
    return q
