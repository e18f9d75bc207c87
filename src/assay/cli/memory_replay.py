"""``assay memory replay``: replay past sessions through writing prompts A and B, offline.

Thin: reads the sessions (JSONL, or a LoCoMo folder with ``--input-format locomo``), the
questions and the prompts, builds the generators and judges, calls
:func:`assay.memory.replay.run_replay` (or :func:`~assay.memory.replay.plan` for ``--dry-run``)
and writes ``NAME.local.json``, ``NAME.aggregate.json`` and ``NAME.md`` atomically. Exit 0
written; 3 written but an LLM step (generation, cold read, pairwise) scored nothing; 2 usage or
input error (nothing written).
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from assay.cli.app import memory_app
from assay.cli.common import UsageError, db_errors, err, out, user_errors

__all__ = ["replay_cmd"]


class GeneratorBackend(str, Enum):
    extract = "extract"
    stub = "stub"
    openai_compatible = "openai_compatible"


class InputFormat(str, Enum):
    jsonl = "jsonl"
    locomo = "locomo"


class JudgeChoice(str, Enum):
    none = "none"
    stub = "stub"
    length = "length"
    openai_compatible = "openai_compatible"


class ColdReadChoice(str, Enum):
    none = "none"
    stub = "stub"
    heuristic = "heuristic"
    openai_compatible = "openai_compatible"


@memory_app.command("replay")
def replay_cmd(
    ctx: typer.Context,
    sessions_path: Path = typer.Argument(..., help="Sessions JSONL ({id, turns, cohort?, date?} a line) or a folder."),
    input_format: InputFormat = typer.Option(
        InputFormat.jsonl, "--input-format", help="jsonl, or locomo (conv_*.json; its QA become the questions)."
    ),
    questions_path: Path | None = typer.Option(
        None, "--questions", help="Questions JSONL ({id, cohort, text, evidence: [turn ids]}) for findability."
    ),
    generator: GeneratorBackend = typer.Option(
        GeneratorBackend.extract, "--generator", help="extract (deterministic strategies), stub or openai_compatible."
    ),
    prompt_a: Path | None = typer.Option(None, "--prompt-a", help="Writing prompt A (text file; LLM generators)."),
    prompt_b: Path | None = typer.Option(None, "--prompt-b", help="Writing prompt B (text file; LLM generators)."),
    strategy_a: str = typer.Option("per_turn", "--strategy-a", help="Arm A's extract strategy: per_turn|per_session."),
    strategy_b: str = typer.Option(
        "per_session", "--strategy-b", help="Arm B's extract strategy: per_turn|per_session."
    ),
    judge: JudgeChoice = typer.Option(JudgeChoice.length, "--judge", help="Pairwise judge of the two memory sets."),
    cold_read: ColdReadChoice = typer.Option(
        ColdReadChoice.heuristic, "--cold-read", help="Self-sufficiency cold read of each memory alone."
    ),
    cold_read_limit: int | None = typer.Option(
        None, "--cold-read-limit", min=0, help="At most N cold reads an arm (in session order)."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Replay only the first N sessions."),
    k: int = typer.Option(10, "--k", min=1, help="Findability cut-off: recall@k."),
    embedder: str = typer.Option("minilm", "--embedder", help="minilm (the ml extra) or hashing."),
    out_dir: Path | None = typer.Option(None, "--out", help="Write NAME.local.json, .aggregate.json and .md here."),
    name: str = typer.Option("replay", "--name", help="Report file stem."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="LLM response cache in DIR/llm_cache.db."),
    token_budget: int | None = typer.Option(None, "--token-budget", min=0, help="Token budget of each LLM step."),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the plan, the calls and a token estimate; call nothing."
    ),
) -> None:
    """Generate memories from each session with prompt A and B; report dedup rate, findability
    recall@k, cold-read self-sufficiency and the pairwise judge, per arm and B - A with CIs over cohorts."""
    from assay.judges.cold_read import make_cold_read_judge
    from assay.judges.pairwise import make_pairwise_judge
    from assay.llm.client import make_client
    from assay.memory.replay import (
        REPLAY_CRITERIA,
        ExtractGenerator,
        LLMGenerator,
        ReplaySettings,
        heuristic_cold_read,
        load_locomo_replay,
        load_questions,
        load_sessions,
        plan,
        run_replay,
    )

    with user_errors(ctx), db_errors():
        if "/" in name or "\\" in name or name.startswith(".") or not name:
            raise UsageError(f"--name {name!r}: a plain file stem is needed")
        if input_format is InputFormat.locomo:
            sessions, questions = load_locomo_replay(sessions_path)
        else:
            sessions, questions = load_sessions(sessions_path), []
        if questions_path is not None:
            questions = load_questions(questions_path)
        if limit is not None:
            sessions = sessions[:limit]
            kept = {s.cluster for s in sessions}
            questions = [q for q in questions if q.cohort in kept]
        if not sessions:
            raise UsageError(f"{sessions_path}: no session to replay")
        settings = ReplaySettings(k=k, seed=seed)
        db = (ctx.obj or {}).get("db")
        llm: dict[str, Any] = {"cache_dir": cache_dir, "db_url": db, "token_budget": token_budget}
        if generator is GeneratorBackend.extract:
            gens: dict[str, Any] = {"A": ExtractGenerator(strategy_a), "B": ExtractGenerator(strategy_b)}
            names = [strategy_a, strategy_b]
        else:
            if prompt_a is None or prompt_b is None:
                raise UsageError("--prompt-a and --prompt-b are needed with an LLM generator")
            prompts = [p.read_text(encoding="utf-8") for p in (prompt_a, prompt_b)]
            gens = {
                arm: LLMGenerator(make_client(generator.value, **llm), text, path.stem, settings)
                for arm, text, path in zip(("A", "B"), prompts, (prompt_a, prompt_b), strict=True)
            }
            names = [prompt_a.stem, prompt_b.stem]
        reader = None
        if cold_read is not ColdReadChoice.none:
            reader = make_cold_read_judge(cold_read.value, rule=heuristic_cold_read, **llm)
        pairwise = None
        if judge is not JudgeChoice.none:
            pairwise = make_pairwise_judge(judge.value, REPLAY_CRITERIA, names=names, **llm)
        if dry_run:
            p = plan(sessions, gens, cold_read=reader, pairwise=pairwise, cold_read_limit=cold_read_limit)
            out.print(
                json.dumps({"plan": p, "generators": {a: g.name for a, g in gens.items()}}, indent=1), markup=False
            )
            return
        if out_dir is None:
            raise UsageError("--out DIR is needed (or --dry-run)")
        from assay.atomic import atomic_write_json, atomic_write_text, check_writable_dir
        from assay.memory.retrieval.embeddings import make_embedder

        emb = make_embedder(embedder)
        check_writable_dir(out_dir)
        local, agg = run_replay(
            sessions,
            questions,
            gens,
            emb,
            cold_read=reader,
            pairwise=pairwise,
            settings=settings,
            cold_read_limit=cold_read_limit,
        )
        atomic_write_json(out_dir / f"{name}.local.json", local)
        atomic_write_json(out_dir / f"{name}.aggregate.json", agg)
        atomic_write_text(out_dir / f"{name}.md", _markdown(agg))
    out.print(_markdown(agg), markup=False)
    llm_steps = [agg["arms"][a]["generation"]["ok"] for a in ("A", "B") if generator is not GeneratorBackend.extract]
    if reader is not None and reader.backend != "heuristic":
        llm_steps.append(sum(agg["arms"][a]["cold_read"]["n"] for a in ("A", "B")))
    if agg["pairwise"] is not None and judge is not JudgeChoice.length:
        llm_steps.append(agg["pairwise"]["n_scored"])
    if any(n == 0 for n in llm_steps):
        err.print("replay: an LLM step scored nothing (see the reasons in the aggregate)", markup=False)
        raise typer.Exit(3)


def _markdown(agg: dict) -> str:
    rows = ["| metric | A | B | B − A [95% CI over cohorts] |", "|---|---|---|---|"]
    for key, label in (("recall_at_k", f"recall@{agg['k']}"), ("dedup_rate", "dedup rate"), ("cold_read", "cold read")):
        a, b, d = agg["arms"]["A"][key], agg["arms"]["B"][key], agg["diff_b_minus_a"][key]
        rows.append(f"| {label} | {_v(a)} | {_v(b)} | {_v(d, signed=True)} |")
    rows.append(f"| memories | {agg['arms']['A']['n_memories']} | {agg['arms']['B']['n_memories']} | |")
    head = [
        "# Memory replay",
        "",
        f"{agg['n_sessions']} sessions in {agg['n_cohorts']} cohorts, {agg['n_questions']} questions; "
        f"A = {agg['arms']['A']['generator']}, B = {agg['arms']['B']['generator']}; embedder {agg['embedder']}.",
        "",
    ]
    tail = [""]
    pw = agg["pairwise"]
    if pw is not None:
        w = pw["win_rate_b"]
        tail.append(
            f"Pairwise ({pw['backend']}): win rate B {_v(w)}, position consistency {pw['position_consistency']}, "
            f"first-position rate {pw['first_position_rate']}, {pw['n_scored']} of {pw['n']} sessions scored."
        )
    tail += [f"- {n}" for n in agg["notes"]]
    return "\n".join(head + rows + tail) + "\n"


def _v(x: dict, signed: bool = False) -> str:
    if x.get("value") is None:
        return "—"
    ci = "" if x.get("ci") is None else f" [{x['ci'][0]:.3f}, {x['ci'][1]:.3f}]"
    return (f"{x['value']:+.3f}" if signed else f"{x['value']:.3f}") + ci
