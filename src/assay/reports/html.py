"""``NAME.html``: the self-contained report: the markdown's tables plus inline SVG plots.

Takes only the aggregate, so it cannot leak a case id. The page has no external CSS, scripts,
fonts or images; the plots are matplotlib SVG inlined in the page (see :mod:`assay.reports.plots`).
Every value from the aggregate is escaped by jinja2's autoescape; only the SVG that matplotlib
wrote (which escapes its own text) is inserted as markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from assay.reports.sections import coverage_caption, coverage_table, run_id, slice_table, violation_table
from assay.reports.tables import (
    agreement_caption,
    agreement_tables,
    bottom_caption,
    bottom_table,
    dimension_table,
    lift_caption,
    lift_plot_dims,
    lift_table,
    meta_line,
    no_lift_reason,
    primary_dim,
    show_lift,
    title_line,
    variant_table,
)
from assay.results import Aggregate, load_aggregate

__all__ = ["render_html"]

TEMPLATE = "report.html.j2"


def render_html(aggregate: Aggregate | Mapping[str, Any]) -> str:
    """Render the aggregate as one self-contained html page (ends with a newline).

    ``aggregate``: the model, or an aggregate file's JSON object (loaded with
    :func:`assay.results.load_aggregate`; ``pydantic.ValidationError``, a ``ValueError``, when it
    is not a known aggregate).
    """
    from assay.reports import plots  # matplotlib loads on first render, not on import of assay.reports

    aggregate = load_aggregate(aggregate)

    primary = primary_dim(aggregate)
    lifts = lift_plot_dims(aggregate) or [primary or "composite"]
    figures = [
        plots.composite_plot(aggregate, primary),
        *([plots.lift_plot(aggregate, d) for d in lifts] if show_lift(aggregate) else []),
        plots.distributions_plot(aggregate),
    ]
    agreement = agreement_tables(aggregate)
    html = (
        _environment()
        .get_template(TEMPLATE)
        .render(
            title=title_line(aggregate),
            run_id=run_id(aggregate),
            coverage_caption=coverage_caption(aggregate),
            coverage=coverage_table(aggregate),
            breakdown=[
                (caption, table)
                for caption, table in (
                    ("Cases with a violation, per kind", violation_table(aggregate)),
                    ("Per slice", slice_table(aggregate)),
                )
                if table
            ],
            meta=meta_line(aggregate),
            variants=variant_table(aggregate),
            dimensions=dimension_table(aggregate),
            show_lift=show_lift(aggregate),
            plots=[{"title": p.title, "caption": p.caption, "svg": Markup(p.svg) if p.svg else None} for p in figures],
            lift_caption=lift_caption(aggregate),
            lift=lift_table(aggregate),
            no_lift=no_lift_reason(aggregate),
            agreement_caption=agreement_caption(aggregate) if agreement else None,
            agreement=agreement,
            bottom=bottom_table(aggregate),
            bottom_caption=bottom_caption(aggregate),
            notes=[str(n) for n in aggregate.notes],
        )
    )
    return html.rstrip("\n") + "\n"


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("assay", "reports/templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
