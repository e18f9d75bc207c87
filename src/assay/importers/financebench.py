"""FinanceBench → one case per human-graded model answer.

``src`` is the FinanceBench folder: ``financebench_open_source.jsonl`` (questions, gold answers,
evidence passages) and ``results/*.jsonl`` (model answers with a human label). Each result line
becomes a :class:`~assay.cases.Case`:

- ``id`` = ``financebench_id`` (shared by every variant's answer, so variants pair on it);
- ``variant`` = ``{model_name}_{eval_mode}`` (``gpt-4_oracle``);
- ``question``; ``sources`` = the question's ``evidence_text`` passages, in order;
- ``answer`` = ``model_answer`` as text (a number becomes its text, ``null`` becomes ``""``);
- ``reference`` = the questions file's gold ``answer`` (text with its unit, ``"$1577.00"``,
  ``"65.4%"``). The result lines carry an older copy (``gold_answer``: sometimes a bare number,
  ``1577`` or ``0.654`` for 65.4 %, and for one question a since-corrected answer); it is kept as
  ``meta.graded_gold_answer`` because it is what the human grader compared against;
- ``slice`` = ``question_type``; ``meta.human_label`` = ``label`` (``Correct Answer``,
  ``Incorrect Answer``, ``Refusal``), plus ``model_name``, ``eval_mode``, ``company``,
  ``doc_name``, ``question_reasoning``.

Result lines whose id is not in the questions file are skipped and counted in
``ImportedCases.skipped["id not in questions file"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay.cases import Case
from assay.importers.base import ImportedCases, OnProgress
from assay.jsonl import iter_lines, json_object, read_utf8, validation_problems

__all__ = ["import_financebench", "QUESTIONS_FILE", "RESULTS_DIR"]

QUESTIONS_FILE = "financebench_open_source.jsonl"
RESULTS_DIR = "results"
SKIPPED_UNKNOWN_ID = "id not in questions file"


def import_financebench(src: str | Path, *, on_progress: OnProgress | None = None) -> ImportedCases:
    """Import every graded model answer under ``src/results`` as a case (see module docstring).
    ``on_progress(done, total)``: results files (one per model configuration) read so far.

    Raises ``ValueError`` naming ``file:line: field`` for a malformed line, a duplicate
    ``financebench_id`` in the questions file, or a duplicate ``(id, variant)``;
    ``FileNotFoundError`` when the questions file or the results folder is missing.
    """
    src = Path(src)
    questions_path = src / QUESTIONS_FILE
    results_dir = src / RESULTS_DIR
    if not questions_path.is_file():
        raise FileNotFoundError(f"{questions_path}: FinanceBench questions file not found")
    if not results_dir.is_dir():
        raise FileNotFoundError(f"{results_dir}: FinanceBench results folder not found")
    questions = _read_questions(questions_path)
    out = ImportedCases(skipped={SKIPPED_UNKNOWN_ID: 0})
    first_line: dict[tuple[str, str], str] = {}
    results = sorted(results_dir.glob("*.jsonl"))
    for n_done, path in enumerate(results):
        if on_progress:
            on_progress(n_done, len(results))
        for lineno, row in _jsonl(path):
            where = f"{path}:{lineno}"
            fid = _text_field(row, "financebench_id", where)
            model = _text_field(row, "model_name", where)
            mode = _text_field(row, "eval_mode", where)
            label = _text_field(row, "label", where)
            if "model_answer" not in row:
                raise ValueError(f"{where}: model_answer: required field is missing")
            if fid not in questions:
                out.skipped[SKIPPED_UNKNOWN_ID] += 1
                continue
            q = questions[fid]
            variant = f"{model}_{mode}"
            key = (fid, variant)
            if key in first_line:
                raise ValueError(
                    f"{where}: financebench_id: duplicate (id, variant) {key!r}; first at {first_line[key]}"
                )
            first_line[key] = where
            meta = {
                "human_label": label,
                "model_name": model,
                "eval_mode": mode,
                "company": q.get("company"),
                "doc_name": q.get("doc_name"),
                "question_reasoning": q.get("question_reasoning"),
                "graded_gold_answer": _as_text(row.get("gold_answer"), where, "gold_answer"),
            }
            try:
                case = Case(
                    id=fid,
                    variant=variant,
                    question=str(row.get("question") or q["question"]),
                    sources=tuple(q["_sources"]),
                    answer=_as_text(row["model_answer"], where, "model_answer"),
                    reference=_as_text(q["answer"], f"{questions_path}:{q['_line']}", "answer"),
                    slice=q.get("question_type"),
                    meta=meta,
                )
            except ValidationError as e:
                raise ValueError(str(validation_problems(e, file=str(path), line=lineno)[0])) from None
            out.append(case)
    if on_progress:
        on_progress(len(results), len(results))
    return out


def _read_questions(path: Path) -> dict[str, dict[str, Any]]:
    questions: dict[str, dict[str, Any]] = {}
    for lineno, row in _jsonl(path):
        where = f"{path}:{lineno}"
        fid = _text_field(row, "financebench_id", where)
        _text_field(row, "question", where)
        if "answer" not in row:
            raise ValueError(f"{where}: answer: required field is missing")
        if row.get("question_type") is not None and not isinstance(row["question_type"], str):
            raise ValueError(f"{where}: question_type: expected a string")
        evidence = row.get("evidence")
        if not isinstance(evidence, list):
            raise ValueError(f"{where}: evidence: required list is missing")
        sources = []
        for k, ev in enumerate(evidence):
            if not isinstance(ev, dict) or not isinstance(ev.get("evidence_text"), str):
                raise ValueError(f"{where}: evidence[{k}].evidence_text: required string is missing")
            sources.append(ev["evidence_text"])
        if fid in questions:
            raise ValueError(f"{where}: financebench_id: duplicate id {fid!r}; first at line {questions[fid]['_line']}")
        questions[fid] = {**row, "_sources": sources, "_line": lineno}
    return questions


def _jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSONL file with their 1-based line numbers (blank lines skipped);
    ``ValueError`` naming ``file:line`` at the first bad line (:mod:`assay.jsonl` rules)."""
    rows: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in iter_lines(read_utf8(path)):
        obj, problems = json_object(line, file=str(path), line=lineno)
        if obj is None:
            raise ValueError(str(problems[0]))
        rows.append((lineno, obj))
    return rows


def _text_field(row: dict[str, Any], field: str, where: str) -> str:
    value = row.get(field)
    if not isinstance(value, str) or not value.strip():
        problem = "required field is missing" if value is None else f"expected a non-empty string, got {value!r}"
        raise ValueError(f"{where}: {field}: {problem}")
    return value


def _as_text(value: Any, where: str, field: str) -> str:
    """A model/gold answer as text: strings as they are, numbers as written, ``None`` → ``""``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: {field}: expected text or a number, got {type(value).__name__}")
    return str(value)
