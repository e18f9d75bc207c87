"""``assay memory train`` and ``assay memory calibrate``: a student reranker behind a gate, and floors.

Thin: parses options, calls :mod:`assay.memory.learning.deploy` / :mod:`assay.memory.learning.calibrate`, prints.
Both commands join the ``memory`` group of :mod:`assay.cli.app`, after :mod:`assay.cli.memory`'s.

Exit codes (issue 16's table) — train: 0 deployed, 1 trained but not deployed (or training
failed: nothing installed), 3 too few labels to train (no grade pair, a split with an empty
side), 2 bad input; calibrate: 0 a floor found for every model, 1 a floor refused, 3 too few
labels (no graded delivery, or a model without both grade 3 and grade 0), 2 bad input.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.progress import TextColumn
from rich.table import Table

from assay.cli.app import memory_app
from assay.cli.common import UsageError, db_errors, err, open_memory_store, out, progress_bar, user_errors

__all__ = ["Device", "SplitBy", "calibrate_cmd", "train_cmd"]


_QUIET_OPT = typer.Option(False, "--quiet", "-q", help="No progress bar or progress lines on stderr.")


def _progress(ctx: typer.Context, label: str, quiet: bool, total: int | None = None) -> Any:
    """:func:`assay.memory.retrieval.progress.memory_progress` on stderr; ``--quiet``, or a global
    ``--quiet`` in ``ctx.obj``, turns it off."""
    from assay.memory.retrieval.progress import memory_progress

    return memory_progress(label, quiet=_is_quiet(ctx, quiet), console=err, bar=progress_bar, total=total)


def _is_quiet(ctx: typer.Context, quiet: bool) -> bool:
    root = ctx.find_root().obj
    return quiet or (isinstance(root, dict) and bool(root.get("quiet")))


class SplitBy(str, Enum):
    query = "query"
    scope = "scope"


class Device(str, Enum):
    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


@memory_app.command("train")
def train_cmd(
    ctx: typer.Context,
    labels: Path = typer.Option(..., "--labels", help="Labels JSONL from 'assay memory export-labels'."),
    out_dir: Path | None = typer.Option(
        None,
        "--out",
        help="Student folder: the candidate is installed here only if it beats the incumbent "
        "(default $ASSAY_RERANKER_STUDENT).",
    ),
    min_gap: int = typer.Option(2, "--min-gap", min=1, help="Pairs only between grades at least this far apart."),
    split_by: SplitBy = typer.Option(
        SplitBy.query, "--split-by", help="Held-out groups: query, or scope when queries share memories."
    ),
    holdout: float = typer.Option(0.2, "--holdout", min=0.01, max=0.99, help="Share of groups held out."),
    seed: int = typer.Option(0, "--seed", help="Seed of the split, the head's initialisation and the pair order."),
    engagement: bool = typer.Option(
        False, "--engagement", help="Add engagement weak pairs (train side only, after the split)."
    ),
    engagement_max_pairs: int = typer.Option(
        5000, "--engagement-max-pairs", min=0, help="At most this many weak pairs (seeded sample)."
    ),
    engagement_min_pos: float = typer.Option(
        0.0, "--engagement-min-pos", help="Least engaged_score of a weak positive."
    ),
    deploy_margin: float = typer.Option(
        0.02, "--deploy-margin", min=0.0, help="Held-out agreement the candidate must gain over the incumbent."
    ),
    base_model: Path | None = typer.Option(
        None,
        "--base-model",
        help="Local model folder to fine-tune (default: the packaged MiniLM; its head starts untrained).",
    ),
    epochs: int = typer.Option(1, "--epochs", min=1, help="Passes over the training pairs."),
    batch_size: int = typer.Option(16, "--batch-size", min=1, help="Pairs per optimiser step."),
    lr: float = typer.Option(2e-5, "--lr", min=1e-8, help="AdamW learning rate."),
    max_length: int = typer.Option(128, "--max-length", min=8, help="Tokens per (query, memory) pair."),
    device: Device = typer.Option(Device.auto, "--device", help="auto: CUDA when present, else CPU."),
    train_embeddings: bool = typer.Option(
        False, "--train-embeddings", help="Also train the base's embedding layer (frozen by default)."
    ),
    threads: int | None = typer.Option(None, "--threads", min=1, help="torch CPU threads."),
    keep_candidate: Path | None = typer.Option(
        None, "--keep-candidate", help="Also keep a NOT deployed candidate (with its card) in this folder."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    quiet: bool = _QUIET_OPT,
) -> None:
    """Train a student reranker on graded deliveries; deploy it only if it beats the incumbent on held-out pairs."""
    from assay.memory.config import RerankerSettings
    from assay.memory.learning.deploy import train_and_deploy
    from assay.memory.learning.pairs import TooFewLabelsError
    from assay.memory.learning.train import TrainConfig, TrainingError

    with user_errors(ctx):
        settings = RerankerSettings.from_env()
        target = out_dir or (Path(settings.student_dir) if settings.student_dir else None)
        if target is None:
            raise UsageError("give --out DIR (the student folder) or set ASSAY_RERANKER_STUDENT")
        if not labels.is_file():
            raise UsageError(f"{labels}: no such file")
        config = TrainConfig(
            base_model=str(base_model) if base_model else None,
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            max_length=max_length,
            seed=seed,
            device=device.value,
            threads=threads,
            freeze_embeddings=not train_embeddings,
        )
        try:
            rep = _with_progress(
                _is_quiet(ctx, quiet),
                lambda on_step: train_and_deploy(
                    labels,
                    target,
                    config=config,
                    settings=settings,
                    min_gap=min_gap,
                    split_by=split_by.value,
                    holdout=holdout,
                    engagement=engagement,
                    engagement_max_pairs=engagement_max_pairs,
                    engagement_min_pos=engagement_min_pos,
                    deploy_margin=deploy_margin,
                    keep_candidate=keep_candidate,
                    on_step=on_step,
                ),
            )
        except TooFewLabelsError as e:
            err.print(f"too few labels to train: {e}", markup=False)
            raise typer.Exit(3) from None
        except TrainingError as e:
            err.print(f"error: {e}", markup=False)
            raise typer.Exit(1) from None
    d = rep.decision
    if as_json:
        out.print(json.dumps(rep.to_dict(), indent=2, ensure_ascii=False), markup=False)
    else:
        ds, tr = rep.dataset, rep.training
        out.print(
            f"pairs: {ds['train_pairs']} train from grades + {ds['weak_pairs']} weak (engagement), "
            f"{d.n_pairs} held-out ({ds['heldout_groups']} of {ds['train_groups'] + ds['heldout_groups']} "
            f"{split_by.value} groups held out, seed {seed})",
            markup=False,
        )
        out.print(
            f"trained {tr['steps']} steps on {tr['device']} in {tr['seconds']:.0f} s "
            f"({tr['pairs_per_s']:.1f} pairs/s); "
            f"base {tr['base_model']}"
            + ("; its classification head started untrained" if tr["head_untrained_at_start"] else ""),
            markup=False,
        )
        ci = f" (95% CI {d.margin_ci[0]:+.3f} to {d.margin_ci[1]:+.3f}, by query)" if d.margin_ci else ""
        out.print(f"incumbent {d.incumbent}: held-out pairwise agreement {d.incumbent_agreement:.3f}", markup=False)
        out.print(
            f"candidate student: held-out pairwise agreement {d.candidate_agreement:.3f} as served "
            f"(blended with the composite; model alone {rep.candidate_raw_agreement:.3f})",
            markup=False,
        )
        out.print(f"margin {d.margin:+.3f}{ci}; needs >= {d.deploy_margin:.3f} over {d.n_pairs} pairs", markup=False)
        verdict = (
            f"deployed → {rep.student_dir}"
            if d.deployed
            else "not deployed (the incumbent stays)"
            + (f"; candidate kept in {keep_candidate}" if keep_candidate else "")
        )
        out.print(
            f"decision: {verdict}; auto_promote_safe: {'yes' if d.auto_promote_safe else 'no'} (agreement >= 0.90)",
            markup=False,
        )
    raise typer.Exit(0 if d.deployed else 1)


@memory_app.command("calibrate")
def calibrate_cmd(
    ctx: typer.Context,
    model: str | None = typer.Option(
        None, "--model", help="Only this reranker_model ('composite' for unreranked deliveries)."
    ),
    floor: float | None = typer.Option(None, "--floor", help="Judge this floor instead of choosing one."),
    max_drop: float = typer.Option(
        0.10, "--max-grade3-drop", min=0.0, max=1.0, help="Refuse a floor dropping a larger share of grade-3 memories."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (curve included)."),
    quiet: bool = _QUIET_OPT,
) -> None:
    """Choose each model's floor from graded deliveries: keep grade-3 memories, drop grade-0 ones."""
    from assay.memory.learning.calibrate import calibrate_store
    from assay.memory.learning.pairs import TooFewLabelsError

    with user_errors(ctx), db_errors():
        try:
            with _progress(ctx, "reading graded deliveries", quiet):
                res = calibrate_store(open_memory_store(ctx), model=model, max_grade3_drop=max_drop, proposed=floor)
        except TooFewLabelsError as e:
            err.print(f"too few labels to calibrate: {e}", markup=False)
            raise typer.Exit(3) from None
    code = _calibrate_exit(res)
    if as_json:
        out.print(json.dumps(res, indent=2), markup=False)
        raise typer.Exit(code)
    for name, r in res["models"].items():
        if r["status"] == "insufficient":
            out.print(
                f"{name}: cannot calibrate — {r['n_grade3']} grade-3 and {r['n_grade0']} grade-0 deliveries "
                "(need both)",
                markup=False,
            )
            continue
        head = f"{name}: {r['n_grade3']} grade-3, {r['n_grade0']} grade-0 deliveries"
        if r["status"] == "ok":
            out.print(
                f"{head}; floor {r['floor']:.4f}: drops {_pct(r['grade3_dropped'])} of grade 3, "
                f"keeps {_pct(r['grade0_kept'])} of grade 0",
                markup=False,
            )
        else:
            what = (
                f"floor {r['proposed']:.4f}"
                if r["proposed"] is not None
                else f"the best-separating floor {r['optimum']['floor']:.4f}"
            )
            w = r["within_limit"]
            out.print(
                f"{head}; REFUSED {what}: it drops {_pct(r['grade3_dropped'])} of grade 3 "
                f"(limit {_pct(r['max_grade3_drop'])}); within the limit: floor {w['floor']:.4f} "
                f"drops {_pct(w['grade3_dropped'])} of grade 3, keeps {_pct(w['grade0_kept'])} of grade 0",
                markup=False,
            )
        t = Table(title=f"{name}: floor curve (score quantiles)")
        for col in ("floor", "grade 3 dropped", "grade 0 kept", "J"):
            t.add_column(col, justify="right")
        for p in r["curve"]:
            t.add_row(f"{p['floor']:.4f}", _pct(p["grade3_dropped"]), _pct(p["grade0_kept"]), f"{p['j']:.3f}")
        out.print(t)
    raise typer.Exit(code)


# --- helpers -------------------------------------------------------------------------------


def _calibrate_exit(res: dict[str, Any]) -> int:
    """1 when any model's floor was refused, else 3 when any model had too few labels, else 0."""
    status = [r["status"] for r in res["models"].values()]
    if any(s not in ("ok", "insufficient") for s in status):
        return 1
    return 3 if "insufficient" in status else 0


def _with_progress(quiet: bool, run: Any) -> Any:
    with progress_bar("training", TextColumn("loss {task.fields[loss]}"), quiet=quiet) as bar:
        task = bar.add_task("steps", total=None, loss="—")

        def on_step(step: int, total: int, loss: float) -> None:
            bar.update(task, completed=step, total=total, loss=f"{loss:.3f}")

        return run(on_step)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"
