"""A Markdown block of an :class:`~assay.effects.check.EffectsReport`, ready for a PR comment.

Aggregates only (no case ids): statement, normalised value, pairs, mean difference, CI, verdict.
"""

from __future__ import annotations

from assay.effects.check import EffectsReport

__all__ = ["markdown_report"]

_MARK = {True: "✅", False: "❌"}


def markdown_report(report: EffectsReport, *, base: str, head: str) -> str:
    """The report as Markdown: a heading naming ``base`` → ``head`` (file names, not case ids),
    one table row per statement, then the notes and the method (interval, family, seed)."""
    level = round(100 * report.confidence)
    lines = [
        f"### assay claims check: `{head}` vs `{base}`",
        "",
        f"| | statement | n_pairs | head − base | {level}% CI | verdict |",
        "|---|---|---:|---:|---|---|",
    ]
    for c in report.checks:
        diff = "—" if c.diff is None else f"{c.diff:+.4f}"
        ci = "—" if c.ci is None else f"[{c.ci[0]:+.4f}, {c.ci[1]:+.4f}]"
        verdict = c.verdict if c.p_adjusted is None else f"{c.verdict} (Holm p={c.p_adjusted:.3g})"
        lines.append(f"| {_MARK[c.holds]} | `{c.statement.text}` | {c.n_pairs} | {diff} | {ci} | {verdict} |")
    held = sum(c.holds for c in report.checks)
    lines += ["", f"{held} of {len(report.checks)} hold."]
    lines += [f"- note: {n}" for n in report.notes]
    method = f"{report.interval} paired bootstrap, {report.n_resamples} resamples, seed {report.seed}"
    if report.family == "holm":
        method += "; Holm-adjusted sign-flip permutation p-values"
    lines += ["", f"<sub>{method}</sub>", ""]
    return "\n".join(lines)
