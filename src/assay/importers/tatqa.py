"""TAT-QA → gold cases whose facts are the numbers of the question's table and paragraphs.

One :class:`~assay.cases.Case` per question (``variant="gold"``). Facts are parsed from the RAW
table cells and paragraph text, never from the answer key:

- table cell at row ``r``, column ``c`` (0-based, as TAT-QA ``mappings``) → fact ``T{r}C{c}``;
  label ``"<row label> | <column header>"``; period = the year/date in the column header.
  Column 0 holds row labels and is never a fact; header rows (the rows before the first row
  with a non-year number) are never facts; a data row whose only numbers are bare years
  (a repeated header) is skipped; empty, dash and text cells are skipped.
- the ``j``-th number of paragraph ``order=k`` → fact ``P{k}N{j}`` (numbers found by
  :func:`assay.claims.extract_quantities`, which already leaves out years, dates and ordinals);
  label = the text around it.

Units: the question's ``scale`` (thousand/million/billion) applies to table cells: ``$`` cell →
``USD millions``, ``%`` cell → ``%``, plain cell → ``millions`` (amount of unstated currency),
no scale → ``USD`` / ``None``. The ``percent`` scale belongs to the answer only. A table
cell's fact carries the cell text as its ``displayed_value`` (an answer may copy a cell without
the header's scale), and so does a paragraph number written in digits without a scale word
(``$3,800``); one with a scale word (``$7.6 million``) does not: an answer must state it. Paragraph
numbers carry the unit and scale written next to them (``$7.6 million`` → 7.6 ``USD millions``);
the question's scale is NOT applied to them (a bare "1,200 employees" is not in millions).

The gold answer is written as text at its displayed precision with the scale as a word
(``1,577.3 million``, ``17.7%``) and a citation marker (``[T3C1, T3C2]``) naming the facts its
``mappings`` point to (test_gold), or, without mappings (dev), the facts whose value equals a
``derivation`` operand (arithmetic) or a number of the answer span (span answers).
``meta.in_scope`` marks the questions a sourcing gate can check: span answers with a number,
and arithmetic of one operation (a+b, a-b, a/b, a/b*100, (a-b)/b, (a-b)/b*100).
``meta.out_of_scope_reason`` says why not: ``text answer``, ``count answer``, ``average``,
``multi-step formula``, ``no derivation``, or — when the gold itself cannot be sourced from the
parsed facts — ``number not among the facts`` (span) / ``operand not among the facts``
(arithmetic). Multi-span answers are one sentence per span, each with its own citation; a span
of several sentences gets a citation after each sentence that states a number.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay.cases import Case
from assay.claims import Quantity, extract_quantities, split_sentences
from assay.facts import Fact, displayed_number, parse_unit
from assay.importers.base import ImportedCases, OnProgress
from assay.jsonl import read_utf8

__all__ = ["import_tatqa", "parse_cell", "CellNumber", "derivation_scope"]

ANSWER_TYPES = ("span", "multi-span", "arithmetic", "count")
ANSWER_FROM = ("table", "text", "table-text")
SCALES = ("", "thousand", "million", "billion", "percent")
_FACT_SCALE_WORD = {"thousand": "thousands", "million": "millions", "billion": "billions"}


#: ``--in-scope-only``: what "in scope" means is ``meta.in_scope`` (module docstring): the
#: questions a sourcing gate can check. The rest are counted in ``skipped`` by reason.
OUT_OF_SCOPE = "out of scope ({reason})"


def import_tatqa(
    src: str | Path, *, in_scope_only: bool = False, on_progress: OnProgress | None = None
) -> ImportedCases:
    """Import TAT-QA questions as gold cases.

    ``in_scope_only``: keep only the ``meta.in_scope`` questions (a number sourced by a span, or
    arithmetic of one operation, with the gold's numbers among the parsed facts); the others —
    text and count answers, averages, multi-step formulas, golds whose numbers are not facts —
    are left out and counted in ``skipped`` as :data:`OUT_OF_SCOPE` with their reason.
    ``on_progress(done, total)``: contexts (table + paragraphs) converted so far.

    ``src`` is a folder holding ``tatqa_dataset_*.json`` files (read in name order) or one such
    file. The split (``meta.split``) is the file name between ``tatqa_dataset_`` and the first
    dot (``tatqa_dataset_test_gold.ctx000-138.json`` → ``test_gold``). Raises ``ValueError``
    naming the file, the record path (``[3].questions[2]``) and the field for a malformed file,
    and for a question uid seen twice; ``FileNotFoundError`` when ``src`` does not exist.
    """
    src = Path(src)
    if not src.exists():
        raise FileNotFoundError(f"{src}: no such file or folder")
    files = sorted(src.glob("tatqa_dataset_*.json")) if src.is_dir() else [src]
    if not files:
        raise ValueError(f"{src}: no tatqa_dataset_*.json files")
    out = ImportedCases()
    seen: dict[str, str] = {}
    counted = [0, 0]  # contexts done, contexts in the files opened so far

    def tick(n_in_file: int | None) -> None:
        if n_in_file is not None:
            counted[1] += n_in_file
        else:
            counted[0] += 1
        if on_progress:
            on_progress(counted[0], counted[1])

    for path in files:
        for case in _import_file(path, tick):
            if case.id in seen:
                raise ValueError(f"{path}: question uid {case.id!r} already imported from {seen[case.id]}")
            seen[case.id] = str(path)
            if in_scope_only and not case.meta["in_scope"]:
                why = OUT_OF_SCOPE.format(reason=case.meta["out_of_scope_reason"])
                out.skipped[why] = out.skipped.get(why, 0) + 1
                continue
            out.append(case)
    return out


@dataclass(frozen=True)
class CellNumber:
    """A number read from one table cell: signed value, currency (ISO) or None, percent flag."""

    value: float
    currency: str | None = None
    percent: bool = False
    year_like: bool = False


def parse_cell(text: str) -> CellNumber | None:
    """Parse a whole table cell as one number, or return None (empty, dash, text, footnotes).

    Accepts ``$831.7``, ``$ 1,452.4``, ``(370)``, ``$(89.7)``, ``(9,819 )``, ``-9.9``, ``−5``,
    ``12.5%``, ``(248%)``, ``(3)%``, ``US$5``, ``£12.3``, ``€4``. A bare four-digit integer
    1900–2100 is returned with ``year_like=True`` (callers decide whether it is a header).
    """
    m = _CELL.fullmatch(text.strip().replace("\u00a0", " "))
    if m is None:
        return None
    g = m.groupdict()
    raw = g["num"]
    value = float(raw.replace(",", ""))
    negative = bool(g["sign"] or g["sign2"]) or bool(g["open"] and g["close"])
    if bool(g["open"]) != bool(g["close"]):
        return None
    cur_text = g["cur"] or g["cur2"] or g["cur3"]
    currency = _CURRENCY[cur_text] if cur_text else None
    percent = bool(g["pct"] or g["pct2"])
    year_like = (
        not negative
        and currency is None
        and not percent
        and re.fullmatch(r"\d{4}", raw) is not None
        and 1900 <= value <= 2100
    )
    return CellNumber(-value if negative else value, currency, percent, year_like)


def derivation_scope(derivation: str) -> tuple[bool, str | None]:
    """Is ``derivation`` one operation a sourcing gate can check? Returns ``(in_scope, reason)``.

    In scope: ``a+b``, ``a-b``, ``a/b``, ``a/b*100``, ``(a-b)/b``, ``(a-b)/b*100`` (after
    removing spaces, brackets, ``$``, ``%`` and thousands separators; operands may be negative).
    Otherwise the reason is ``"no derivation"``, ``"average"`` or ``"multi-step formula"``.
    """
    operands, reason = _one_operation(derivation)
    return operands is not None, reason


def _one_operation(derivation: str) -> tuple[list[float] | None, str | None]:
    """The operands ``[a, b]`` of a one-operation derivation, or ``(None, reason)``."""
    s = _normalise_derivation(derivation)
    if not s:
        return None, "no derivation"
    n = r"(-?\d+(?:\.\d+)?)"
    for form in (rf"{n}[+\-]{n}", rf"{n}/{n}", rf"{n}/{n}\*100"):
        m = re.fullmatch(form, s)
        if m:
            return [float(m.group(1)), float(m.group(2))], None
    m = re.fullmatch(rf"{n}-{n}/{n}(?:\*100)?", s)
    if m and float(m.group(2)) == float(m.group(3)):
        return [float(m.group(1)), float(m.group(2))], None
    avg = re.fullmatch(r"-?((?:-?\d+(?:\.\d+)?\+)+-?\d+(?:\.\d+)?)/(\d+)", s)
    if avg and avg.group(1).count("+") + 1 == int(avg.group(2)):
        return None, "average"
    return None, "multi-step formula"


# --- one file ------------------------------------------------------------------------------


def _import_file(path: Path, tick: Callable[[int | None], None]) -> list[Case]:
    """The cases of one file; ``tick(n)`` once with its number of contexts, ``tick(None)`` after each."""
    try:
        data = json.loads(read_utf8(path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(data, list):
        raise ValueError(f"{path}: <file>: expected a JSON list of contexts")
    split = path.name.removeprefix("tatqa_dataset_").split(".")[0]
    cases: list[Case] = []
    tick(len(data))
    for i, ctx in enumerate(data):
        where = f"[{i}]"
        table, paragraphs, questions = _check_context(path, where, ctx)
        try:
            context = _Context(table, paragraphs)
        except _Overflow as e:  # the cell's or paragraph's place, not the first question's
            raise _bad(path, where, e.field, e.problem) from None
        for j, q in enumerate(questions):
            qwhere = f"{where}.questions[{j}]"
            _check_question(path, qwhere, q)
            try:
                cases.append(_question_case(context, q, split, table_uid=str(ctx["table"].get("uid", ""))))
            except (ValidationError, ValueError) as e:
                raise ValueError(f"{path}: {qwhere}: {_first_error(e)}") from None
        tick(None)
    return cases


def _bad(path: Path, where: str, field: str, problem: str) -> ValueError:
    return ValueError(f"{path}: {where}.{field}: {problem}")


def _check_context(
    path: Path, where: str, ctx: Any
) -> tuple[list[list[str]], list[dict[str, Any]], list[dict[str, Any]]]:
    if not isinstance(ctx, dict):
        raise ValueError(f"{path}: {where}: expected an object with table, paragraphs, questions")
    table_obj = ctx.get("table")
    if not isinstance(table_obj, dict) or not isinstance(table_obj.get("table"), list):
        raise _bad(path, where, "table.table", "required list of rows is missing")
    table = table_obj["table"]
    for r, row in enumerate(table):
        if not isinstance(row, list) or not all(isinstance(c, str) for c in row):
            raise _bad(path, where, f"table.table[{r}]", "expected a list of strings")
    paragraphs = ctx.get("paragraphs")
    if not isinstance(paragraphs, list):
        raise _bad(path, where, "paragraphs", "required list is missing")
    for k, p in enumerate(paragraphs):
        if not isinstance(p, dict) or not isinstance(p.get("text"), str):
            raise _bad(path, where, f"paragraphs[{k}].text", "required string is missing")
        if isinstance(p.get("order"), bool) or not isinstance(p.get("order"), int):
            raise _bad(path, where, f"paragraphs[{k}].order", "required integer is missing")
    questions = ctx.get("questions")
    if not isinstance(questions, list):
        raise _bad(path, where, "questions", "required list is missing")
    return table, paragraphs, questions


def _check_question(path: Path, where: str, q: Any) -> None:
    if not isinstance(q, dict):
        raise ValueError(f"{path}: {where}: expected a question object")
    for key in ("uid", "question"):
        if not isinstance(q.get(key), str) or not q[key].strip():
            raise _bad(path, where, key, "required non-empty string is missing")
    for key, allowed in (("answer_type", ANSWER_TYPES), ("answer_from", ANSWER_FROM), ("scale", SCALES)):
        if q.get(key) not in allowed:
            raise _bad(
                path, where, key, f"unknown value {q.get(key)!r} (expected one of {', '.join(map(repr, allowed))})"
            )
    if not isinstance(q.get("derivation", ""), str):
        raise _bad(path, where, "derivation", "expected a string")
    if not isinstance(q.get("rel_paragraphs", []), list):
        raise _bad(path, where, "rel_paragraphs", "expected a list")
    answer = q.get("answer")
    if q["answer_type"] in ("span", "multi-span"):
        if not isinstance(answer, list) or not answer or not all(isinstance(a, str) for a in answer):
            raise _bad(path, where, "answer", f"a {q['answer_type']} answer must be a non-empty list of strings")
    elif q["answer_type"] == "arithmetic":
        if isinstance(answer, bool) or not isinstance(answer, (int, float)):
            raise _bad(path, where, "answer", "an arithmetic answer must be a number")
    elif not isinstance(answer, (str, int)) or isinstance(answer, bool):
        raise _bad(path, where, "answer", "a count answer must be a string or an integer")
    mappings = q.get("mappings")
    if mappings is not None:
        if not isinstance(mappings, list):
            raise _bad(path, where, "mappings", "expected a list")
        for n, m in enumerate(mappings):
            ok = isinstance(m, dict) and len(m) == 1
            if ok:
                ((key, val),) = m.items()
                ok = (key == "table" or re.fullmatch(r"paragraph_\d+", key) is not None) and (
                    isinstance(val, list)
                    and len(val) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in val)
                )
            if not ok:
                raise _bad(
                    path,
                    where,
                    f"mappings[{n}]",
                    'expected {"table": [row, col]} or {"paragraph_<order>": [start, end]}',
                )


def _first_error(e: Exception) -> str:
    if isinstance(e, ValidationError):
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "<case>"
        return f"{loc}: {err['msg'].removeprefix('Value error, ')}"
    return str(e)


# --- the facts of one context --------------------------------------------------------------


class _Overflow(ValueError):
    """A number of a context's table or paragraphs beyond a 64-bit float; ``field``: where it is."""

    def __init__(self, field: str, text: str):
        shown = text if len(text) <= 24 else text[:20] + "…"
        self.field = field
        self.problem = f"a number beyond a 64-bit float (magnitude ≥ 1.8e308): {shown!r}"
        super().__init__(f"{field}: {self.problem}")


@dataclass(frozen=True)
class _TableCell:
    row: int
    col: int
    text: str
    number: CellNumber
    label: str
    period: str | None


@dataclass(frozen=True)
class _ParaNumber:
    order: int
    index: int
    quantity: Quantity
    label: str


class _Context:
    """One TAT-QA table with its paragraphs: the numbers, parsed once for all its questions."""

    def __init__(self, table: list[list[str]], paragraphs: list[dict[str, Any]]):
        self.table = table
        self.cells = _table_cells(table)
        self._facts: dict[str, list[Fact]] = {}
        self.para_numbers: list[_ParaNumber] = []
        for c in self.cells:
            if not math.isfinite(c.number.value):
                raise _Overflow(f"table.table[{c.row}][{c.col}]", c.text)
        for k, p in enumerate(paragraphs):
            text = str(p["text"])
            for j, q in enumerate(extract_quantities(text)):
                if not math.isfinite(q.base_value):
                    raise _Overflow(f"paragraphs[{k}].text", q.text)
                self.para_numbers.append(_ParaNumber(int(p["order"]), j, q, _window(text, q.span)))

    def facts(self, scale: str) -> list[Fact]:
        """The context's facts with the question's ``scale`` applied to table cells."""
        if scale in self._facts:
            return self._facts[scale]
        facts = [
            Fact(
                id=f"T{c.row}C{c.col}",
                label=c.label,
                value=c.number.value,
                unit=_cell_unit(c.number, scale),
                period=c.period,
                source="table",
                displayed_value=" ".join(c.text.split()),  # the cell as the table shows it
            )
            for c in self.cells
        ]
        for pn in self.para_numbers:
            value, unit = _quantity_unit(pn.quantity)
            facts.append(
                Fact(
                    id=f"P{pn.order}N{pn.index}",
                    label=pn.label,
                    value=value,
                    unit=unit,
                    source=f"paragraph {pn.order}",
                    displayed_value=_paragraph_display(pn.quantity, value),
                )
            )
        self._facts[scale] = facts
        return facts


def _table_cells(table: list[list[str]]) -> list[_TableCell]:
    parsed = [[parse_cell(cell) if c > 0 else None for c, cell in enumerate(row)] for row in table]
    first_numeric = next(
        (r for r, row in enumerate(parsed) if any(n is not None and not n.year_like for n in row)),
        len(table),
    )
    header_rows = table[:first_numeric]
    cells: list[_TableCell] = []
    for r in range(first_numeric, len(table)):
        numbers = [(c, n) for c, n in enumerate(parsed[r]) if n is not None]
        if not numbers or all(n.year_like for _, n in numbers):
            continue  # a repeated header row ("", "2019", "2018")
        row_label = _clean(table[r][0]) if table[r] else ""
        for c, n in numbers:
            headers = [_clean(h[c]) for h in header_rows if c < len(h) and _clean(h[c])]
            col_header = " ".join(dict.fromkeys(headers))
            period = next((p for p in map(_period, headers) if p), None) or _period(row_label, whole=True)
            label = f"{row_label or f'row {r}'} | {col_header or f'column {c}'}"
            cells.append(_TableCell(r, c, table[r][c], n, label, period))
    return cells


def _cell_unit(n: CellNumber, scale: str) -> str | None:
    if n.percent:
        return "%"
    word = _FACT_SCALE_WORD.get(scale)
    if n.currency:
        return f"{n.currency} {word}" if word else n.currency
    return word


def _paragraph_display(q: Quantity, value: float) -> str | None:
    """A paragraph number's text as its ``displayed_value`` when it is written in digits without
    a scale word (``$3,800``: the figure as shown); None otherwise (``$7.6 million`` states its
    scale, so an answer must too; a number in words is no display)."""
    if q.scale != 1.0 or q.form != "digits":
        return None
    text = " ".join(q.text.split())
    try:
        number, negative = displayed_number(text)
    except ValueError:
        return None
    if number != abs(value) or (negative and value > 0):
        return None
    return text


def _quantity_unit(q: Quantity) -> tuple[float, str | None]:
    """A paragraph quantity as (value, unit) in the facts vocabulary."""
    word = {1e3: "thousands", 1e6: "millions", 1e9: "billions", 1e12: "trillions"}.get(q.scale)
    unit = q.unit
    if unit in ("%", "pp", "x") or (unit or "").endswith("/share"):
        value = q.value if q.scale == 1.0 else q.value * q.scale
        result: tuple[float, str | None] = (value, unit)
    elif word is None:
        result = (q.value * q.scale, unit)
    elif unit:
        result = (q.value, f"{unit} {word}")
    else:
        result = (q.value, word)
    try:
        parse_unit(result[1])
    except ValueError:
        return q.value * q.scale, None
    return result


# --- one question --------------------------------------------------------------------------


def _question_case(ctx: _Context, q: dict[str, Any], split: str, *, table_uid: str) -> Case:
    scale = q["scale"]
    facts = ctx.facts(scale)
    by_id = {f.id: f for f in facts}
    answer_type = q["answer_type"]
    derivation = q.get("derivation") or ""
    mappings = q.get("mappings") or []
    candidates = _candidates(ctx, q, by_id)

    reason: str | None
    if answer_type in ("span", "multi-span"):
        spans = [str(s) for s in q["answer"]]
        sentences = []
        any_number = False
        all_cited = True
        for span in spans:
            numbers = _span_numbers(span)
            any_number = any_number or bool(numbers)
            if not numbers:
                sentences.append(span.strip())
                continue
            cites = _span_citations(ctx, q, span, numbers, mappings, candidates, by_id)
            text, cited = _cite_sentences(_span_text(span, scale), cites, by_id)
            all_cited = all_cited and cited
            sentences.append(text)
        if answer_type == "span":
            answer = sentences[0]
        else:
            answer = " ".join(s if re.search(r"[.!?](\s*\[[^\]]*\])?$", s) else s + "." for s in sentences)
        if not any_number:
            in_scope, reason = False, "text answer"
        elif not all_cited:
            in_scope, reason = False, "number not among the facts"
        else:
            in_scope, reason = True, None
        reference: Any = spans
    elif answer_type == "arithmetic":
        value = q["answer"]
        operands, reason = _one_operation(derivation)
        if mappings:
            cites = _mapped_ids(ctx, mappings, by_id)
        elif operands is not None:
            cites = _operand_citations(operands, candidates, facts)
        else:
            cites = _operand_citations(_operands(derivation), candidates, facts)
        answer = _with_citation(_format_number(value) + _scale_suffix(scale), cites)
        in_scope = operands is not None
        if operands is not None and not all(_value_matches([x], (by_id[i] for i in cites)) for x in operands):
            in_scope, reason = False, "operand not among the facts"
        reference = value
    else:  # count
        answer = str(q["answer"])
        in_scope, reason = False, "count answer"
        reference = str(q["answer"])

    meta = {
        "answer_type": answer_type,
        "answer_from": q["answer_from"],
        "scale": scale,
        "derivation": derivation,
        "split": split,
        "in_scope": in_scope,
        "out_of_scope_reason": reason,
        "table_uid": table_uid,
    }
    return Case(
        id=q["uid"],
        variant="gold",
        question=q["question"],
        facts=tuple(facts),
        answer=answer,
        reference=reference,
        slice=answer_type,
        meta=meta,
    )


def _candidates(ctx: _Context, q: dict[str, Any], by_id: dict[str, Fact]) -> list[Fact]:
    """Facts an answer without mappings may cite: the table's (answer_from table*) and the
    relevant paragraphs' (answer_from *text; all paragraphs when rel_paragraphs is empty)."""
    source = q["answer_from"]
    rel = {str(p) for p in q.get("rel_paragraphs") or []}
    out: list[Fact] = []
    if source in ("table", "table-text"):
        out.extend(by_id[f"T{c.row}C{c.col}"] for c in ctx.cells)
    if source in ("text", "table-text"):
        out.extend(by_id[f"P{pn.order}N{pn.index}"] for pn in ctx.para_numbers if not rel or str(pn.order) in rel)
    return out


def _mapped_ids(ctx: _Context, mappings: Iterable[dict[str, list[int]]], by_id: dict[str, Fact]) -> list[str]:
    """Fact ids the gold ``mappings`` point to (cells/paragraph spans that are not numbers drop out)."""
    ids: list[str] = []
    for m in mappings:
        ((key, (a, b)),) = m.items()
        if key == "table":
            fid = f"T{a}C{b}"
            if fid in by_id:
                ids.append(fid)
        else:
            order = int(key.split("_", 1)[1])
            ids.extend(
                f"P{pn.order}N{pn.index}"
                for pn in ctx.para_numbers
                if pn.order == order and pn.quantity.span[0] < b and a < pn.quantity.span[1]
            )
    return list(dict.fromkeys(ids))


def _span_citations(
    ctx: _Context,
    q: dict[str, Any],
    span: str,
    numbers: list[float | tuple[float, ...]],
    mappings: list[dict[str, list[int]]],
    candidates: list[Fact],
    by_id: dict[str, Fact],
) -> list[str]:
    """Citations of one answer span: its own mapping(s) when the gold has them, else the
    candidate facts whose value equals a number of the span."""
    if mappings:
        gold_facts = [str(f) for f in q.get("facts") or []]
        # strict=False: TAT-QA's gold lists `facts` and `mappings` separately; a row may have fewer of one
        own = [m for f, m in zip(gold_facts, mappings, strict=False) if _norm(f) == _norm(span)]
        if not own and len(mappings) == 1:
            own = mappings
        ids = _mapped_ids(ctx, own, by_id)
        if ids:
            return ids
        mapped = [by_id[i] for i in _mapped_ids(ctx, mappings, by_id)]
        ids = _value_matches(numbers, mapped)
        if ids:
            return ids
    table_text = [f"T{c.row}C{c.col}" for c in ctx.cells if _norm(c.text) == _norm(span)]
    table_text = [i for i in table_text if by_id[i] in candidates] or table_text
    if table_text:
        return table_text
    return _value_matches(numbers, candidates)


def _cite_sentences(text: str, ids: list[str], by_id: dict[str, Fact]) -> tuple[str, bool]:
    """Put each sentence's citations after it: the ids whose value equals a number the sentence
    states (a one-sentence span gets all ``ids``). Also returns whether every number stated is
    matched by a cited fact of its sentence."""
    spans = split_sentences(text)
    pieces: list[str] = []
    all_matched = True
    for a, b in spans if len(spans) > 1 else [(0, len(text))]:
        sentence = text[a:b].strip()
        numbers = _span_numbers(sentence)
        own = [i for i in ids if _value_matches(numbers, [by_id[i]])] if len(spans) > 1 else ids
        all_matched = all_matched and all(_value_matches([x], (by_id[i] for i in own)) for x in numbers)
        pieces.append(_with_citation(sentence, own))
    return " ".join(pieces), all_matched


def _operand_citations(operands: list[float], candidates: list[Fact], facts: list[Fact]) -> list[str]:
    """Facts whose value equals one of ``operands`` (candidates first, then any fact)."""
    ids: list[str] = []
    for value in operands:
        found = _value_matches([value], candidates) or _value_matches([value], facts)
        ids.extend(found)
    return list(dict.fromkeys(ids))


def _operands(derivation: str) -> list[float]:
    """Numbers of a longer formula that are operands: not the 100 of ``*100``, the 1 of
    ``a/b-1``, nor a small divisor (the 2 of an average)."""
    s = re.sub(r"[\s$%\u00a0]", "", derivation)
    out: list[float] = []
    for m in re.finditer(r"\d[\d,]*(?:\.\d+)?|\.\d+", s):
        value = float(m.group().replace(",", ""))
        before = s[: m.start()].rstrip("(-")
        op = before[-1:] if before else ""
        if op in ("*", "/") and value.is_integer() and (value == 100 or value <= 12):
            continue
        if op == "-" and value == 1 and s[: m.start()].endswith("-") and "/" in s[: m.start()]:
            continue  # growth "a/b - 1"
        out.append(value)
    return out


def _value_matches(numbers: Iterable[float | tuple[float, ...]], facts: Iterable[Fact]) -> list[str]:
    """The ids of ``facts`` whose value equals a number (a tuple: any of one number's readings)."""
    facts = list(facts)
    ids: list[str] = []
    for x in numbers:
        for r in x if isinstance(x, tuple) else (x,):
            ids.extend(f.id for f in facts if _same(abs(f.value), abs(r)))
    return list(dict.fromkeys(ids))


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _span_numbers(span: str) -> list[float | tuple[float, ...]]:
    """Numbers stated in an answer span (years, dates and ordinals are not numbers); a hundredth
    ("18 cents") as its two readings: as written (a table cell under "(cents)") and as its amount (a
    paragraph's "18 cents per share" is the fact 0.18 USD/share)."""
    cell = parse_cell(span)
    if cell is not None:
        return [] if cell.year_like else [cell.value]
    return [(q.value, q.base_value) if q.scale < 1 else q.value for q in extract_quantities(span)]


def _span_text(span: str, scale: str) -> str:
    """The span as written, with the question's scale word added to a bare number cell
    (``1,568.6`` + million → ``1,568.6 million``; ``12.5`` + percent → ``12.5%``)."""
    text = span.strip()
    cell = parse_cell(text)
    if cell is None or cell.year_like or cell.percent:
        return text
    return text + _scale_suffix(scale)


def _scale_suffix(scale: str) -> str:
    if scale == "percent":
        return "%"
    return f" {scale}" if scale else ""


def _with_citation(text: str, ids: list[str]) -> str:
    return f"{text} [{', '.join(ids)}]" if ids else text


def _format_number(value: int | float) -> str:
    """The number at its displayed precision with thousands separators (``1577.3`` → ``1,577.3``)."""
    if isinstance(value, int):
        return f"{value:,}"
    text = repr(float(value))
    if "e" in text or "E" in text:
        text = format(float(value), "f").rstrip("0").rstrip(".")
    decimals = len(text.split(".")[1]) if "." in text else 0
    return f"{float(value):,.{decimals}f}"


# --- text helpers --------------------------------------------------------------------------

_CURRENCY = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP"}
_CUR = r"US\$|\$|€|£"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_CELL = re.compile(
    rf"(?P<cur>{_CUR})?\s*(?P<sign>[-−–])?\s*(?P<open>\()?\s*(?P<cur2>{_CUR})?\s*(?P<sign2>[-−–])?\s*"
    rf"(?P<cur3>{_CUR})?\s*(?P<num>{_NUM})\s*(?P<pct>%)?\s*(?P<close>\))?\s*(?P<pct2>%)?"
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_PERIOD = re.compile(
    rf"(?:(?:\d{{1,2}}\s+)?{_MONTH}\.?\s+(?:\d{{1,2}},?\s+)?|(?:Q[1-4]|H[12]|FY|Fiscal(?:\s+Year)?)\s*)?(?<!\d)(?:19|20)\d\d(?!\d)",
    re.IGNORECASE,
)


def _period(text: str, *, whole: bool = False) -> str | None:
    """The year/date in a header (``"Years Ended Sept 30, 2019"`` → ``"2019"``-ish text), or None.

    ``whole=True`` accepts only text that is nothing but a year/date (row labels)."""
    m = _PERIOD.fullmatch(text) if whole else _PERIOD.search(text)
    return m.group().strip() if m else None


def _clean(text: str) -> str:
    return " ".join(text.split())


def _norm(text: str) -> str:
    return _clean(text).strip(" .").lower()


def _window(text: str, span: tuple[int, int], width: int = 40) -> str:
    """A short window of ``text`` around ``span``, cut at word boundaries."""
    a, b = span
    start, end = max(0, a - width), min(len(text), b + width)
    if start > 0:
        space = text.find(" ", start, a)
        start = space + 1 if space != -1 else start
    if end < len(text):
        space = text.rfind(" ", b, end)
        end = space if space != -1 else end
    window = _clean(text[start:end])
    return ("…" if start > 0 else "") + window + ("…" if end < len(text) else "")


def _normalise_derivation(derivation: str) -> str:
    s = re.sub(r"[\s$%()\[\]\u00a0]", "", derivation)
    s = re.sub(r"(?<=\d),(?=\d{3})", "", s)
    return s.replace("−", "-").replace("–", "-").replace("×", "*")
