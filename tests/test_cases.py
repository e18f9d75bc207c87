"""The cases JSONL loader (assay.cases): every bad line reported as ``file:line: field: problem``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cases import Case, CaseFileError, load_cases, parse_case_line

GOOD = {
    "id": "q1",
    "answer": "Margin was 20% [F1].",
    "facts": [{"id": "F1", "label": "Margin", "value": 20, "unit": "%"}],
}


def write(tmp_path: Path, *lines: str | dict, name: str = "cases.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines), encoding="utf-8")
    return p


def problems(path: Path) -> list[str]:
    with pytest.raises(CaseFileError) as e:
        load_cases(path)
    return [str(p) for p in e.value.problems]


def test_loads_good_file_and_skips_blank_lines(tmp_path):
    p = write(tmp_path, GOOD, "", "   ", {**GOOD, "variant": "b"})
    cases = load_cases(p)
    assert [(c.id, c.variant) for c in cases] == [("q1", "default"), ("q1", "b")]
    assert cases[0].snapshot().facts[0].unit == "%"


def test_malformed_json_line(tmp_path):
    p = write(tmp_path, GOOD, '{"id": "q2", "answer": ')
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:2: <json>: ")


def test_line_that_is_not_an_object(tmp_path):
    (msg,) = problems(write(tmp_path, "[1, 2]"))
    assert msg.endswith(":1: <json>: expected a JSON object")


def test_missing_answer(tmp_path):
    p = write(tmp_path, {"id": "q1"})
    assert problems(p) == [f"{p}:1: answer: required field is missing"]


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_constants_are_not_json(tmp_path, raw):
    p = write(tmp_path, f'{{"id": "q1", "answer": "a", "facts": [{{"id": "F1", "label": "x", "value": {raw}}}]}}')
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:1: <json>: ") and raw.lstrip("-") in msg


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("1e999", "must be finite"),
        ('"12"', "must be a number"),
        ("true", "must be a number"),
        ("null", "must be a number"),
        ('"abc"', "must be a number"),
    ],
)
def test_fact_value_must_be_a_finite_number(tmp_path, value, needle):
    p = write(
        tmp_path, GOOD, f'{{"id": "q2", "answer": "a", "facts": [{{"id": "F1", "label": "x", "value": {value}}}]}}'
    )
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:2: facts.0.value: ") and needle in msg


def test_non_utf8_bytes_name_the_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(json.dumps(GOOD).encode() + b"\n" + b'{"id": "q2", "answer": "caf\xe9"}\n')
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:2: <bytes>: not valid UTF-8")


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_empty_file(tmp_path, content):
    p = tmp_path / "empty.jsonl"
    p.write_text(content)
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:") and "empty file" in msg


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_cases(tmp_path / "nope.jsonl")


def test_every_bad_line_is_reported(tmp_path):
    p = write(
        tmp_path,
        GOOD,
        "{oops",
        {"answer": "a"},
        {**GOOD, "facts": [{"id": "F1", "label": "x", "value": 1, "unit": "dollars"}]},
        {**GOOD, "variant": ""},
        {**GOOD, "colour": "red"},
    )
    msgs = problems(p)
    assert [m.split(": ")[0] for m in msgs] == [f"{p}:2", f"{p}:3", f"{p}:4", f"{p}:5", f"{p}:6"]
    assert f"{p}:3: id: required field is missing" in msgs
    assert any(m.startswith(f"{p}:4: facts.0.unit: ") and "unknown unit 'dollars'" in m for m in msgs)
    assert any(m.startswith(f"{p}:5: variant: ") for m in msgs)
    assert any(m.startswith(f"{p}:6: colour: ") for m in msgs)


def test_duplicate_id_variant_names_both_lines(tmp_path):
    p = write(tmp_path, GOOD, {**GOOD, "variant": "b"}, GOOD)
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:3: id: ") and "first at line 1" in msg


def test_duplicate_fact_id_in_a_case(tmp_path):
    f = {"id": "F1", "label": "x", "value": 1}
    (msg,) = problems(write(tmp_path, {**GOOD, "facts": [f, f]}))
    assert ":1: facts: " in msg and "duplicate fact id 'F1'" in msg


def test_nan_reference_is_rejected():
    case, probs = parse_case_line('{"id": "q", "answer": "a", "reference": 1e999}', file="f.jsonl", line=7)
    assert case is None and str(probs[0]).startswith("f.jsonl:7: reference")


def test_many_problems_are_capped_in_the_message(tmp_path):
    p = write(tmp_path, *["{bad"] * 60)
    with pytest.raises(CaseFileError) as e:
        load_cases(p)
    assert len(e.value.problems) == 60 and "… and 10 more" in str(e.value)


def test_regression_unicode_line_separators_inside_strings(tmp_path):
    """Bug fixed: U+2028/U+2029/U+0085 written raw inside a JSON string split the line (valid JSONL rejected)."""
    p = tmp_path / "ls.jsonl"
    answer = "Revenue\u2028was $5\u0085 billion\u2029 [F1]."
    p.write_text(
        json.dumps({**GOOD, "answer": answer}, ensure_ascii=False) + "\n" + json.dumps({**GOOD, "id": "q2"}) + "\n",
        encoding="utf-8",
    )
    cases = load_cases(p)
    assert [c.answer for c in cases] == [answer, GOOD["answer"]]


def test_crlf_line_endings(tmp_path):
    p = tmp_path / "crlf.jsonl"
    p.write_bytes((json.dumps(GOOD) + "\r\n" + json.dumps({**GOOD, "id": "q2"}) + "\r\n").encode())
    assert [c.id for c in load_cases(p)] == ["q1", "q2"]


def test_line_numbers_count_blank_lines(tmp_path):
    p = write(tmp_path, GOOD, "", "", {"id": "q9"})
    assert problems(p) == [f"{p}:4: answer: required field is missing"]


def test_case_fields_and_get_field():
    c = Case.model_validate({**GOOD, "meta": {"human_label": "Correct Answer"}, "reference": [1.5, "x"]})
    assert c.get_field("meta.human_label") == "Correct Answer"
    assert c.get_field("meta.missing") is None and c.get_field("id") == "q1"
    assert c.reference == [1.5, "x"]


@pytest.mark.parametrize(
    ("escape", "field", "problem"),
    [
        ("\\u0000", "answer", "NUL character"),
        ("\\ud800", "answer", "lone surrogate"),
    ],
)
def test_regression_nul_and_lone_surrogates_are_input_errors(tmp_path, escape, field, problem):
    """A NUL (PostgreSQL text cannot hold it) or a lone surrogate (not Unicode) in a JSONL string
    failed later with a database or codec error and no file:line; it is now the line's problem."""
    f = tmp_path / "c.jsonl"
    f.write_text(
        '{"id": "q1", "answer": "fine"}\n{"id": "q2", "answer": "bad ' + escape + ' here"}\n', encoding="utf-8"
    )
    with pytest.raises(CaseFileError) as e:
        load_cases(f)
    assert f"{f}:2: {field}: " in str(e.value) and problem in str(e.value)
    ok = tmp_path / "ok.jsonl"
    ok.write_text(
        '{"id": "q1", "answer": "emoji \\ud83d\\ude00 fine", "facts": [{"id": "F1", "label": "x", "value": 1}]}\n',
        encoding="utf-8",
    )
    assert load_cases(ok)[0].answer == "emoji \U0001f600 fine"  # a surrogate *pair* is a character


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("facts", None, "expected a list (a JSON array), got null"),
        ("facts", {"id": "F1"}, "expected a list (a JSON array), got an object"),
        ("sources", "one passage", "expected a list (a JSON array), got a string"),
    ],
)
def test_regression_a_wrong_json_type_is_named_in_json_terms(tmp_path, field, value, problem):
    """``"facts": null`` read "Input should be a valid tuple" (pydantic's Python type; a JSON file
    has no tuples): the problem names the JSON types, expected and given."""
    p = write(tmp_path, {**GOOD, field: value})
    assert problems(p) == [f"{p}:1: {field}: {problem}"]


def test_a_fact_or_source_of_the_wrong_json_type_is_named(tmp_path):
    p = write(tmp_path, {**GOOD, "facts": ["F1"]}, {**GOOD, "id": "q2", "sources": [{"text": "x"}]})
    assert problems(p) == [
        f"{p}:1: facts.0: expected an object, got a string",
        f"{p}:2: sources.0: expected a string, got an object",
    ]


@pytest.mark.parametrize(("field", "value"), [("id", "q1\x1b[31mRED"), ("id", "q1\nq2"), ("variant", "a\u202eb")])
def test_regression_control_characters_in_ids_are_input_errors(tmp_path, field, value):
    """An id with an ESC sequence or a newline was echoed raw on every report line (a terminal
    escape, a forged second line); ids are printed, so they may not hold control or format characters."""
    p = write(tmp_path, {**GOOD, field: value})
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:1: {field}: contains a control character (\\")
    assert load_cases(write(tmp_path, {**GOOD, "id": "질문 1 — ü"}, name="ok.jsonl"))[0].id == "질문 1 — ü"


@pytest.mark.parametrize("fact_id", ["F 1", "F1]", "F1,F2", "매출", ""])
def test_regression_a_fact_id_no_marker_can_cite_is_an_input_error(tmp_path, fact_id):
    """A fact id with a space ("F 1") was accepted and then never cited: "[F 1]" is no marker, so
    the claim beside it failed as uncited with nothing to say why. The loader names the id."""
    p = write(tmp_path, {**GOOD, "facts": [{"id": fact_id, "label": "Margin", "value": 20, "unit": "%"}]})
    (msg,) = problems(p)
    assert msg.startswith(f"{p}:1: facts") and (repr(fact_id) in msg or "non-empty" in msg)


@pytest.mark.parametrize("fact_id", ["F1", "T2C1", "10-K:p4", "a_b.c"])
def test_citable_fact_ids_load_and_are_cited(tmp_path, fact_id):
    from assay.grounding import check_answer

    case = load_cases(
        write(
            tmp_path,
            {
                **GOOD,
                "answer": f"Margin was 20% [{fact_id}].",
                "facts": [{"id": fact_id, "label": "Margin", "value": 20, "unit": "%"}],
            },
        )
    )[0]
    assert check_answer(case.answer, case.snapshot()).status == "pass"
