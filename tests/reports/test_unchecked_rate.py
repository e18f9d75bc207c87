"""Reports show eval's ``unchecked_rate`` beside the sourcing figures (issue 15): a case whose only
numbers the gate could not interpret is neither ``no_claims`` nor a gate failure, and the report
says how often it happened. Aggregate only: the column holds a rate, never a case id."""

from __future__ import annotations

from tests.reports.test_reports import make_aggregate

from assay.reports import render_html, render_markdown


def _with_unchecked() -> dict:
    agg = make_aggregate()
    for name, rate in (("single_pass", 0.15), ("debate", 0.0), ("mini_model", 1.0)):
        agg["variants"][name]["unchecked_rate"] = rate
    return agg


def _row(md: str, variant: str) -> list[str]:
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {variant} "))
    return [c.strip() for c in line.strip("|").split("|")]


def test_markdown_variant_table_has_an_unchecked_column_beside_the_rates() -> None:
    md = render_markdown(_with_unchecked())
    header = next(ln for ln in md.splitlines() if ln.startswith("| variant "))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols[-3:] == ["no claims", "gate fail", "unchecked"]
    assert _row(md, "single_pass")[-1] == "0.150"
    assert _row(md, "mini_model")[-1] == "1.000"


def test_html_shows_the_unchecked_rate() -> None:
    html = render_html(_with_unchecked())
    assert ">unchecked<" in html
    assert "0.15" in html


def test_no_unchecked_column_when_no_variant_has_the_rate() -> None:
    """Older aggregates (before issue 15) have no ``unchecked_rate``: no empty column appears."""
    md = render_markdown(make_aggregate())
    header = next(ln for ln in md.splitlines() if ln.startswith("| variant "))
    assert "unchecked" not in header
