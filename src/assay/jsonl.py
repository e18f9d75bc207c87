"""Reading JSON Lines input files, with every problem reported as ``file:line: field: problem``.

One home for what every loader of assay needs (cases, memories, verdicts, queries): UTF-8
decoding that names the line of a bad byte, one JSON object per line (NaN/Infinity rejected:
they are not JSON), pydantic validation turned into readable problems, and an error that lists
every bad line at once so a user fixes a file in one pass. JSON Lines are separated by ``"\\n"``
only: ``str.splitlines()`` would also cut at U+2028, U+2029 and U+0085, which JSON allows raw
inside strings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

__all__ = [
    "as_utc",
    "InputProblem",
    "InputFileError",
    "read_utf8",
    "iter_lines",
    "json_object",
    "bad_string",
    "validation_problems",
    "parse_model_line",
    "load_jsonl",
]

M = TypeVar("M", bound=BaseModel)


def as_utc(v: datetime | None) -> datetime | None:
    """A timestamp in UTC: a naive one is read as UTC (SQLite and many JSON writers drop the
    offset), an aware one is converted; ``None`` stays ``None``."""
    if v is None:
        return None
    return v.replace(tzinfo=UTC) if v.tzinfo is None else v.astimezone(UTC)


class InputProblem(BaseModel):
    """One problem in an input file: where, which field, what is wrong."""

    file: str
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.problem}"


class InputFileError(ValueError):
    """An input file could not be loaded; ``problems`` lists every bad line (first 50 shown)."""

    def __init__(self, problems: list[InputProblem]):
        self.problems = problems
        shown = "\n".join(str(p) for p in problems[:50])
        more = f"\n… and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(shown + more)


def read_utf8(path: str | Path, error: type[InputFileError] = InputFileError) -> str:
    """The file's text; raises ``error`` naming the line of the first byte that is not UTF-8,
    ``FileNotFoundError`` when the file is missing."""
    raw = Path(path).read_bytes()
    try:
        return raw.decode("utf-8-sig")  # a leading BOM (Windows editors) is not content
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise error(
            [
                InputProblem(
                    file=str(path),
                    line=line,
                    field="<bytes>",
                    problem=f"not valid UTF-8 ({e.reason} at byte {e.start})",
                )
            ]
        ) from None


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(1-based line number, line)`` of every non-blank JSON Lines line (split at ``"\\n"`` only)."""
    for lineno, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield lineno, line


def json_object(text: str, *, file: str, line: int) -> tuple[dict[str, Any] | None, list[InputProblem]]:
    """Parse ``text`` as one JSON object. A multi-line document reports the line inside it."""
    try:
        obj = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except ValueError as e:
        at = line + e.lineno - 1 if isinstance(e, json.JSONDecodeError) else line
        msg = f"{e.msg} (column {e.colno})" if isinstance(e, json.JSONDecodeError) else str(e)
        return None, [InputProblem(file=file, line=at, field="<json>", problem=msg)]
    if not isinstance(obj, dict):
        return None, [InputProblem(file=file, line=line, field="<json>", problem="expected a JSON object")]
    if _SUSPECT_ESCAPE.search(text):  # only a \u escape can smuggle these in: skip the walk otherwise
        bad = bad_string(obj)
        if bad is not None:
            return None, [InputProblem(file=file, line=line, field=bad[0] or "<json>", problem=bad[1])]
    return obj, []


#: ``\u0000`` or a surrogate escape (``\ud800``–``\udfff``): raw UTF-8 cannot hold either.
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def bad_string(value: Any, path: str = "") -> tuple[str, str] | None:
    """``(dotted path, problem)`` of the first string (key or value) holding a NUL character —
    PostgreSQL text cannot store it, so the two backends would disagree — or a lone surrogate
    (not Unicode: it cannot be written as UTF-8)."""
    if isinstance(value, str):
        if "\x00" in value:
            return path, "contains a NUL character (\\u0000)"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path, "contains a lone surrogate escape (\\ud800–\\udfff without its pair): not valid Unicode"
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, (list, tuple)) else ()
    for k, v in items:
        sub = f"{path}.{k}" if path else str(k)
        bad = bad_string(k, sub) if isinstance(k, str) else None
        bad = bad or bad_string(v, sub)
        if bad is not None:
            return bad
    return None


def validation_problems(e: ValidationError, *, file: str, line: int, what: str = "<record>") -> list[InputProblem]:
    """pydantic's errors as problems: dotted field path, the message without pydantic's prefix."""
    out = []
    for err in e.errors():
        loc = ".".join(str(p) for p in err["loc"]) or what
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] in ("dict_type", "model_type", "model_attributes_type"):
            msg = f"expected an object, got {_json_type(err.get('input'))}"
        elif err["type"] in ("tuple_type", "list_type", "set_type", "frozen_set_type"):
            msg = f"expected a list (a JSON array), got {_json_type(err.get('input'))}"
        elif err["type"] == "string_type":
            msg = f"expected a string, got {_json_type(err.get('input'))}"
        out.append(InputProblem(file=file, line=line, field=loc, problem=msg))
    return out


def _json_type(value: object) -> str:
    """The JSON name of a parsed value's type (``None`` → ``"null"``, a dict → ``"an object"``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def parse_model_line(
    model: type[M], text: str, *, file: str, line: int, what: str = "<record>"
) -> tuple[M | None, list[InputProblem]]:
    """One JSONL line validated as ``model``, or the problems found on it."""
    obj, problems = json_object(text, file=file, line=line)
    if obj is None:
        return None, problems
    try:
        return model.model_validate(obj), []
    except ValidationError as e:
        return None, validation_problems(e, file=file, line=line, what=what)


def load_jsonl(
    path: str | Path,
    parse: Callable[[str, str, int], tuple[Any, list[InputProblem]]],
    *,
    what: str,
    key: Callable[[Any], Any] | None = None,
    describe_key: Callable[[Any], str] = repr,
    error: type[InputFileError] = InputFileError,
) -> list[tuple[int, Any]]:
    """``[(line, record)]`` of a JSONL file, each line parsed by ``parse(text, file, line)``.

    With ``key``, a record whose key repeats an earlier line's is a problem naming both lines.
    Raises ``error`` listing every problem (and for an empty file), ``FileNotFoundError`` when
    the file is missing. Nothing is returned unless the whole file is good.
    """
    name = str(path)
    text = read_utf8(path, error)
    out: list[tuple[int, Any]] = []
    problems: list[InputProblem] = []
    first: dict[Any, int] = {}
    for lineno, line in iter_lines(text):
        rec, probs = parse(line, name, lineno)
        problems.extend(probs)
        if rec is None:
            continue
        if key is not None:
            k = key(rec)
            if k in first:
                problems.append(
                    InputProblem(
                        file=name,
                        line=lineno,
                        field="id",
                        problem=f"duplicate {describe_key(k)}; first at line {first[k]}",
                    )
                )
                continue
            first[k] = lineno
        out.append((lineno, rec))
    if not out and not problems:
        problems.append(InputProblem(file=name, line=0, field="<file>", problem=f"empty file: no {what}"))
    if problems:
        raise error(problems)
    return out


def _parse_int(digits: str) -> int | float:
    """A JSON integer; one longer than Python converts (4,300 digits) is read as the float it
    would round to (±inf), so the field's validator reports it, not the JSON parser's advice
    to call ``sys.set_int_max_str_digits()``."""
    return int(digits) if len(digits) <= 4300 else float(digits)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")
