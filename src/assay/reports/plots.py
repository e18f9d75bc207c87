"""Inline SVG plots for the html report, drawn with matplotlib from the aggregate alone.

Figures are built with :class:`matplotlib.figure.Figure` and an explicit SVG canvas, never with
pyplot, so rendering touches no global backend and works headless; rcParams are set inside an
``rc_context`` (constant ``svg.hashsalt``, no mathtext, text kept as text), so the output is
byte-stable and the caller's matplotlib settings are left as they were. Each SVG loses its XML
prolog, DOCTYPE and metadata (which name external URLs), and its element ids get a per-plot
prefix so several plots can share one html document.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from assay.reports.tables import lift_order, lift_row, report_dims, variant_order, variant_stat
from assay.results import Aggregate

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType  # the rcParams key Literal (matplotlib >= 3.10), for mypy only

__all__ = ["Plot", "composite_plot", "distributions_plot", "lift_plot"]

ACCENT = "#2f6db5"
MUTED = "#9aa5b1"
RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "assay-report",
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#6b7785",
    "axes.labelcolor": "#2b3440",
    "xtick.color": "#2b3440",
    "ytick.color": "#2b3440",
}


@dataclass(frozen=True)
class Plot:
    """A rendered plot: its title, the inline ``<svg>`` (``None`` when not drawable) and a caption."""

    title: str
    svg: str | None
    caption: str


def composite_plot(aggregate: Aggregate, dim: str | None) -> Plot:
    """Mean of ``dim`` (composite) per variant with its 95% CI, best variant on top."""
    title = f"{dim or 'score'} mean per variant, 95% CI"
    rows = [(n, variant_stat(aggregate, n, dim)) for n in variant_order(aggregate)]
    shown = [(n, s) for n, s in rows if _finite(s.mean)]
    missing = [n for n, s in rows if not _finite(s.mean)]
    if not shown:
        return Plot(title, None, f"No variant has a {dim} mean to plot.")
    points = [(n, float(s.mean or 0.0), _ci(s.ci)) for n, s in shown]
    svg = _interval_svg(points, xlabel=f"{dim} mean", zero_line=False, bounded=True, prefix="composite")
    caption = "Filled dot: mean with 95% bootstrap CI; hollow dot: no CI (fewer than 2 measured cases)."
    if missing:
        caption += " Not plotted (not measured): " + ", ".join(missing) + "."
    return Plot(title, svg, caption)


def lift_plot(aggregate: Aggregate, dim: str = "composite") -> Plot:
    """Forest plot of each variant's paired ``dim`` lift over the baseline, with a line at 0."""
    baseline = aggregate.baseline
    title = f"{dim} lift vs {baseline} (paired diff, 95% CI)" if baseline else f"{dim} lift"
    if not baseline:
        return Plot(title, None, "No baseline variant, so there is no lift plot.")
    names = [n for n in lift_order(aggregate) if n != baseline]
    rows = [(n, lift_row(aggregate, n, dim)) for n in names]
    points = [(n, float(r.diff or 0.0), _ci(r.ci)) for n, r in rows if _finite(r.diff)]
    missing = [n for n, r in rows if not _finite(r.diff)]
    if not points:
        return Plot(title, None, f"No variant has a paired {dim} lift over {baseline} to plot.")
    prefix = "lift-" + re.sub(r"[^A-Za-z0-9_-]", "_", dim)  # one id namespace per plot in the page
    svg = _interval_svg(points, xlabel=f"{dim} − {baseline}", zero_line=True, bounded=False, prefix=prefix)
    caption = "Right of 0: better than the baseline. Hollow dot: no CI (fewer than 2 pairs)."
    if missing:
        caption += " Not plotted (no pairs): " + ", ".join(missing) + "."
    return Plot(title, svg, caption)


def distributions_plot(aggregate: Aggregate) -> Plot:
    """Small multiples: one histogram per variant (row) and dimension (column), as shares of cases."""
    title = "Score distributions per dimension"
    names, dims = variant_order(aggregate), report_dims(aggregate)
    if not names or not dims:
        return Plot(title, None, "No variants or dimensions to plot.")
    with matplotlib.rc_context(RC):
        width = 1.75 * len(dims) + 0.4 + _label_width(names)
        fig = Figure(figsize=(width, 1.15 * len(names) + 0.7), layout="constrained")
        # no sharex/sharey: shared axes made drawing quadratic in the cell count (16 variants × 5
        # dimensions took ~10 s); every cell sets the same limits and inner tick labels are hidden
        axes = fig.subplots(len(names), len(dims), squeeze=False)
        for i, name in enumerate(names):
            for j, dim in enumerate(dims):
                ax = axes[i][j]
                _hist_cell(ax, aggregate, name, dim)
                ax.set_ylim(0, 1)
                ax.tick_params(labelleft=j == 0, labelbottom=i == len(names) - 1)
                if i == 0:  # above the "n=…" label (2–10 pt over the axes): at one height they overlapped
                    ax.set_title(dim, fontsize=9, pad=13)
            axes[i][0].set_ylabel(_short(name), rotation=0, ha="right", va="center", fontsize=9)
        svg = _svg(fig, "dist")
    return Plot(title, svg, "Bars: share of the variant's measured cases in each score bin; n = cases measured.")


def _hist_cell(ax: Any, aggregate: Aggregate, name: str, dim: str) -> None:
    variant = aggregate.variants.get(name)
    hist = variant.hist.get(dim) if variant is not None else None
    edges, counts = (list(hist.edges), list(hist.counts)) if hist is not None else ([], [])
    total = sum(c for c in counts if _finite(c))
    ax.tick_params(labelsize=7, length=2)
    ax.set_yticks([0, 0.5, 1])
    if len(edges) != len(counts) + 1 or total <= 0:
        ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center", va="center", fontsize=7, color=MUTED)
        return
    widths = [b - a for a, b in pairwise(edges)]
    ax.bar(
        edges[:-1],
        [c / total for c in counts],
        width=widths,
        align="edge",
        color=ACCENT,
        edgecolor="white",
        linewidth=0.4,
    )
    ax.set_xlim(edges[0], edges[-1])
    ax.set_xticks([edges[0], (edges[0] + edges[-1]) / 2, edges[-1]])  # neighbours' 1.0 and 0.0 labels collided
    # above the axes, right-aligned: inside them a full-height bar at 1.0 covered the label. Not a
    # right-hand title: an axes' three titles share one offset, so the column title sat on it
    ax.annotate(
        f"n={int(total)}",
        xy=(1, 1),
        xycoords="axes fraction",
        xytext=(0, 2),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=7,
        color="#2b3440",
    )


def _interval_svg(
    points: Sequence[tuple[str, float, tuple[float, float] | None]],
    *,
    xlabel: str,
    zero_line: bool,
    bounded: bool,
    prefix: str,
) -> str:
    """Horizontal point-and-interval plot, first point on top."""
    with matplotlib.rc_context(RC):
        fig = Figure(
            figsize=(6.0 + _label_width([p[0] for p in points]), 0.38 * len(points) + 0.9), layout="constrained"
        )
        ax = fig.add_subplot()
        ys = list(range(len(points)))[::-1]
        for y, (_, value, ci) in zip(ys, points, strict=True):
            if ci:  # drawn as a segment, not errorbar(): a bootstrap CI need not contain the mean
                ax.plot(ci, [y, y], "-", color=ACCENT, linewidth=1.6)
                ax.plot(ci, [y, y], "|", color=ACCENT, markersize=7, markeredgewidth=1.3)
                ax.plot(value, y, "o", color=ACCENT, markersize=5)
            else:
                ax.plot(value, y, "o", markerfacecolor="white", markeredgecolor=ACCENT, markersize=5)
        ax.set_yticks(ys, [_short(name) for name, _, _ in points])
        ax.set_ylim(-0.6, len(points) - 0.4)
        lows = [ci[0] if ci else v for _, v, ci in points]
        highs = [ci[1] if ci else v for _, v, ci in points]
        lo, hi = min(lows + ([0.0] if bounded or zero_line else [])), max(highs + ([1.0] if bounded else []))
        if zero_line:
            hi = max(hi, 0.0)
            ax.axvline(0, color="#444", linewidth=1, linestyle="--")
        pad = 0.04 * ((hi - lo) or 1.0)
        ax.set_xlim(lo - pad, hi + pad)
        ax.grid(axis="x", color="#e3e7eb", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlabel(xlabel)
        return _svg(fig, prefix)


_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_ID = re.compile(r'\bid="([^"]+)"')


def _svg(fig: Figure, prefix: str) -> str:
    """The figure as inline SVG: no prolog/DOCTYPE/metadata, every id prefixed with ``prefix``."""
    FigureCanvasSVG(fig)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = _METADATA.sub("", _PROLOG.sub("", buf.getvalue(), count=1), count=1)
    ids = set(_ID.findall(svg))
    if ids:  # one pass over the text (a replace per id was quadratic: ~1 s for 80 histograms)
        ref = re.compile(
            r'(id="|href="#|url\(#)('
            + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
            + r')(?=[")])'
        )
        svg = ref.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)
    return svg.replace("<svg ", f'<svg role="img" class="plot" id="{prefix}" ', 1).strip()


def _label_width(labels: Sequence[str]) -> float:
    """Inches to leave for the longest y tick label at 9 pt (capped so a long name cannot win)."""
    return min(0.065 * max((len(_short(x)) for x in labels), default=0), 3.0)


#: Longest variant label drawn in a plot; a longer one keeps its start and end around ``…``
#: (the tables beside the plots show it whole). 44 characters at 9 pt fit the 3-inch label cap.
LABEL_MAX = 44


def _short(label: object) -> str:
    """``label`` as text, shortened in the middle to :data:`LABEL_MAX` characters."""
    text = str(label)
    if len(text) <= LABEL_MAX:
        return text
    head = (LABEL_MAX - 1) // 2
    return text[:head] + "…" + text[len(text) - (LABEL_MAX - 1 - head) :]


def _ci(ci: Any) -> tuple[float, float] | None:
    if isinstance(ci, Sequence) and not isinstance(ci, str) and len(ci) == 2 and all(map(_finite, ci)):
        return float(min(ci)), float(max(ci))
    return None


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf")
