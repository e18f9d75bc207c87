"""Statistics for aggregates: bootstrap CIs, paired bootstrap, rank correlation, AUC, agreement.

Everything here is a pure function of its arguments: values in, values out, no printing and no
global state. Randomness comes only from ``numpy.random.default_rng(seed)`` created inside each
call, so the same inputs and seed give the same result on every platform numpy supports.

Conventions shared by every function (DESIGN.md, "The judge contract"):

- ``None`` means "not measured" and is dropped from the denominator; ``effective_n`` / ``n_pairs``
  / ``n`` say how many values were actually used.
- NaN and ±inf are never silently dropped: they raise :class:`ValueError`, because a NaN score is
  a bug upstream (an unparseable judge output, a division by zero), not a missing measurement.
- Where a statistic is undefined (too few values, a constant input, an empty class) the result is
  ``None``, never NaN, so result files hold ``null`` and never ``NaN``.

One module per concept:

- :mod:`assay.stats.summary`: :class:`Summary` / :func:`summarize`, :func:`bootstrap_ci` (plain
  and clustered), :class:`PairedDiff` / :func:`paired_bootstrap`;
- :mod:`assay.stats.rank`: :func:`spearman`, :func:`auc`;
- :mod:`assay.stats.confusion`: :class:`Agreement` / :func:`agreement` (confusion matrix, kappa);
- ``_resample`` (block-wise resampling, percentile intervals, cluster codes) and ``_values``
  (validation of inputs, the rounding of result files): internals shared by the modules above.

A new statistic (e.g. sequential tests / confidence sequences) gets its own module here and is
re-exported below; resampling schemes (e.g. more cluster levels) go to ``_resample``.

Sources:

- Percentile bootstrap: Efron & Tibshirani, *An Introduction to the Bootstrap* (1993), ch. 13;
  quantiles with numpy's default linear interpolation, as ``scipy.stats.bootstrap`` does.
- Cluster bootstrap (resampling whole clusters): Davison & Hinkley, *Bootstrap Methods and their
  Application* (1997), §3.8; Field & Welsh, "Bootstrapping clustered data", JRSS-B 69 (2007).
- Cohen's kappa: Cohen, "A coefficient of agreement for nominal scales", Educ. Psych. Meas. 20
  (1960).
- ROC AUC as the Mann–Whitney U statistic: Hanley & McNeil, "The meaning and use of the area
  under a ROC curve", Radiology 143 (1982).
"""

from __future__ import annotations

from assay.stats._values import ROUND_DIGITS
from assay.stats.confusion import Agreement, agreement
from assay.stats.rank import SPEARMAN_EXACT_BELOW, auc, spearman
from assay.stats.summary import PairedDiff, Summary, bootstrap_ci, paired_bootstrap, summarize

__all__ = [
    "Summary",
    "PairedDiff",
    "Agreement",
    "summarize",
    "bootstrap_ci",
    "paired_bootstrap",
    "spearman",
    "auc",
    "agreement",
    "ROUND_DIGITS",
    "SPEARMAN_EXACT_BELOW",
]
