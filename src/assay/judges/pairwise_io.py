"""Inputs and reports of pairwise judging: pairs from JSONL or from two eval runs, criteria files,
and the Markdown / HTML renderings of the aggregate (figures only, no pair id).

Errors name the place: ``file:line: field: problem`` (raised as ``ValueError``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay.jsonl import read_utf8
from assay.judges.pairwise_prompt import Criterion, Pair

__all__ = ["load_pairs_jsonl", "pairs_from_runs", "load_criteria", "render_markdown", "render_html"]


def load_pairs_jsonl(path: str | Path) -> list[Pair]:
    """Pairs from a JSONL file, one object a line: ``{"id", "context"?, "output_a", "output_b",
    "cohort"?, "redact"?: [names], "variant_a"?, "variant_b"?}`` (the variant names join
    ``redact``). Blank lines are skipped. Raises ``ValueError`` ``file:line: field: problem``."""
    pairs: list[Pair] = []
    for n, line in enumerate(read_utf8(Path(path)).splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: <json>: {e.msg}") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{path}:{n}: <line>: expected a JSON object")
        names = [obj.pop(k) for k in ("variant_a", "variant_b") if isinstance(obj.get(k), str)]
        obj["redact"] = tuple(obj.get("redact") or ()) + tuple(names)
        try:
            pairs.append(Pair.model_validate(obj))
        except ValidationError as e:
            err = e.errors()[0]
            raise ValueError(f"{path}:{n}: {'.'.join(map(str, err['loc'])) or '<line>'}: {err['msg']}") from None
    return pairs


def pairs_from_runs(
    run_a: Mapping[str, Any],
    run_b: Mapping[str, Any],
    *,
    variant_a: str | None = None,
    variant_b: str | None = None,
    where: tuple[str, str] = ("A", "B"),
) -> tuple[list[Pair], list[str]]:
    """Pairs from two eval runs' local files (``{"kind": "eval", "cases": [{"id", "variant",
    "answer", "question"?, "meta"?}]}``), paired on case id, in A's order. A run with several
    variants needs ``variant_a``/``variant_b``. The cohort is the case id unless the case's
    ``meta.cohort`` (or ``cohort``) names one. Returns ``(pairs, names)``: ``names`` are the
    variant names, models, backends and versions seen in the two files, to strip from the texts.

    Raises ``ValueError`` naming the file (``where``) and the field: no ``answer`` field (a run
    written before answers were kept), an ambiguous or unknown variant, no case id in common.
    """
    rows: list[dict[str, dict[str, Any]]] = []
    names: set[str] = set()
    for run, pick, label in ((run_a, variant_a, where[0]), (run_b, variant_b, where[1])):
        cases = [c for c in run.get("cases", []) if isinstance(c, dict)]
        variants = sorted({str(c.get("variant")) for c in cases})
        if pick is None and len(variants) > 1:
            raise ValueError(f"{label}: variant: several variants ({', '.join(variants[:5])}): pick one with --variant")
        if pick is not None and pick not in variants:
            raise ValueError(f"{label}: variant: {pick!r} not in the run ({', '.join(variants[:5])})")
        chosen = [c for c in cases if pick is None or str(c.get("variant")) == pick]
        for i, c in enumerate(chosen):
            if not isinstance(c.get("answer"), str):
                raise ValueError(
                    f"{label}: cases[{i}].answer: missing — the run must keep each case's answer text (eval schema 2)"
                )
        names.update(variants)
        for key in ("backend", "gate_version", "model"):
            if isinstance(run.get(key), str):
                names.add(run[key])
        for c in chosen:
            for key in ("model",):
                if isinstance(c.get(key), str):
                    names.add(c[key])
        rows.append({str(c["id"]): c for c in chosen})
    a, b = rows
    shared = [i for i in a if i in b]
    if not shared:
        raise ValueError(f"{where[1]}: cases: no case id in common with {where[0]}")
    pairs = []
    for cid in shared:
        ca, cb = a[cid], b[cid]
        meta: dict[str, Any] = ca["meta"] if isinstance(ca.get("meta"), dict) else {}
        cohort = meta.get("cohort") or ca.get("cohort")
        question: str = ca["question"] if isinstance(ca.get("question"), str) else ""
        pairs.append(
            Pair(
                id=cid,
                context=question,
                output_a=ca["answer"],
                output_b=cb["answer"],
                cohort=str(cohort) if cohort else None,
            )
        )
    return pairs, sorted(n for n in names if n and n != "None")


def load_criteria(path: str | Path) -> list[Criterion]:
    """Criteria from a JSON file: an object ``{name: definition}`` or a list of ``{"name",
    "definition"}``. Raises ``ValueError`` ``file: field: problem`` (also for none or duplicates)."""
    try:
        data = json.loads(read_utf8(Path(path)))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: <json>: {e.msg}") from None
    items = [{"name": k, "definition": v} for k, v in data.items()] if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise ValueError(f"{path}: criteria: expected a non-empty object or list")
    out = []
    for i, it in enumerate(items):
        try:
            out.append(Criterion.model_validate(it))
        except ValidationError as e:
            err = e.errors()[0]
            raise ValueError(f"{path}: criteria[{i}].{'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    if len({c.name for c in out}) != len(out):
        raise ValueError(f"{path}: criteria: duplicate names")
    return out


_COLUMNS = ("criterion", "n", "win rate B", "95% CI", "A", "B", "tie", "inconsistent", "consistency", "first pos.")


def _rows(agg: Mapping[str, Any]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for name, s in [*agg["criteria"].items(), ("overall", agg["overall"])]:
        w = s["win_rate_b"]
        ci = "—" if w["ci"] is None else f"[{w['ci'][0]:.3f}, {w['ci'][1]:.3f}]"
        out.append(
            (
                str(name),
                str(s["n"]),
                _f(w["value"]),
                ci,
                str(s["wins_a"]),
                str(s["wins_b"]),
                str(s["ties"]),
                str(s["inconsistent"]),
                _f(s["position_consistency"]),
                _f(s["first_position_rate"]),
            )
        )
    return out


def _head(agg: Mapping[str, Any]) -> list[str]:
    return [
        f"backend {agg['backend']}, model {agg['model']}: {agg['n']} pairs, {agg['n_scored']} scored, "
        f"{agg['n_rejected']} rejected, {agg['n_skipped']} skipped; {agg['redactions']} name(s) stripped",
        f"position consistency {_f(agg['position_consistency'])}, first-position pick rate "
        f"{_f(agg['first_position_rate'])}, tie rate {_f(agg['tie_rate'])}, inconsistent "
        f"{_f(agg['inconsistent_rate'])}",
    ]


def render_markdown(agg: Mapping[str, Any]) -> str:
    """The aggregate as Markdown: a summary, one row per criterion and overall, reasons, notes."""
    lines = ["# Pairwise judgement (blind, both orders)", "", *(f"- {h}" for h in _head(agg)), ""]
    lines += ["| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in _rows(agg)]
    lines += _tail(agg, lambda s: f"- {s}")
    return "\n".join(lines) + "\n"


def render_html(agg: Mapping[str, Any]) -> str:
    """The aggregate as one self-contained HTML page (escaped; no script, no external asset)."""
    e = html.escape
    head = "".join(f"<li>{e(h)}</li>" for h in _head(agg))
    cols = "".join(f"<th>{e(c)}</th>" for c in _COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in _rows(agg))
    tail = "".join(_tail(agg, lambda s: f"<p>{e(s)}</p>"))
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pairwise judgement</title>'
        "<style>body{font-family:sans-serif;margin:2em}td,th{padding:.2em .6em;border-bottom:1px solid #ccc}"
        "</style></head><body><h1>Pairwise judgement (blind, both orders)</h1>"
        f"<ul>{head}</ul><table><tr>{cols}</tr>{body}</table>{tail}</body></html>\n"
    )


def _tail(agg: Mapping[str, Any], fmt: Callable[[str], str]) -> list[str]:
    out = [""]
    if agg["reasons"]:
        out.append(fmt("unscored: " + ", ".join(f"{n} {k}" for k, n in agg["reasons"].items())))
    out += [fmt(n) for n in agg["notes"]]
    return out


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"
