"""Importers: TAT-QA and FinanceBench → cases (real shared data + small synthetic files)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from assay.cases import Case, load_cases
from assay.claims import find_citations
from assay.importers import import_financebench, import_tatqa, write_cases_jsonl
from assay.importers.tatqa import derivation_scope, parse_cell

# --- TAT-QA on the shared data ---------------------------------------------------------------


@pytest.fixture(scope="module")
def tatqa_cases(shared_data: Path) -> list[Case]:
    return import_tatqa(shared_data / "tatqa")


@pytest.fixture(scope="module")
def tatqa_by_id(tatqa_cases: list[Case]) -> dict[str, Case]:
    return {c.id: c for c in tatqa_cases}


def test_tatqa_counts_per_file(tatqa_cases: list[Case]) -> None:
    per_split = Counter(c.meta["split"] for c in tatqa_cases)
    assert per_split == {"dev": 1668, "test_gold": 835}
    assert len({c.id for c in tatqa_cases}) == len(tatqa_cases)
    assert {c.variant for c in tatqa_cases} == {"gold"}
    assert Counter(c.slice for c in tatqa_cases if c.meta["split"] == "test_gold") == {
        "arithmetic": 356,
        "span": 355,
        "multi-span": 105,
        "count": 19,
    }


def test_tatqa_single_file_is_accepted(shared_data: Path) -> None:
    cases = import_tatqa(shared_data / "tatqa" / "tatqa_dataset_test_gold.ctx000-138.json")
    assert len(cases) == 835
    assert {c.meta["split"] for c in cases} == {"test_gold"}


def test_tatqa_readme_example(tatqa_by_id: dict[str, Case]) -> None:
    case = tatqa_by_id["200c49c9af38ccc05eb04a1b4f96e34c"]  # (16.6/93.8) * 100, scale percent
    facts = case.snapshot().fact_index()
    t1c1 = facts["T1C1"]
    assert (t1c1.value, t1c1.unit) == (831.7, "USD")  # "$831.7"; percent scale is the answer's only
    assert t1c1.label == "Receivables, less allowance for doubtful accounts | As Reported"
    assert facts["T3C2"].value == -16.6  # "(16.6)"
    assert facts["T2C1"].value == 1571.7 and facts["T2C1"].unit is None  # "1,571.7"
    assert "T0C1" not in facts and "T4C1" not in facts  # header row, empty cells
    assert not any(f.id.endswith("C0") for f in case.facts)  # row labels are not facts
    assert case.answer == "17.7% [T3C1, T3C2]"
    assert case.reference == 17.7
    assert case.meta["in_scope"] is True and case.meta["out_of_scope_reason"] is None
    # paragraph numbers: "$0.5 million" is the first number of paragraph 1
    p = facts["P1N0"]
    assert (p.value, p.unit) == (0.5, "USD millions")
    assert "$0.5 million" in p.label


def test_tatqa_scale_applies_to_cells(tatqa_by_id: dict[str, Case]) -> None:
    case = tatqa_by_id["3d6c31142e7603dc99e28ec725358ac3"]  # Land, scale million
    facts = case.snapshot().fact_index()
    assert (facts["T2C1"].value, facts["T2C1"].unit, facts["T2C1"].period) == (11.9, "USD millions", "2019")
    assert facts["T3C1"].unit == "millions"  # plain cell: amount of unstated currency
    assert case.answer == "11.9 million [T2C1]"
    thousand = tatqa_by_id["8672c940043ce90c4ab20460bcd7d856"]  # "$(20,597)", scale thousand
    assert thousand.snapshot().fact_index()["T2C1"].model_dump(include={"value", "unit"}) == {
        "value": -20597.0,
        "unit": "USD thousands",
    }
    assert thousand.answer == "$(20,597) thousand [T2C1]"


def test_tatqa_multi_span_and_text_answers(tatqa_by_id: dict[str, Case]) -> None:
    multi = tatqa_by_id["7c510956809977a550837006a464fd91"]
    assert multi.answer == "1,568.6 [T2C3]. 690.5 [T5C3]."
    assert multi.meta["in_scope"] is True
    text = tatqa_by_id["a1b54eff7de3dc7bfab148325c7a940b"]
    assert text.answer == "the modified retrospective method"
    assert text.meta["in_scope"] is False and text.meta["out_of_scope_reason"] == "text answer"


def test_tatqa_citations_exist_and_scope(tatqa_cases: list[Case]) -> None:
    for case in tatqa_cases:
        ids = {f.id for f in case.facts}
        cited = find_citations(case.answer)
        assert set(cited) <= ids, (case.id, case.answer)
        meta = case.meta
        assert meta["split"] in ("dev", "test_gold") and meta["answer_type"] == case.slice
        if meta["in_scope"]:
            assert cited, (case.id, case.answer)
            assert case.slice in ("span", "multi-span", "arithmetic")
        else:
            assert meta["out_of_scope_reason"]
    by_type = Counter((c.slice, c.meta["in_scope"]) for c in tatqa_cases)
    assert by_type[("count", True)] == 0
    assert by_type[("arithmetic", True)] > 600 and by_type[("span", True)] > 500


def test_tatqa_cases_validate_and_round_trip(tatqa_cases: list[Case], tmp_path: Path) -> None:
    for case in tatqa_cases[:300]:
        assert Case.model_validate(case.model_dump()) == case
    out = write_cases_jsonl(tatqa_cases, tmp_path / "tatqa.jsonl")
    loaded = load_cases(out)
    assert loaded == list(tatqa_cases)
    assert not list(tmp_path.glob(".*.tmp"))


# --- FinanceBench on the shared data ---------------------------------------------------------


@pytest.fixture(scope="module")
def fb_cases(shared_data: Path) -> list[Case]:
    return import_financebench(shared_data / "financebench")


def test_financebench_variants_and_ids(fb_cases) -> None:
    variants = Counter(c.variant for c in fb_cases)
    assert len(variants) == 16 and set(variants.values()) == {113}
    assert "gpt-4-1106-preview_inContext_reverse" in variants
    ids = {c.id for c in fb_cases}
    assert len(ids) == 113
    assert len({(c.id, c.variant) for c in fb_cases}) == len(fb_cases) == 16 * 113
    assert fb_cases.skipped == {"id not in questions file": 0}


def test_financebench_fields(fb_cases) -> None:
    case = next(
        c for c in fb_cases if c.id == "financebench_id_01319" and c.variant == "gpt-4-1106-preview_inContext_reverse"
    )
    assert case.answer == "0"  # the one integer model answer became text
    for c in fb_cases:
        assert isinstance(c.answer, str) and isinstance(c.reference, str) and c.reference
        assert c.meta["human_label"] in ("Correct Answer", "Incorrect Answer", "Refusal")
        assert c.slice in ("metrics-generated", "domain-relevant", "novel-generated")
        assert c.sources and all(isinstance(s, str) and s for s in c.sources)
    capex = next(c for c in fb_cases if c.id == "financebench_id_03029")
    assert capex.reference == "$1577.00" and capex.meta["graded_gold_answer"] == "1577"


def test_financebench_round_trip(fb_cases, tmp_path: Path) -> None:
    loaded = load_cases(write_cases_jsonl(fb_cases, tmp_path / "fb.jsonl"))
    assert loaded == list(fb_cases)


# --- synthetic files -------------------------------------------------------------------------


def _tatqa_context(**question_overrides) -> list[dict]:
    question = {
        "uid": "q1",
        "order": 1,
        "question": "What is the change in revenue?",
        "answer": 20,
        "derivation": "$120 - $100",
        "answer_type": "arithmetic",
        "answer_from": "table",
        "rel_paragraphs": [],
        "req_comparison": False,
        "scale": "million",
    }
    question.update(question_overrides)
    return [
        {
            "table": {
                "uid": "t1",
                "table": [
                    ["", "2019", "2018"],
                    ["Revenue", "$120", "$100"],
                    ["Margin", "12.5%", "(3.0)%"],
                    ["Other", "-", "—"],
                ],
            },
            "paragraphs": [{"uid": "p1", "order": 1, "text": "Revenue grew by $20 million in 2019, or 20%."}],
            "questions": [question],
        }
    ]


def test_tatqa_synthetic_dev_question(tmp_path: Path) -> None:
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(_tatqa_context()), encoding="utf-8")
    (case,) = import_tatqa(tmp_path)
    facts = case.snapshot().fact_index()
    assert set(facts) == {"T1C1", "T1C2", "T2C1", "T2C2", "P1N0", "P1N1"}
    assert facts["T1C1"].unit == "USD millions" and facts["T1C1"].period == "2019"
    assert (facts["T2C2"].value, facts["T2C2"].unit) == (-3.0, "%")
    assert (facts["P1N1"].value, facts["P1N1"].unit) == (20.0, "%")
    assert case.answer == "20 million [T1C1, T1C2]"  # no mappings: cells equal to derivation operands
    assert case.meta["in_scope"] is True and case.meta["split"] == "dev"
    # issue 15: a table cell is a displayed value; a paragraph number with a scale word is not
    assert facts["T1C1"].displayed_value == "$120" and facts["T2C2"].displayed_value == "(3.0)%"
    assert facts["P1N0"].displayed_value is None  # "$20 million" states its scale
    assert facts["P1N1"].displayed_value == "20%"  # digits without a scale word: shown as is


def test_tatqa_malformed_file_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(_tatqa_context(scale="gazillion")), encoding="utf-8")
    with pytest.raises(ValueError) as err:
        import_tatqa(path)
    message = str(err.value)
    assert str(path) in message and "[0].questions[0].scale" in message and "gazillion" in message
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        import_tatqa(path)


@pytest.mark.parametrize(
    ("where", "field"),
    [("cell", "[0].table.table[2][2]"), ("paragraph", "[0].paragraphs[0].text")],
)
def test_regression_an_overflowing_number_is_blamed_on_its_cell_or_paragraph(tmp_path: Path, where, field) -> None:
    """A 400-digit table cell was reported as "[0].questions[0]: value: must be finite …": the
    question's case was where the fact got built. The error now names the cell or paragraph."""
    data = _tatqa_context()
    huge = "9" * 400
    if where == "cell":
        data[0]["table"]["table"][2][2] = huge
    else:
        data[0]["paragraphs"][0]["text"] = f"Revenue grew by ${huge} million."
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError) as err:
        import_tatqa(path)
    assert str(err.value).startswith(f"{path}: {field}: a number beyond a 64-bit float")
    assert "questions" not in str(err.value) and len(str(err.value)) < 250


def test_a_span_in_cents_is_cited_by_its_paragraph_or_its_cents_cell(tmp_path: Path) -> None:
    """gate-17 reads "18 cents" as 0.18: a span answer in cents is still in scope, cited by the
    paragraph's "18 cents per share" (the fact 0.18 USD/share) and by a cell of a "(cents)" row (3.45
    as written), and the gate passes both."""
    from assay.grounding import check_answer

    data = _tatqa_context(
        answer=["AU 18 cents"],
        answer_type="span",
        answer_from="text",
        derivation="",
        scale="",
        question="What is the final dividend per share?",
    )
    data[0]["paragraphs"][0]["text"] = "The directors declared a final dividend of AU 18 cents per share."
    cents_row = _tatqa_context(
        answer=["3.45 cents"],
        answer_type="span",
        answer_from="table",
        derivation="",
        scale="",
        uid="q2",
        question="What is the interim dividend per share?",
    )[0]["questions"][0]
    data[0]["table"]["table"].append(["Interim dividend per share (cents)", "3.45", "3.10"])
    data[0]["questions"].append(cents_row)
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    by_answer = {c.answer.split(" [")[0]: c for c in import_tatqa(path)}
    for text, ref in (("AU 18 cents", "P1N0"), ("3.45 cents", "T4C1")):
        case = by_answer[text]
        assert case.meta["in_scope"] is True and ref in find_citations(case.answer), case.answer
        assert check_answer(case.answer, case.snapshot(), question=case.question).status == "pass", case.answer


def test_financebench_synthetic_skips_and_errors(tmp_path: Path) -> None:
    q = {
        "financebench_id": "fb1",
        "question": "Capex?",
        "answer": "$5.00",
        "question_type": "metrics-generated",
        "evidence": [{"evidence_text": "Capex was $5."}],
    }
    (tmp_path / "financebench_open_source.jsonl").write_text(json.dumps(q) + "\n", encoding="utf-8")
    (tmp_path / "results").mkdir()
    row = {
        "financebench_id": "fb1",
        "model_name": "m",
        "eval_mode": "oracle",
        "question": "Capex?",
        "gold_answer": 5,
        "model_answer": None,
        "label": "Refusal",
    }
    other = {**row, "financebench_id": "unknown"}
    results = tmp_path / "results" / "m_oracle.jsonl"
    results.write_text(json.dumps(row) + "\n\n" + json.dumps(other) + "\n", encoding="utf-8")
    cases = import_financebench(tmp_path)
    assert [(c.id, c.variant, c.answer, c.reference, c.sources) for c in cases] == [
        ("fb1", "m_oracle", "", "$5.00", ("Capex was $5.",))
    ]
    assert cases.skipped == {"id not in questions file": 1}
    bad = {k: v for k, v in row.items() if k != "label"}
    results.write_text(json.dumps(row) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        import_financebench(tmp_path)
    assert f"{results}:2: label" in str(err.value)
    # JSON allows U+2028 raw inside a string: it does not end the line (str.splitlines would cut there)
    sep = {**row, "model_answer": "Capex was $5.\u2028See page 3."}
    results.write_text(json.dumps(sep, ensure_ascii=False) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        import_financebench(tmp_path)
    assert str(err.value).startswith(f"{results}:2: <json>: ")
    results.write_text(json.dumps(sep, ensure_ascii=False) + "\n", encoding="utf-8")
    assert [c.answer for c in import_financebench(tmp_path)] == ["Capex was $5.\u2028See page 3."]


# --- pure helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "currency", "percent"),
    [
        ("$831.7", 831.7, "USD", False),
        ("(370)", -370.0, None, False),
        ("1,568.6", 1568.6, None, False),
        ("12.5%", 12.5, None, True),
        ("$ (9.9)", -9.9, "USD", False),
        ("$(1,234)", -1234.0, "USD", False),
        ("(9,819 )", -9819.0, None, False),
        ("(248%)", -248.0, None, True),
        ("−5", -5.0, None, False),
    ],
)
def test_parse_cell(text: str, value: float, currency: str | None, percent: bool) -> None:
    n = parse_cell(text)
    assert n is not None and (n.value, n.currency, n.percent) == (value, currency, percent)


@pytest.mark.parametrize("text", ["", "-", "—", "$—", "N/A", "2019 (1)", "$'000", "(9) bps", "20 - Indefinite"])
def test_parse_cell_rejects(text: str) -> None:
    assert parse_cell(text) is None


def test_parse_cell_year() -> None:
    assert parse_cell("2019").year_like and not parse_cell("$2019").year_like


@pytest.mark.parametrize(
    ("derivation", "expected"),
    [
        ("44.1-56.7", (True, None)),
        ("$788,948-$718,892", (True, None)),
        ("-5,637-(-3,990)", (True, None)),
        ("(16.6/93.8 ) * 100", (True, None)),
        ("((1,568.6-1,571.7)/1,571.7 ) * 100", (True, None)),
        ("(44.1-56.7)/56.7", (True, None)),
        ("2,664/909 ", (True, None)),
        ("(166+178)/2", (False, "average")),
        ("-(0.9 + 0.1) / 2", (False, "average")),
        ("(44.1-56.7)/44.1", (False, "multi-step formula")),
        ("126 / 67 - 1", (False, "multi-step formula")),
        ("(831.7+1,571.7+93.8)/691.6 ", (False, "multi-step formula")),
        ("", (False, "no derivation")),
    ],
)
def test_derivation_scope(derivation: str, expected: tuple[bool, str | None]) -> None:
    assert derivation_scope(derivation) == expected


# --- issue 16: --in-scope-only, progress ------------------------------------------------------


def test_tatqa_in_scope_only_leaves_out_and_counts_the_rest(tmp_path: Path) -> None:
    ctx = _tatqa_context()
    second = dict(ctx[0]["questions"][0], uid="q2", derivation="($120 - $100) / $100 * 2")  # two steps
    third = dict(ctx[0]["questions"][0], uid="q3", answer_type="count", answer=2, derivation="")
    ctx[0]["questions"] += [second, third]
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(ctx), encoding="utf-8")
    everything = import_tatqa(path)
    assert [c.meta["in_scope"] for c in everything] == [True, False, False]
    calls: list[tuple[int, int]] = []
    kept = import_tatqa(path, in_scope_only=True, on_progress=lambda d, t: calls.append((d, t)))
    assert [c.id for c in kept] == ["q1"]
    assert kept.skipped == {"out of scope (multi-step formula)": 1, "out of scope (count answer)": 1}
    assert calls[0] == (0, 1) and calls[-1] == (1, 1)


def test_tatqa_in_scope_only_on_the_real_data(tatqa_cases: list[Case], shared_data: Path) -> None:
    kept = import_tatqa(shared_data / "tatqa", in_scope_only=True)
    assert [c.id for c in kept] == [c.id for c in tatqa_cases if c.meta["in_scope"]]
    assert sum(kept.skipped.values()) == len(tatqa_cases) - len(kept) > 900  # the ~1,000 of issue 16
    assert kept.skipped["out of scope (multi-step formula)"] == sum(
        c.meta["out_of_scope_reason"] == "multi-step formula" for c in tatqa_cases
    )


def test_cli_import_in_scope_only_and_its_misuse(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from assay.cli import app

    ctx = _tatqa_context()
    ctx[0]["questions"].append(dict(ctx[0]["questions"][0], uid="q2", answer_type="count", answer=2))
    (tmp_path / "tatqa_dataset_dev.json").write_text(json.dumps(ctx), encoding="utf-8")
    out = tmp_path / "cases.jsonl"
    r = CliRunner().invoke(app, ["import", "tatqa", str(tmp_path), "--out", str(out), "--in-scope-only", "-q"])
    assert r.exit_code == 0, r.output
    assert "1 cases" in r.output and "left out: 1 source record(s): out of scope (count answer)" in r.output
    assert [c.id for c in load_cases(out)] == ["q1"]
    r = CliRunner().invoke(app, ["import", "financebench", str(tmp_path), "--out", str(out), "--in-scope-only"])
    assert r.exit_code == 2 and "--in-scope-only applies to tatqa only" in r.output
