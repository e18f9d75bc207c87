"""Input validation and result rounding shared by the statistics modules (internal).

Values arrive as sequences of numbers and ``None`` (not measured); NaN, ±inf and non-numbers are
errors (see :mod:`assay.stats`). Results are rounded to :data:`ROUND_DIGITS` places for the
result files.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

#: Decimal places kept by the ``to_dict()`` methods (result files).
ROUND_DIGITS = 6

#: A 1-D float64 array of validated (finite) values.
FloatArray = npt.NDArray[np.float64]


def clean_values(
    values: Sequence[float | None] | FloatArray, clusters: Sequence[Hashable] | None
) -> tuple[FloatArray, list[Hashable] | None]:
    """Drop ``None`` (with its cluster key) and validate the rest as finite floats."""
    if clusters is not None and len(clusters) != len(values):
        raise ValueError(f"clusters must have one key per value: {len(clusters)} keys for {len(values)} values")
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
        x = finite_array(values, name="values")
        keys = list(clusters) if clusters is not None else None
        return x, keys
    x = finite_array([0.0 if v is None else v for v in values], name="values")
    keep = [i for i, v in enumerate(values) if v is not None]
    keys = [clusters[i] for i in keep] if clusters is not None else None
    return x[keep], keys


def finite_array(values: Sequence[float] | npt.NDArray[np.generic], *, name: str) -> FloatArray:
    """1-D float64 array of ``values``; ValueError on NaN, ±inf or non-numeric input."""
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: every value must be a number or None ({exc})") from None
    if x.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"{name}: non-finite value {float(x[bad])!r} at position {bad}; use None for 'not measured'")
    return x


def paired_arrays(
    x: Sequence[float | None], y: Sequence[float | None], xname: str, yname: str
) -> tuple[FloatArray, FloatArray]:
    """Drop pairs with ``None`` on either side; validate both sides as finite floats."""
    if len(x) != len(y):
        raise ValueError(f"{xname} and {yname} differ in length: {len(x)} != {len(y)}")
    xs = finite_array([0.0 if v is None else v for v in x], name=xname)
    ys = finite_array([0.0 if v is None else v for v in y], name=yname)
    keep = np.array([u is not None and v is not None for u, v in zip(x, y, strict=True)], dtype=bool)
    return xs[keep], ys[keep]


def checked_mean(x: FloatArray) -> float:
    """Mean of a non-empty finite array, from an exactly rounded sum; ValueError on overflow.

    The result is clipped to [min(x), max(x)], where the exact mean lies, so identical values
    give exactly that value (plain Σx/n can land one ulp off).
    """
    try:
        m = math.fsum(x.tolist()) / x.size
    except OverflowError:
        m = math.inf
    if not math.isfinite(m):
        raise ValueError("mean overflows float64; rescale the values")
    return min(max(m, float(x.min())), float(x.max()))


def sample_std(x: FloatArray, mean: float) -> float:
    """Sample standard deviation (ddof=1) about ``mean``; needs ``x.size >= 2``."""
    d = x - mean
    return float(np.sqrt(np.dot(d, d) / (x.size - 1)))


def check_bootstrap_params(n_resamples: int, confidence: float) -> None:
    """Validate ``n_resamples`` (integer >= 1) and ``confidence`` (in (0, 1))."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise ValueError(f"n_resamples must be an integer, got {n_resamples!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def is_constant(x: npt.NDArray[np.generic]) -> bool:
    """True when every element equals the first (an empty array counts as constant)."""
    return bool(x.size == 0 or np.all(x == x[0]))


def as_bool(value: object, name: str) -> bool:
    """``bool``/``numpy.bool_``/integer 0 or 1 → bool; ValueError for anything else."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{name}: expected a boolean, got {value!r}")


def ratio(num: int, den: int) -> float | None:
    """num/den, or None when den == 0."""
    return num / den if den else None


def round_value(v: float | None) -> float | None:
    """Round to ROUND_DIGITS places, keeping None."""
    return None if v is None else round(float(v), ROUND_DIGITS)


def round_pair(ci: tuple[float, float] | None) -> list[float] | None:
    """CI tuple → rounded ``[lo, hi]`` list, keeping None."""
    if ci is None:
        return None
    return [round(float(ci[0]), ROUND_DIGITS), round(float(ci[1]), ROUND_DIGITS)]
