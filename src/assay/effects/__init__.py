"""Stated effects of a change ("composite +0.05"), checked against two runs' paired data.

A pull request states its effect as ``Claim:`` lines (``Claim: composite=+5pp``) and its
non-inferiority promises as ``Guard:`` lines (``Guard: sourcing >= -1pp``);
:func:`parse_statements` reads them from any text, :func:`run_scores` reads a run's
``*.local.json``, and :func:`check_effects` measures each statement on the paired differences
head − base with a seeded bootstrap CI (percentile or BCa) and gives a verdict
(``supported``, ``understated``, ``overstated``, ``not_significant``, ``contradicted``; guards
``held`` / ``not_held``), optionally with Holm's correction on sign-flip permutation p-values.
``assay claims check`` is the CLI over these three functions.

Modules: :mod:`~assay.effects.statements` (the grammar), :mod:`~assay.effects.runs` (records and
pairing, the schema rules), :mod:`~assay.effects.check` (verdicts), :mod:`~assay.effects.report`
(Markdown for a pull-request comment). The statistics are in :mod:`assay.stats.paired`.
"""

from assay.effects.check import EffectCheck, EffectsReport, Verdict, check_effects
from assay.effects.report import markdown_report
from assay.effects.runs import EffectInputError, Pairing, RunScores, run_scores
from assay.effects.statements import StatedEffect, StatementError, parse_statements

__all__ = [
    "EffectCheck",
    "EffectInputError",
    "EffectsReport",
    "Pairing",
    "RunScores",
    "StatedEffect",
    "StatementError",
    "Verdict",
    "check_effects",
    "markdown_report",
    "parse_statements",
    "run_scores",
]
