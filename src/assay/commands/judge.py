"""``assay judge validate``: the faithfulness judge's validity on HaluEval QA or FaithBench.

Thin: parses options, calls :func:`assay.judges.validate.validate_judge`, prints a table and,
with ``--out DIR``, writes ``DIR/NAME.local.json`` (per case, with ids) and
``DIR/NAME.aggregate.json`` (figures only) atomically. Bad input exits 2 with one line.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, Iterator, Optional

import typer
from rich.table import Table

__all__ = ["register", "judge_app"]

judge_app = typer.Typer(no_args_is_help=True, help="LLM judges: validity on labelled data.")


class Dataset(str, Enum):
    halueval = "halueval"
    faithbench = "faithbench"


class Backend(str, Enum):
    stub = "stub"
    openai_compatible = "openai_compatible"


def register(app: typer.Typer) -> None:
    """Add the ``judge`` command group to ``app`` (idempotent)."""
    if not any(g.name == "judge" for g in app.registered_groups):
        app.add_typer(judge_app, name="judge")


@judge_app.command("validate")
def validate_cmd(
    ctx: typer.Context,
    src: Path = typer.Argument(..., help="Dataset file or folder (HaluEval qa_*turn_data*.jsonl; FaithBench batch_*.json)."),
    dataset: Dataset = typer.Option(..., "--dataset", help="Which labelled set SRC holds."),
    backend: Backend = typer.Option(Backend.stub, "--backend", help="Judge backend (stub = hash floor, not a quality signal)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Judge a seeded random sample of N records/samples."),
    sample_seed: int = typer.Option(0, "--sample-seed", help="Seed of the --limit sample."),
    high_stakes: bool = typer.Option(False, "--high-stakes", help="Use the stronger judge model."),
    escalate: bool = typer.Option(False, "--escalate", help="Re-judge unsupported claims and rejected replies with the stronger model."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="LLM response cache in DIR/llm_cache.db (default: the store)."),
    token_budget: Optional[int] = typer.Option(None, "--token-budget", min=0, help="Token budget (default 2,000,000); the rest are skipped: budget."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Write NAME.local.json and NAME.aggregate.json here."),
    name: Optional[str] = typer.Option(None, "--name", help="Report file stem (default validate-DATASET)."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    as_json: bool = typer.Option(False, "--json", help="Print the aggregate JSON instead of tables."),
) -> None:
    """Judge every labelled case and report accuracy, balanced accuracy (and FaithBench span recall
    and anchor detectors) with 95% bootstrap CIs."""
    from assay.atomic import atomic_write_json, check_writable_dir
    from assay.cli import _errors, err, out
    from assay.judges.claims import DEFAULT_TOKEN_BUDGET
    from assay.judges.validate import validate_judge

    stem = name or f"validate-{dataset.value}"
    with _errors(ctx), _db_errors():
        if "/" in stem or "\\" in stem or stem.startswith("."):
            raise ValueError(f"--name {stem!r}: a plain file stem is needed")
        if out_dir is not None:
            check_writable_dir(out_dir)
        local, agg = validate_judge(dataset.value, src, backend=backend.value, limit=limit, sample_seed=sample_seed,
                                    high_stakes=high_stakes, escalate=escalate, cache_dir=cache_dir, db_url=ctx.obj["db"],
                                    token_budget=DEFAULT_TOKEN_BUDGET if token_budget is None else token_budget, seed=seed)
        paths = []
        if out_dir is not None:
            paths = [atomic_write_json(out_dir / f"{stem}.local.json", local), atomic_write_json(out_dir / f"{stem}.aggregate.json", agg)]
    if as_json:
        out.print(json.dumps(agg, indent=2), markup=False)
    else:
        _print_tables(agg)
    for note in agg["notes"]:
        err.print(f"note: {note}", markup=False)
    for p in paths:
        out.print(str(p), markup=False)


# --- helpers -------------------------------------------------------------------------------

@contextmanager
def _db_errors() -> Iterator[None]:
    """SQLAlchemy errors of the response cache → one readable ValueError line."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        yield
    except SQLAlchemyError as e:
        raise ValueError(f"LLM cache database: {str(getattr(e, 'orig', None) or e).splitlines()[0]}") from None


def _print_tables(agg: dict[str, Any]) -> None:
    from assay.cli import out

    j = agg["judge"]
    t = Table(title=f"{agg['dataset']}: judge {agg['backend']} ({agg['model']}), {agg['n']} cases, "
                    f"{j['n_scored']} scored, {j['n_unscored']} unscored")
    for col in ("reading", "scored", "accuracy [95% CI]", "balanced accuracy [95% CI]", "TPR / TNR"):
        t.add_column(col, no_wrap=True)
    rows = [(r, m) for r, m in agg["readings"].items()]
    if 1 < len(agg["by_origin"]) <= 3:  # per-file rows for HaluEval's two files; FaithBench's 12 batches stay in the JSON
        rows += [(f"{o.split('.')[0]} · {r}", m) for o, ms in agg["by_origin"].items() for r, m in ms.items()]
    for label, m in rows:
        t.add_row(label, f"{m['n_scored']}/{m['n']}", f"{_f(m['accuracy']['value'])} {_ci(m['accuracy']['ci'])}",
                  f"{_f(m['balanced_accuracy']['value'])} {_ci(m['balanced_accuracy']['ci'])}", f"{_f(m['tpr'])} / {_f(m['tnr'])}")
    out.print(t)
    if "span_recall" in agg:
        s = agg["span_recall"]
        out.print(f"span recall (Unwanted spans overlapped by an unsupported claim): {_f(s['value'])} {_ci(s['ci'])} "
                  f"over {s['n_spans']} span(s) in {s['n_samples']} sample(s)", markup=False)
        a = Table(title="anchor detectors on the samples the judge scored: balanced accuracy [95% CI]")
        a.add_column("detector", no_wrap=True)
        for r in agg["anchors"]:
            a.add_column(r, no_wrap=True)
        for d in next(iter(agg["anchors"].values()), {}):
            a.add_row(d, *(f"{_f(agg['anchors'][r][d]['balanced_accuracy']['value'])} {_ci(agg['anchors'][r][d]['balanced_accuracy']['ci'])}"
                           for r in agg["anchors"]))
        out.print(a)
    if j["reasons"]:
        out.print("unscored: " + ", ".join(f"{n} {k}" for k, n in j["reasons"].items()), markup=False)


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _ci(ci: list[float] | None) -> str:
    return "—" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"
