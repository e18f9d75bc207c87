"""Labelled validation sets for the faithfulness judge: HaluEval QA and FaithBench, read as cases.

- HaluEval QA (``qa_one-turn_data*.jsonl``, ``qa_multi-turn_data*.jsonl``; Li et al., EMNLP
  2023): each record ``{knowledge, question, right_answer, hallucinated_answer}`` gives two cases
  with the same knowledge (as the one source) and question — the right answer (faithful) and the
  hallucinated one. The pair shares a ``group`` so bootstrap CIs resample records.
- FaithBench (``batch_*.json``; Bao et al., NAACL 2025): each sample ``{sample_id, source,
  summary, annotations, metadata}`` is one case (answer = the summary verbatim, so annotation
  offsets index the answer). An annotation is *Unwanted* when any of its labels starts with
  ``Unwanted`` (``Unwanted.Intrinsic`` alone counts), *Questionable* when it is not Unwanted and
  a label is ``Questionable``. Two readings of the sample label: ``strict`` — hallucinated iff any
  Unwanted annotation (Questionable counts as faithful); ``inclusive`` — hallucinated iff any
  Unwanted or Questionable annotation. ``metadata`` holds existing detectors' outputs: HHEM
  scores are P(consistent), read as hallucinated when < 0.5 (the conventional threshold of the
  HHEM model card); the LLM/NLI detectors are 1 (consistent) / 0.

Readers are strict: a malformed line or sample raises :class:`assay.cases.CaseFileError` with
``file:line: field: problem`` (FaithBench: ``line`` is the 1-based sample number in the file).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.cases import Case, CaseFileError, InputProblem
from assay.jsonl import iter_lines, json_object, read_utf8

__all__ = [
    "FAITHBENCH_GLOB",
    "HALUEVAL_FIELDS",
    "HALUEVAL_GLOB",
    "HHEM_THRESHOLD",
    "WRONG_FILE_AFTER",
    "LabelledCase",
    "load_faithbench",
    "load_halueval",
]

HALUEVAL_GLOB = "qa_*turn_data*.jsonl"
HALUEVAL_FIELDS = ("knowledge", "question", "right_answer", "hallucinated_answer")
#: A file whose first this-many records are all bad is the wrong file, not a file with bad lines:
#: one line says so instead of one error per line (HaluEval's general_data file gave 14,400).
WRONG_FILE_AFTER = 3
FAITHBENCH_GLOB = "batch_*.json"
#: HHEM outputs P(consistent); below this the detector says "hallucinated".
HHEM_THRESHOLD = 0.5
_NOT_DETECTORS = {"summarizer", "raw_sample_id"}


@dataclass(frozen=True)
class LabelledCase:
    """A case with its gold label(s).

    ``hallucinated``: reading name → bool (HaluEval: ``{"gold": …}``; FaithBench: ``strict`` and
    ``inclusive``). ``group``: the cluster key for bootstrap resampling. ``unwanted_spans``:
    ``[start, end)`` offsets into ``case.answer`` of Unwanted annotations. ``anchors``: detector
    name → predicted hallucinated (FaithBench metadata). ``origin``: the file's name.
    """

    case: Case
    hallucinated: dict[str, bool]
    group: str
    origin: str
    unwanted_spans: tuple[tuple[int, int], ...] = ()
    anchors: dict[str, bool] = field(default_factory=dict)


def load_halueval(src: str | Path) -> list[LabelledCase]:
    """Read HaluEval QA from a ``.jsonl`` file or a folder of ``qa_*turn_data*.jsonl`` files.

    Returns two cases per record (``variant`` ``right``/``hallucinated``; ids
    ``<file stem>:<line>``). Raises ``FileNotFoundError`` / :class:`CaseFileError` (every bad
    line; a file whose first :data:`WRONG_FILE_AFTER` records are all bad stops there with one
    problem naming the expected fields).
    """
    files = _files(src, HALUEVAL_GLOB)
    out: list[LabelledCase] = []
    problems: list[InputProblem] = []
    for path in files:
        good = 0
        for n_read, (lineno, line) in enumerate(iter_lines(read_utf8(path, CaseFileError)), start=1):
            rec, probs = _record(line, path, lineno, HALUEVAL_FIELDS)
            problems += probs
            if rec is None:
                if good == 0 and n_read == WRONG_FILE_AFTER:
                    raise CaseFileError([_wrong_file(path, probs)])
                continue
            good += 1
            cid = f"{path.stem}:{lineno}"
            for variant, key, bad in (("right", "right_answer", False), ("hallucinated", "hallucinated_answer", True)):
                case = Case(
                    id=cid,
                    answer=rec[key],
                    question=rec["question"],
                    sources=(rec["knowledge"],),
                    variant=variant,
                    slice=path.stem,
                )
                out.append(LabelledCase(case=case, hallucinated={"gold": bad}, group=cid, origin=path.name))
    if problems:
        raise CaseFileError(problems)
    return out


def load_faithbench(src: str | Path) -> list[LabelledCase]:
    """Read FaithBench from a ``batch_*.json`` file or a folder of them (one case per sample).

    Raises ``FileNotFoundError`` / :class:`CaseFileError`.
    """
    files = _files(src, FAITHBENCH_GLOB)
    out: list[LabelledCase] = []
    problems: list[InputProblem] = []
    for path in files:
        try:
            samples = json.loads(path.read_text(encoding="utf-8"))["samples"]
            if not isinstance(samples, list):
                raise TypeError("'samples' is not a list")
        except (ValueError, KeyError, TypeError) as e:
            problems.append(
                InputProblem(
                    file=str(path),
                    line=getattr(e, "lineno", 0),
                    field="samples",
                    problem=f"not a FaithBench batch ({e})",
                )
            )
            continue
        for i, s in enumerate(samples, start=1):
            try:
                out.append(_faithbench_sample(s, path))
            except (KeyError, TypeError, ValueError) as e:
                problems.append(
                    InputProblem(file=str(path), line=i, field=f"samples[{i - 1}]", problem=str(e) or type(e).__name__)
                )
    if problems:
        raise CaseFileError(problems)
    return out


# --- helpers -------------------------------------------------------------------------------


def _files(src: str | Path, pattern: str) -> list[Path]:
    p = Path(src)
    if p.is_file():
        return [p]
    if p.is_dir():
        files = sorted(p.glob(pattern), key=lambda f: (len(f.name), f.name))
        if not files:
            raise CaseFileError(
                [InputProblem(file=str(p), line=0, field="<folder>", problem=f"no file matching {pattern}")]
            )
        return files
    raise FileNotFoundError(2, "no such file or directory", str(p))


def _wrong_file(path: Path, last: list[InputProblem]) -> InputProblem:
    """One problem for a file whose first :data:`WRONG_FILE_AFTER` records are all bad; ``last``:
    the problems of the last of them, summarised as an example."""
    missing = [p.field for p in last if p.problem.startswith("required")]
    if missing:
        example = f" (line {last[0].line} lacks {', '.join(missing)})"
    else:
        example = f" (line {last[0].line}: {last[0].field}: {last[0].problem})" if last else ""
    return InputProblem(
        file=str(path),
        line=1,
        field="<file>",
        problem=f"the first {WRONG_FILE_AFTER} lines are not HaluEval QA records: expected fields "
        f"{', '.join(HALUEVAL_FIELDS)}{example}; is this the qa_*turn_data*.jsonl file?",
    )


def _record(
    line: str, path: Path, lineno: int, keys: tuple[str, ...]
) -> tuple[dict[str, Any] | None, list[InputProblem]]:
    rec, probs = json_object(line, file=str(path), line=lineno)
    if rec is None:
        return None, probs
    probs = [
        InputProblem(file=str(path), line=lineno, field=k, problem="required string field is missing or empty")
        for k in keys
        if not isinstance(rec.get(k), str) or not rec[k].strip()
    ]
    return (None if probs else rec), probs


def _faithbench_sample(s: dict[str, Any], path: Path) -> LabelledCase:
    sid = str(s["sample_id"])
    summary, source = s["summary"], s["source"]
    if not isinstance(summary, str) or not isinstance(source, str):
        raise ValueError("summary and source must be strings")
    unwanted = questionable = False
    spans: list[tuple[int, int]] = []
    for a in s.get("annotations") or []:
        labels = [str(x) for x in a.get("label") or []]
        if any(x.startswith("Unwanted") for x in labels):
            unwanted = True
            if a.get("summary_start") is not None and a.get("summary_end") is not None:
                start, end = int(a["summary_start"]), int(a["summary_end"])
                if not 0 <= start < end <= len(summary):
                    raise ValueError(f"annotation {a.get('annot_id')}: span [{start}, {end}) outside the summary")
                spans.append((start, end))
        elif "Questionable" in labels:
            questionable = True
    anchors: dict[str, bool] = {}
    for name, value in (s.get("metadata") or {}).items():
        if name in _NOT_DETECTORS or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        anchors[name] = value < HHEM_THRESHOLD if name.startswith("hhem") else value == 0
    cid = f"{path.stem}:{sid}"
    case = Case(
        id=cid, answer=summary, sources=(source,), slice=str((s.get("metadata") or {}).get("summarizer") or "") or None
    )
    return LabelledCase(
        case=case,
        hallucinated={"strict": unwanted, "inclusive": unwanted or questionable},
        group=cid,
        origin=path.name,
        unwanted_spans=tuple(spans),
        anchors=anchors,
    )
