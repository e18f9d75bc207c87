"""Agreement of binary predictions with binary truth: confusion matrix, precision, recall,
accuracy and Cohen's kappa (Cohen, "A coefficient of agreement for nominal scales", Educ. Psych.
Meas. 20, 1960). ``None`` pairs are not judged and are dropped; undefined rates are ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.stats._values import as_bool, ratio, round_value

__all__ = ["Agreement", "agreement"]


@dataclass(frozen=True)
class Agreement:
    """Confusion matrix of binary predictions against binary truth, with derived rates.

    ``n = tp + fp + fn + tn``. Each rate is ``None`` when its denominator is 0; ``kappa`` is
    ``None`` when ``n == 0`` or the expected chance agreement is 1 (both raters constant and
    equal), where Cohen's kappa is 0/0.
    """

    tp: int
    fp: int
    fn: int
    tn: int
    n: int
    precision: float | None
    recall: float | None
    accuracy: float | None
    kappa: float | None

    def to_dict(self) -> dict[str, Any]:
        """All fields as a dict, floats rounded to 6 places."""
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "n": self.n,
            "precision": round_value(self.precision),
            "recall": round_value(self.recall),
            "accuracy": round_value(self.accuracy),
            "kappa": round_value(self.kappa),
        }


def agreement(predicted: Sequence[bool | None], actual: Sequence[bool | None]) -> Agreement:
    """Confusion matrix, precision, recall, accuracy and Cohen's kappa of binary predictions.

    ``True`` is the positive class. With p_o = (tp+tn)/n and
    p_e = ((tp+fp)(tp+fn) + (fn+tn)(fp+tn))/n², kappa = (p_o − p_e)/(1 − p_e) (Cohen 1960).

    Args:
        predicted, actual: equal-length sequences of booleans (``bool``, ``numpy.bool_`` or
            integer 0/1) or ``None``; a pair with ``None`` on either side is dropped (not judged).

    Returns:
        :class:`Agreement`; precision = tp/(tp+fp), recall = tp/(tp+fn), accuracy = (tp+tn)/n,
        each ``None`` when its denominator is 0; kappa ``None`` when ``n == 0`` or ``p_e == 1``.

    Raises:
        ValueError: lengths differ, or a non-``None`` element is not boolean.
    """
    if len(predicted) != len(actual):
        raise ValueError(f"predicted and actual differ in length: {len(predicted)} != {len(actual)}")
    tp = fp = fn = tn = 0
    for p, a in zip(predicted, actual, strict=True):
        if p is None or a is None:
            continue
        pb, ab = as_bool(p, "predicted"), as_bool(a, "actual")
        if pb and ab:
            tp += 1
        elif pb:
            fp += 1
        elif ab:
            fn += 1
        else:
            tn += 1
    n = tp + fp + fn + tn
    kappa: float | None = None
    if n:
        p_o = (tp + tn) / n
        p_e = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        if p_e < 1.0:
            kappa = (p_o - p_e) / (1.0 - p_e)
    return Agreement(
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        n=n,
        precision=ratio(tp, tp + fp),
        recall=ratio(tp, tp + fn),
        accuracy=ratio(tp + tn, n),
        kappa=kappa,
    )
