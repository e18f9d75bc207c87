"""``assay memory retrain`` and ``assay memory models list|show|rollback|floor``: the learning loop.

Exit codes (the shared contract): ``retrain`` 0 deployed, nothing to do, or another run holds the
lock (said); 1 trained and rejected by the gate (``--dry-run``: would be); 2 usage or input error.
``models …`` 0 done, 2 an unknown version or a folder this host lacks. ``models floor`` 0 a floor
found and stored, 1 the floor refused (nothing stored), 3 too few graded deliveries.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from assay.cli.app import memory_app
from assay.cli.common import db_errors, err, open_memory_store, out, user_errors

__all__ = ["models_app", "retrain_cmd"]

models_app = typer.Typer(no_args_is_help=True, help="The reranker model registry: list, show, rollback, floor.")
memory_app.add_typer(models_app, name="models")


@memory_app.command("retrain")
def retrain_cmd(
    ctx: typer.Context,
    min_new_labels: int = typer.Option(
        200, "--min-new-labels", min=1, help="Retrain only when this many labels arrived since the deployed model."
    ),
    models_dir: Path | None = typer.Option(
        None, "--models-dir", help="Where model folders live (default $ASSAY_HOME/models)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Train and gate, deploy nothing, register nothing."),
    wait: bool = typer.Option(False, "--wait", help="Wait for another run's lock instead of exiting (0, 'locked')."),
    keep_rejected: bool = typer.Option(False, "--keep-rejected", help="Keep a rejected candidate's folder."),
    split_by: str = typer.Option("query", "--split-by", help="Held-out groups: query, or scope."),
    holdout: float = typer.Option(0.2, "--holdout", min=0.01, max=0.99, help="Share of groups held out."),
    deploy_margin: float = typer.Option(
        0.02, "--deploy-margin", min=0.0, help="Held-out agreement the candidate must gain over the incumbent."
    ),
    epochs: int = typer.Option(1, "--epochs", min=1, help="Training epochs."),
    max_length: int = typer.Option(128, "--max-length", min=8, help="Tokens per (query, memory) pair."),
    seed: int = typer.Option(0, "--seed", help="Seed of the split, the head's initialisation and the pair order."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Retrain the student when enough new labels arrived; deploy it through the registry only if it
    beats the incumbent on the same held-out pairs. Cron-able: `*/30 * * * * assay memory retrain`."""
    from assay.memory.config import default_models_dir
    from assay.memory.learning.retrain import retrain
    from assay.memory.learning.train import TrainConfig

    with user_errors(ctx), db_errors():
        if split_by not in ("query", "scope"):
            raise ValueError(f"--split-by: expected query or scope, got {split_by!r}")
        store = open_memory_store(ctx)
        report = retrain(
            store,
            models_dir or Path(default_models_dir()),
            min_new_labels=min_new_labels,
            dry_run=dry_run,
            wait=wait,
            keep_rejected=keep_rejected,
            config=TrainConfig(epochs=epochs, max_length=max_length, seed=seed),
            split_by=split_by,  # type: ignore[arg-type]
            holdout=holdout,
            deploy_margin=deploy_margin,
        )
    if as_json:
        out.print(json.dumps(report.to_dict(), indent=2, default=str), markup=False)
    else:
        out.print(report.message, markup=False)
    raise typer.Exit(report.exit_code)


@models_app.command("list")
def list_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Every registered reranker, newest first, with the host that serves it."""
    from assay.memory.config import host_id
    from assay.memory.learning.registry import deployed_model, list_models

    with user_errors(ctx), db_errors():
        store = open_memory_store(ctx)
        models = list_models(store.engine)
        here = deployed_model(store.engine, host_id())
    if as_json:
        out.print(json.dumps([m.to_dict() for m in models], indent=2), markup=False)
        return
    t = Table(title=f"reranker models (this host serves {here.version if here else 'none'})")
    for col in ("version", "status", "trained", "labels", "agreement", "margin", "floor"):
        t.add_column(col, overflow="fold")
    for m in models:
        t.add_row(
            m.version + (" *" if here and m.version == here.version else ""),
            m.status,
            m.trained_at.strftime("%Y-%m-%d %H:%M"),
            str(m.labels_used),
            "—" if m.candidate_agreement is None else f"{m.candidate_agreement:.3f}",
            "—" if m.margin is None else f"{m.margin:+.3f}",
            "—" if m.floor is None else f"{m.floor:.3f}",
        )
    out.print(t)


@models_app.command("show")
def show_cmd(ctx: typer.Context, version: str = typer.Argument(..., help="A registered version.")) -> None:
    """One model's registry row as JSON (its card included)."""
    from assay.memory.learning.registry import get_model

    with user_errors(ctx), db_errors():
        model = get_model(open_memory_store(ctx).engine, version)
    out.print(json.dumps(model.to_dict(), indent=2), markup=False)


@models_app.command("rollback")
def rollback_cmd(ctx: typer.Context, version: str = typer.Argument(..., help="The version to serve again.")) -> None:
    """Serve an earlier model again on this host (its floor comes back with it)."""
    from assay.memory.config import host_id
    from assay.memory.learning.registry import deployed_model, rollback

    with user_errors(ctx), db_errors():
        engine = open_memory_store(ctx).engine
        before = deployed_model(engine, host_id())
        model = rollback(engine, version, host_id())
    out.print(f"{host_id()} serves {model.version} (was {before.version if before else 'none'})", markup=False)


@models_app.command("floor")
def floor_cmd(
    ctx: typer.Context,
    version: str = typer.Argument(..., help="The version whose graded deliveries calibrate the floor."),
    max_grade3_drop: float = typer.Option(
        0.10, "--max-grade3-drop", min=0.0, max=1.0, help="Refuse a floor that drops more grade-3 deliveries."
    ),
) -> None:
    """Calibrate a suppression floor on the deliveries this version ranked, and store it on its row
    (applied by search with ASSAY_RERANKER_APPLY_FLOOR=1; rolled back with its model)."""
    from assay.memory.learning.calibrate import calibrate_store
    from assay.memory.learning.registry import get_model, set_floor

    with user_errors(ctx), db_errors():
        store = open_memory_store(ctx)
        model = get_model(store.engine, version)
        served = next((n for n in (model.version + "-int8", model.version) if _ranked_by(store, n)), None)
        if served is None:
            err.print(f"no graded delivery ranked by {version} yet: nothing to calibrate", markup=False)
            raise typer.Exit(3)
        result = calibrate_store(store, model=served, max_grade3_drop=max_grade3_drop)["models"][served]
        if result.get("status") == "insufficient":
            err.print(
                f"{version}: {result['n_grade3']} grade-3 and {result['n_grade0']} grade-0 deliveries: too few",
                markup=False,
            )
            raise typer.Exit(3)
        if result.get("floor") is None:
            out.print(f"{version}: floor refused (it would drop too many grade-3 deliveries); nothing stored")
            raise typer.Exit(1)
        labels = int(result.get("n_grade3", 0)) + int(result.get("n_grade0", 0))
        set_floor(store.engine, version, float(result["floor"]), labels=labels, detail=result)
    out.print(f"{version}: floor {result['floor']:.4f} stored (from {labels} graded deliveries)", markup=False)


def _ranked_by(store, model: str) -> bool:
    from sqlalchemy import select

    from assay.memory.tables import memory_deliveries as d

    with store.engine.connect() as conn:
        q = select(d.c.id).where(d.c.reranker_model == model, d.c.grade.is_not(None)).limit(1)
        return conn.execute(q).first() is not None
