"""``assay memory …``: add memories, search (logging deliveries), grade, engage, backfill, stats,
export labels, evaluate retrieval (``train`` and ``calibrate``: :mod:`assay.cli.memory_learn`).

Thin: parses options, calls :mod:`assay.memory`, prints. The database is the global ``assay
--db URL`` (then ``ASSAY_DB_URL``, then ``$ASSAY_HOME/assay.db``). The embedder is
``--embedder`` (default ``ASSAY_MEMORY_EMBEDDER``, else ``minilm``, which needs the ``ml``
extra; ``hashing`` needs nothing). Bad input exits 2 with one ``file:line: field: problem``
line per problem.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from assay.cli.app import memory_app
from assay.cli.common import UsageError, db_errors, err, fmt_plain, open_memory_store, out, print_uncut, user_errors

__all__ = [
    "EmbedderName",
    "RankerName",
    "add_cmd",
    "backfill_cmd",
    "engage_cmd",
    "evaluate_cmd",
    "export_cmd",
    "grade_cmd",
    "search_cmd",
    "stats_cmd",
]


class EmbedderName(str, Enum):
    minilm = "minilm"
    hashing = "hashing"


class RankerName(str, Enum):
    composite = "composite"
    dense = "dense"
    bm25 = "bm25"
    reranker = "reranker"


_EMBEDDER_OPT = typer.Option(
    None, "--embedder", help="minilm (needs the 'ml' extra) or hashing; default $ASSAY_MEMORY_EMBEDDER, else minilm."
)
_JSON_OPT = typer.Option(False, "--json", help="Print JSON.")

_QUIET_OPT = typer.Option(False, "--quiet", "-q", help="No progress bar or progress lines on stderr.")


def _progress(ctx: typer.Context, label: str, quiet: bool, total: int | None = None) -> Any:
    """:func:`~assay.memory.retrieval.progress.memory_progress` on stderr, off with ``--quiet`` (or ``ctx.obj``'s)."""
    from assay.cli.common import progress_bar
    from assay.memory.retrieval.progress import memory_progress

    root = ctx.find_root().obj
    quiet = quiet or (isinstance(root, dict) and bool(root.get("quiet")))
    return memory_progress(label, quiet=quiet, console=err, bar=progress_bar, total=total)


@memory_app.command("add")
def add_cmd(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ...,
        help="Memories JSONL: {text, id?, keywords?, scope?, layer?, confidence?, created_at?, source_ref?, "
        "is_correction?, supersedes?, embedding?, meta?} a line.",
    ),
    embedder: EmbedderName | None = _EMBEDDER_OPT,
    quiet: bool = _QUIET_OPT,
) -> None:
    """Add every memory of FILE in one transaction (duplicates merge; nothing is added if a line is bad)."""

    with user_errors(ctx), db_errors():
        store = _open(ctx, embedder)
        lines = _count_lines(file)
        with _progress(ctx, "embedding memories", quiet, total=lines) as update:
            done = [0]

            def seen(n: int) -> None:
                done[0] += n
                update(done[0], lines)

            store.report_embedding(seen)
            r = store.add_file(file)
        total = store.count()
        from assay.memory.retrieval.scripts import script_warning

        warning = script_warning(store)
    out.print(
        f"added {len(r.added)}, merged {len(r.merged)} duplicate(s), updated {len(r.updated)}, "
        f"unchanged {len(r.unchanged)}, "
        f"superseded {len(r.superseded)} ({total} memories in all)",
        markup=False,
    )
    if warning:
        err.print(f"warning: {warning}", markup=False)


@memory_app.command("search")
def search_cmd(
    ctx: typer.Context,
    context: str = typer.Argument(..., help="The recent-context window to search for ('-' reads stdin)."),
    k: int = typer.Option(
        5, "-k", "--k", help="How many memories to deliver: 1 to 1,000 (ASSAY_MEMORY_MAX_K raises the bound)."
    ),
    scope: str | None = typer.Option(None, "--scope", help="The query's scope (scores the scope component)."),
    only_scope: bool = typer.Option(False, "--only-scope", help="Restrict the search to --scope."),
    session: str | None = typer.Option(None, "--session", help="Session id recorded with the deliveries."),
    explain: bool = typer.Option(False, "--explain", help="Show the score components."),
    as_json: bool = _JSON_OPT,
    embedder: EmbedderName | None = _EMBEDDER_OPT,
) -> None:
    """Deliver the top K memories and log them under a new search id (printed first)."""

    with user_errors(ctx), db_errors():
        if only_scope and scope is None:
            raise UsageError("--only-scope needs --scope")
        text = sys.stdin.read() if context == "-" else context
        res = _open(ctx, embedder).search(
            text, k, scope=scope, session_id=session, restrict_to_scope=only_scope, explain=explain
        )
    if as_json:
        hits = [
            {
                "rank": h.rank,
                "memory_id": h.memory.id,
                "score": h.score,
                "text": h.memory.text,
                "delivery_id": h.delivery_id,
                **({"components": h.components} if explain else {}),
            }
            for h in res.hits
        ]
        out.print(
            json.dumps({"search_id": res.search_id, "query": res.query, "hits": hits}, indent=2, ensure_ascii=False),
            markup=False,
        )
        return
    out.print(f"search_id {res.search_id}", markup=False)
    if not res.hits:
        out.print("no memory to deliver", markup=False)
        return
    t = Table()
    names = list(res.hits[0].components or {}) if explain else []
    for col in ("#", "memory", "score", *names, "text"):
        t.add_column(col, no_wrap=col != "text", max_width=60 if col == "text" else None)
    for h in res.hits:
        t.add_row(
            str(h.rank),
            Text(h.memory.id),
            f"{h.score:.3f}",
            *(f"{h.components[n]:.3f}" for n in names),
            Text(_clip(h.memory.text)),
        )  # type: ignore[index]
    print_uncut(t)


@memory_app.command("grade")
def grade_cmd(
    ctx: typer.Context,
    search_id: str = typer.Argument(..., help="The search id the grades are for."),
    grades: str = typer.Argument(..., help="The agent's grade field, e.g. 'm12:3, m7:0!' (0-3; '!' = hard negative)."),
    as_json: bool = _JSON_OPT,
) -> None:
    """Write the agent's grades to a search's deliveries; malformed entries and unknown ids are skipped and listed."""
    from assay.memory.feedback.grades import apply_grades

    with user_errors(ctx), db_errors():
        rep = apply_grades(_open(ctx, None), search_id, grades)
    if as_json:
        out.print(json.dumps(rep.to_dict(), indent=2, ensure_ascii=False), markup=False)
    else:
        out.print(
            f"graded {rep.applied} deliver{'y' if rep.applied == 1 else 'ies'} ({rep.regraded} regraded); "
            f"skipped {len(rep.malformed)} malformed, {len(rep.unknown)} unknown id(s)",
            markup=False,
        )
        for m in rep.malformed:
            err.print(f"malformed: {m}", markup=False)
        for u in rep.unknown:
            err.print(f"unknown: {u} was not delivered by this search", markup=False)
    raise typer.Exit(0 if rep.applied else 1)


@memory_app.command("engage")
def engage_cmd(
    ctx: typer.Context,
    search_id: str = typer.Argument(..., help="The search id whose deliveries to label."),
    response: str | None = typer.Option(None, "--response", help="The agent's response text."),
    response_file: Path | None = typer.Option(
        None, "--response-file", help="Read the response from a file ('-': stdin)."
    ),
    prompt: str | None = typer.Option(
        None, "--prompt", help="What the response answered (default: the logged context)."
    ),
    lexical_only: bool = typer.Option(False, "--lexical-only", help="No semantic second chance (no embedder needed)."),
    as_json: bool = _JSON_OPT,
    embedder: EmbedderName | None = _EMBEDDER_OPT,
) -> None:
    """Label each delivered memory engaged or not from the agent's response (lexical, then semantic)."""
    from assay.memory.feedback.engagement import engage

    with user_errors(ctx), db_errors():
        if (response is None) == (response_file is None):
            raise UsageError("give exactly one of --response and --response-file")
        text = (
            response
            if response is not None
            else (sys.stdin.read() if str(response_file) == "-" else response_file.read_text(encoding="utf-8"))  # type: ignore[union-attr]
        )
        rep = engage(_open(ctx, embedder), search_id, text, prompt=prompt, semantic=False if lexical_only else None)
    if as_json:
        out.print(json.dumps(rep.to_dict(), indent=2, ensure_ascii=False), markup=False)
        return
    by = ", ".join(f"{m} {n}" for m, n in sorted(rep.engaged.items())) or "none"
    out.print(
        f"labelled {rep.n} deliver{'y' if rep.n == 1 else 'ies'} ({rep.procedure}): "
        f"engaged {sum(rep.engaged.values())} [{by}]"
        + (f"; {rep.relabelled} relabelled" if rep.relabelled else "")
        + (f"; {rep.skipped} skipped (memory gone)" if rep.skipped else ""),
        markup=False,
    )


memory_app.command("respond", hidden=True, help="Alias of engage.")(engage_cmd)


@memory_app.command("backfill")
def backfill_cmd(
    ctx: typer.Context,
    dry_run: bool = typer.Option(False, "--dry-run", help="Report what would change; write nothing."),
    limit: int | None = typer.Option(None, "--limit", min=0, help="At most N deliveries re-scored (whole searches)."),
    as_json: bool = _JSON_OPT,
    embedder: EmbedderName | None = _EMBEDDER_OPT,
    quiet: bool = _QUIET_OPT,
) -> None:
    """Give lexical-only engagement labels their semantic second chance (idempotent: method semantic-backfill)."""
    from assay.memory.feedback.backfill import backfill

    with user_errors(ctx), db_errors():
        store = _open(ctx, embedder)
        with _progress(ctx, "embedding responses and memories", quiet) as update:
            done = [0]

            def seen(n: int) -> None:
                done[0] += n
                update(done[0], None)

            store.report_embedding(seen)
            rep = backfill(store, dry_run=dry_run, limit=limit)
    if as_json:
        out.print(json.dumps(rep.to_dict(), indent=2), markup=False)
        return
    verb = "would re-score" if dry_run else "re-scored"
    out.print(
        f"{verb} {rep.rescored} deliveries in {rep.searches} search(es): {rep.newly_engaged} newly engaged; "
        f"{rep.no_response} search(es) without a recorded response; {rep.remaining} left by --limit",
        markup=False,
    )


# help= keeps the one-line help of `assay memory --help`: a docstring's line break would show there
@memory_app.command(
    "stats",
    help="Engagement rate (per procedure), mean grade and hard-negative share, by generation version and "
    "reranker, with 95% CIs.",
)
def stats_cmd(
    ctx: typer.Context, as_json: bool = _JSON_OPT, seed: int = typer.Option(0, "--seed", help="Bootstrap seed.")
) -> None:
    """Engagement rate (per procedure), mean grade and hard-negative share, by generation version and
    reranker, with 95% CIs."""
    from assay.memory.feedback.stats import memory_stats
    from assay.memory.retrieval.scripts import script_warning

    with user_errors(ctx), db_errors():
        store = _open(ctx, None)
        s = memory_stats(store, seed=seed)
        warning = script_warning(store)
    if warning:
        err.print(f"warning: {warning}", markup=False)
    if as_json:
        out.print(json.dumps({**s, "script_warning": warning}, indent=2, ensure_ascii=False), markup=False)
        return
    out.print(f"{s['n_deliveries']} deliveries in {s['n_searches']} searches", markup=False)
    out.print(f"vector path: {s['vector_path']['path']} — {s['vector_path']['detail']}", markup=False)
    t = Table(title="by generation version × reranker (95% bootstrap CIs, clustered by search)")
    for col in ("generation", "reranker", "n", "mean grade", "hard neg.", "engagement (procedure: rate [CI] n)"):
        t.add_column(col)
    for g in [s["overall"], *s["groups"]]:
        eng = (
            "; ".join(
                f"{p}: {fmt_plain(e['mean'])} {_ci(e['ci'])} n={e['effective_n']}" for p, e in g["engagement"].items()
            )
            or "—"
        )
        t.add_row(
            Text(g["generation_version"]),
            Text(g["reranker_model"]),
            str(g["n_deliveries"]),
            f"{fmt_plain(g['grade']['mean'])} {_ci(g['grade']['ci'])}",
            f"{fmt_plain(g['hard_negative_share']['mean'])}",
            Text(eng),
        )
    print_uncut(t)


@memory_app.command("export-labels")
def export_cmd(
    ctx: typer.Context,
    out_file: Path = typer.Option(..., "--out", help="Labels JSONL to write (one line per labelled delivery)."),
) -> None:
    """Export graded or engagement-labelled deliveries for reranker training."""
    from assay.memory.feedback.export import export_labels

    with user_errors(ctx), db_errors():
        if out_file.is_dir():
            raise UsageError(f"--out {out_file}: is a directory; give a file path, e.g. {out_file / 'labels.jsonl'}")
        out_file.parent.mkdir(parents=True, exist_ok=True)
        n = export_labels(_open(ctx, None), out_file)
    out.print(f"{n} labelled deliver{'y' if n == 1 else 'ies'} → {out_file}", markup=False)


@memory_app.command("evaluate")
def evaluate_cmd(
    ctx: typer.Context,
    queries: Path = typer.Argument(
        ...,
        help='Queries JSONL: {"id", "query", "relevant": \\[ids], "scope", "category"} a line.',
    ),
    k: int = typer.Option(10, "-k", "--k", help="Depth of recall@k, nDCG@k and MRR: 1 to 1,000."),
    ranker: RankerName = typer.Option(
        RankerName.composite, "--ranker", help="composite (as search ranks), dense, bm25 or reranker."
    ),
    reranker: str | None = typer.Option(None, "--reranker", help="Registered reranker name (for --ranker reranker)."),
    exclude_category: list[str] = typer.Option(
        [], "--exclude-category", help="Leave out queries of this category (repeatable)."
    ),
    as_json: bool = _JSON_OPT,
    embedder: EmbedderName | None = _EMBEDDER_OPT,
    quiet: bool = _QUIET_OPT,
) -> None:
    """Recall@5, recall@k, nDCG@k and MRR of a ranker over labelled queries (nothing is logged)."""
    from assay.memory.retrieval.evaluate import evaluate_retrieval, load_queries

    with user_errors(ctx), db_errors():
        if ranker is RankerName.reranker and not reranker:
            raise UsageError("--ranker reranker needs --reranker NAME")
        qs = [q for q in load_queries(queries) if q.category not in set(exclude_category)]
        store = _open(ctx, embedder, reranker=reranker)
        with _progress(ctx, "ranking queries", quiet, total=len(qs)) as update:
            res = evaluate_retrieval(store, qs, k=k, ranker=ranker.value, on_progress=update)
    if as_json:
        out.print(json.dumps(res, indent=2, ensure_ascii=False), markup=False)
        return
    keys = ["recall@5", f"recall@{k}", f"ndcg@{k}", "mrr"]
    t = Table(title=f"{ranker.value}: {res['n']} queries ({res['n_skipped']} skipped)")
    for col in ("category", "n", *keys):
        t.add_column(col, justify="right")
    t.add_row("all", str(res["n"]), *(fmt_plain(res[x]) for x in keys))
    for c, m in res["per_category"].items():
        t.add_row(Text(c), str(m["n"]), *(fmt_plain(m[x]) for x in keys))
    print_uncut(t)
    for reason, n in res["skipped"].items():
        out.print(f"skipped {n}: {reason}", markup=False)


# --- helpers -------------------------------------------------------------------------------


def _count_lines(path: Path) -> int | None:
    """Non-blank lines of ``path`` (the most memories an add embeds), ``None`` when unreadable."""
    return sum(1 for line in path.read_bytes().splitlines() if line.strip()) if path.is_file() else None


def _open(ctx: typer.Context, embedder: EmbedderName | None, *, reranker: str | None = None):
    return open_memory_store(ctx, None if embedder is None else embedder.value, reranker=reranker)


def _ci(ci: list | None) -> str:
    return "" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


#: Characters of a memory's text shown in the search table (``--json`` has the whole text).
_SHOWN_CHARS = 500


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else f"{text[:_SHOWN_CHARS]}… ({len(text):,} characters; --json has all)"
