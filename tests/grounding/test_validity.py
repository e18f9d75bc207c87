"""Gate validity (assay.grounding.validity): the moved_unit perturbation and the TAT-QA /
FinanceBench checks, on small cases and (slow) on the real data with issue 2's targets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cases import Case
from assay.claims import extract_quantities
from assay.grounding.validity import (
    PERTURBATIONS,
    MovedUnit,
    Perturbation,
    financebench_validity,
    move_all_numbers,
    move_number,
    tatqa_validity,
)

FACTS = ({"id": "F1", "label": "Revenue", "value": 383.3, "unit": "USD billions"},)


def _case(answer: str, **meta: object) -> Case:
    return Case(id=answer, answer=answer, facts=FACTS, meta=meta)


def test_moved_unit_is_the_first_perturbation_and_moves_every_number():
    p: Perturbation = PERTURBATIONS[0]
    assert p.name == "moved_unit" and isinstance(p, MovedUnit)
    text = "Revenue was $383.3 billion [F1], down (1,577) and 5%."
    assert p.apply(text) == move_all_numbers(text) == "Revenue was $383.4 billion [F1], down (1,578) and 6%."
    assert MovedUnit(units=-1).apply("It was 10.") == "It was 9."
    assert p.apply("No numbers here.") == "No numbers here."


def test_move_number_moves_one_quantity_and_keeps_its_form():
    text = "Sales of 1 577 units and $0.25 per share."
    first, second = extract_quantities(text)
    assert move_number(text, first) == "Sales of 1 578 units and $0.25 per share."
    assert move_number(text, second, 2) == "Sales of 1 577 units and $0.27 per share."


def test_tatqa_validity_counts_gold_and_moved_answers():
    cases = [
        _case("Revenue was $383.3 billion [F1].", in_scope=True, answer_type="span"),
        _case("Revenue was $999 billion [F1].", in_scope=True, answer_type="span"),
        _case("A text answer.", in_scope=False, out_of_scope_reason="text answer"),
    ]
    r = tatqa_validity(cases)
    assert r["n_in_scope"] == 2
    assert r["accept_gold"] == {"k": 1, "n": 2, "rate": 0.5}
    assert r["reject_moved"] == {"k": 2, "n": 2, "rate": 1.0}
    assert r["accept_gold_uncited"]["k"] == 1 and r["false_accept_moved_uncited"]["k"] == 0
    assert r["by_answer_type"] == {"span": {"n": 2, "accept": 1, "reject_moved": 2, "false_accept_uncited": 0}}
    assert r["out_of_scope"] == {"text answer": 1}
    assert len(r["examples_not_accepted"]) == 1 and "999" in r["examples_not_accepted"][0]


def test_financebench_validity_per_label_and_moved_correct_answers():
    cases = [
        _case("Revenue was $383.3 billion.", human_label="Correct Answer"),
        _case("Revenue was $999 billion.", human_label="Incorrect Answer"),
        _case("I cannot answer.", human_label="Refusal"),
        _case("No figure is given.", human_label="Incorrect Answer"),
    ]
    r = financebench_validity(cases)
    assert r["n"] == 4
    assert r["per_label"]["Correct Answer"]["pass"] == {"k": 1, "n": 1, "rate": 1.0, "count": 1}
    assert r["per_label"]["Incorrect Answer"]["no_claims"]["count"] == 1
    agree = r["fails_vs_incorrect"]
    assert (agree["tp"], agree["tn"], agree["refusals_excluded"], agree["no_claims_left_out"]) == (1, 1, 1, 1)
    assert r["moved_correct_false_accept"] == {"k": 0, "n": 1, "rate": 0.0}


@pytest.mark.slow
def test_real_data_validity_meets_issue_2_targets(shared_data: Path):
    from assay.importers.financebench import import_financebench
    from assay.importers.tatqa import import_tatqa

    tq = tatqa_validity(import_tatqa(shared_data / "tatqa"))
    assert tq["n_in_scope"] > 1000
    assert tq["accept_gold"]["rate"] >= 0.98  # 0.9867 at gate-4
    assert tq["reject_moved"]["rate"] >= 0.99
    assert tq["false_accept_moved_uncited"]["rate"] <= 0.05
    fb = financebench_validity(list(import_financebench(shared_data / "financebench")))
    assert fb["moved_correct_false_accept"]["rate"] <= 0.05
    assert fb["fails_vs_incorrect"]["recall"] >= 0.8


def test_run_suite_records_every_false_accept_with_its_case_id():
    """f15: ``SuiteResult.false_accepts`` names the case of each accepted perturbation (for the
    ``--local`` file); a class that changes nothing is accepted on every accepted gold case."""
    from assay.grounding.suite import run_suite

    facts = [{"id": "F1", "label": "Revenue", "value": 383285, "unit": "USD millions", "period": "FY2023"}]
    cases = [
        Case.model_validate(
            {"id": f"q{i}", "variant": "a", "answer": "Revenue was $383.3 billion [F1].", "facts": facts}
        )
        for i in range(3)
    ]
    r = run_suite("t", cases, "cited", {"unchanged": lambda c: c})
    assert r.classes["unchanged"].k == 3
    assert [cid for _, cid, _ in r.false_accepts] == ["q0", "q1", "q2"]
    assert "q0" not in json.dumps(r.to_dict())
