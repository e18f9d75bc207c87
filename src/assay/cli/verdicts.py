"""``assay verdicts …``: add verdicts to a store, search it by structural similarity, describe it.

Thin: parses options, calls :mod:`assay.verdicts`, prints. The database is the global
``assay --db URL`` (then ``ASSAY_DB_URL``, then ``$ASSAY_HOME/assay.db``). A store is named with
``--store`` (default ``default``); its similarity spec is fixed when it is created (``--spec
spec.json`` on the first ``add``, else the reference spec). Bad input exits 2 with one
``file:line: field: problem`` line per problem and inserts nothing; adding a verdict already
stored identically changes nothing, one stored with other content is a conflict (exit 2). A
``--store`` that does not exist exits 2 naming the stores that do (``search``, ``stats``).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from assay.cli.app import verdicts_app
from assay.cli.common import UsageError, db_errors, db_url, err, out, user_errors

__all__ = ["add_cmd", "search_cmd", "stats_cmd"]

_STORE_OPT = typer.Option("default", "--store", help="Store name (several stores can share one database).")
_SPEC_OPT = typer.Option(
    None, "--spec", help="Similarity spec JSON; fixed when the store is created, must match after."
)


@verdicts_app.command("add")
def add_cmd(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ..., help="Verdicts JSONL: {id, fields, decision, rationale, description, created_at?, source?} a line."
    ),
    store: str = _STORE_OPT,
    spec: Path | None = _SPEC_OPT,
) -> None:
    """Insert every verdict of FILE in one transaction (nothing is inserted if any line is bad).
    Idempotent: verdicts already stored identically are left as they are."""

    with user_errors(ctx), db_errors():
        vs = _open(ctx, store, spec)
        r = vs.add_file_result(file)
        total = vs.count()
    same = f", {r.unchanged} already there unchanged" if r.unchanged else ""
    out.print(f"added {r.added} verdict(s) to store {store!r}{same} ({total} in all)", markup=False)


@verdicts_app.command("search")
def search_cmd(
    ctx: typer.Context,
    query: Path = typer.Option(
        ..., "--query", help='Query JSON: {"fields": {...}, "description": "..." (for an embedding term)}.'
    ),
    k: int = typer.Option(5, "-k", "--k", min=1, help="How many verdicts to return."),
    as_json: bool = typer.Option(
        False, "--json", help='Print a JSON array, best first, of {"id", "score", "components", "decision"}.'
    ),
    store: str = _STORE_OPT,
    spec: Path | None = _SPEC_OPT,
) -> None:
    """The K verdicts most similar to the query's structured fields (ties by id ascending)."""
    from assay.verdicts.models import load_query

    with user_errors(ctx), db_errors():
        vs = _open(ctx, store, spec, must_exist=True)
        q = load_query(query, vs.spec)
        hits = vs.retrieve(q, k)
    if as_json:
        out.print(json.dumps([h.summary() for h in hits], indent=2, ensure_ascii=False), markup=False)
        return
    if not hits:
        err.print(f"store {store!r} is empty: nothing to search", markup=False)
        return
    names = list(hits[0].components)
    t = Table(title=f"top {len(hits)} of store {store!r}")
    for col in ("#", "id", "score", *names, "decision"):  # narrow terminals: names fold, numbers stay whole
        number = col in ("score", *names)
        t.add_column(
            col,
            no_wrap=col in ("#", "id"),
            overflow="fold",
            min_width=5 if number else None,
        )
    for h in hits:
        t.add_row(
            str(h.rank),
            Text(h.verdict.id),
            f"{h.score:.3f}",
            *(f"{h.components[n]:.3f}" for n in names),
            Text(h.verdict.decision),
        )
    out.print(t)


@verdicts_app.command("stats")
def stats_cmd(
    ctx: typer.Context,
    store: str = _STORE_OPT,
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
) -> None:
    """How many verdicts, decisions, sources and field distributions a store holds (no ids)."""

    with user_errors(ctx), db_errors():
        s = _open(ctx, store, None, must_exist=True).stats()
    if as_json:
        out.print(json.dumps(s, indent=2, ensure_ascii=False), markup=False)
        return
    out.print(f"store {s['store']!r}: {s['n']} verdict(s)", markup=False)
    if not s["n"]:
        return
    span = s["created_at"]
    if span["min"]:
        out.print(f"created_at: {span['min']} … {span['max']}", markup=False)
    t = Table(title="decisions")
    t.add_column("decision")
    t.add_column("n", justify="right")
    for d, n in s["decisions"].items():
        t.add_row(Text(d), str(n))
    out.print(t)
    f = Table(title="fields (spec)")
    for col in ("field", "kind", "weight", "distribution"):
        f.add_column(col)
    for name, summary in s["fields"].items():
        weight = s["spec"]["fields"][name]["weight"]
        f.add_row(Text(name), summary["kind"], f"{weight:g}", Text(_describe(summary)))
    if s["spec"]["embedding"]["weight"]:
        f.add_row("embedding", "cosine", f"{s['spec']['embedding']['weight']:g}", "description embeddings")
    out.print(f)


# --- helpers -------------------------------------------------------------------------------


def _open(ctx: typer.Context, store: str, spec_path: Path | None, *, must_exist: bool = False):
    """The store; with ``must_exist``, :class:`UsageError` naming the stores there are when
    ``store`` was never created (a typo in ``--store`` must not read as an empty store). The
    default store of a database with no store at all is just empty."""
    from assay.verdicts.spec import load_spec
    from assay.verdicts.store import VerdictStore, store_sizes

    spec = load_spec(spec_path) if spec_path is not None else None
    if spec is not None and spec.embedding.weight > 0:
        raise ValueError(
            f"{spec_path}: embedding.weight: the CLI has no embedder; use weight 0 here, "
            "or the library API VerdictStore(..., embedder=...) for a hybrid score"
        )
    vs = VerdictStore(db_url(ctx), name=store, spec=spec)
    if must_exist and not vs.exists() and ((sizes := store_sizes(vs.engine)) or store != "default"):
        there = (
            "stores here: " + ", ".join(f"{n!r} ({c} verdict{'s' if c != 1 else ''})" for n, c in sizes.items())
            if sizes
            else "this database has no verdict store yet: add verdicts first (assay verdicts add FILE --store NAME)"
        )
        raise UsageError(f"--store {store!r}: no such verdict store; {there}")
    return vs


def _describe(summary: dict) -> str:
    if summary["kind"] == "set":
        mean = summary["mean_items"]
        return (
            f"{summary['distinct']} distinct codes, {mean:.1f} per verdict "
            f"({summary['min_items']}–{summary['max_items']})"
        )
    items = list(summary["counts"].items())
    shown = ", ".join(f"{k}: {v}" for k, v in items[:8])
    return shown + (f", … (+{len(items) - 8})" if len(items) > 8 else "")
