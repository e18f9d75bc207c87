"""``NAME.md``: the one-screen summary of an eval aggregate.

Takes only the aggregate (never the per-case results), so it cannot leak a case id: a title line,
the variant table ranked by the headline composite (coverage flags marked), lift vs the baseline,
the breakdown by violation kind and by slice, agreement with human labels when the run had them,
the bottom-k rows per dimension (anonymised as ``#1/#2/#3`` and the run's salted key), and the
run's notes. An eval schema-2 report starts with ``<!-- run_id: … -->``, the id its three sibling
files carry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from assay.reports.sections import coverage_caption, coverage_table, run_id, slice_table, violation_table
from assay.reports.tables import (
    Table,
    agreement_caption,
    agreement_tables,
    bottom_caption,
    bottom_table,
    dimension_table,
    lift_caption,
    lift_table,
    meta_line,
    no_lift_reason,
    show_lift,
    title_line,
    variant_table,
)
from assay.results import Aggregate, load_aggregate

__all__ = ["render_markdown"]


def render_markdown(aggregate: Aggregate | Mapping[str, Any]) -> str:
    """Render the aggregate as a short GitHub-flavoured markdown report (ends with a newline).

    ``aggregate``: the model, or an aggregate file's JSON object (loaded with
    :func:`assay.results.load_aggregate`; ``pydantic.ValidationError``, a ``ValueError``, when it
    is not a known aggregate).
    """
    aggregate = load_aggregate(aggregate)
    rid = run_id(aggregate)
    out = [f"<!-- run_id: {_esc(rid)} -->", ""] if rid else []
    out += [f"# {_esc(title_line(aggregate))}", "", _esc(meta_line(aggregate)), ""]
    out += ["## Variants", "", *_table(variant_table(aggregate)), ""]
    coverage = coverage_table(aggregate)
    if coverage:
        out += [f"## {_esc(coverage_caption(aggregate))}", "", *_table(coverage), ""]
    dims = dimension_table(aggregate)
    if dims:
        out += ["## Per dimension", "", *_table(dims), ""]

    if show_lift(aggregate):
        lift = lift_table(aggregate)
        out += [f"## {_esc(lift_caption(aggregate))}", ""]
        out += [*_table(lift), ""] if lift else [_esc(no_lift_reason(aggregate)), ""]

    for caption, table in (
        ("Cases with a violation, per kind", violation_table(aggregate)),
        ("Per slice", slice_table(aggregate)),
    ):
        if table:
            out += [f"## {caption}", "", *_table(table), ""]

    agreement = agreement_tables(aggregate)
    if agreement:
        confusion, metrics, left_out = agreement
        out += [
            f"## {_esc(agreement_caption(aggregate))}",
            "",
            *_table(confusion),
            "",
            *_table(metrics),
            "",
            _esc(left_out),
            "",
        ]

    bottom = bottom_table(aggregate)
    if bottom:
        out += [f"## {_esc(bottom_caption(aggregate))}", "", *_table(bottom), ""]

    notes = [str(n) for n in aggregate.notes]
    if notes:
        out += ["## Notes", "", *(f"- {_esc(n)}" for n in notes), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _table(table: Table) -> list[str]:
    align = ["---:" if num else "---" for num in table.numeric]
    lines = [_row(table.headers), "|" + "|".join(align) + "|"]
    return lines + [_row(r) for r in table.rows]


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(_esc(c) for c in cells) + " |"


_SPECIAL = re.compile(r"([\\`*|<>])")


def _esc(text: str) -> str:
    """Backslash-escape markdown/HTML specials and fold newlines so a value cannot break the layout.

    Brackets stay readable (``0.81 [0.75, 0.86]``); only ``](`` is escaped, which is enough to
    stop a value from forming an inline link.
    """
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split())).replace("](", "]\\(")
