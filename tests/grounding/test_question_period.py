"""A bare figure takes its period from the question it answers (assay.grounding.question_period):
the TAT-QA gold figures moved by one unit that passed on another year's figure ("50%" to "What
is the operating margin for fiscal 2018?" on the 2017 margin), each with its true counterpart."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import extract_quantities
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.question_period import is_bare

MARGIN = Snapshot(
    facts=(
        Fact(id="A", label="Operating margin | 2018", value=51, unit="%", period="2018"),
        Fact(id="B", label="Operating margin | 2017", value=50, unit="%", period="2017"),
    )
)
Q = "What is the operating margin for fiscal 2018?"


def status(answer: str, snap: Snapshot, question: str | None, mode: str = "uncited") -> str:
    return check_answer(answer, snap, question=question, mode=mode).status  # type: ignore[arg-type]


def test_a_bare_figure_of_another_year_than_the_questions_fails():
    assert status("51%", MARGIN, Q) == "pass"
    assert status("50%", MARGIN, Q) == "fail"  # the 2017 margin
    assert status("50% [A, B]", MARGIN, Q, "cited") == "pass"  # cited: the marker says which figure it is
    assert status("50%", MARGIN, "What is the operating margin for fiscal 2017?") == "pass"


def test_nothing_changes_without_a_bare_sentence_or_a_known_year():
    assert status("50%", MARGIN, None) == "pass"  # no question
    assert status("50%", MARGIN, "What is the operating margin in 2015?") == "pass"  # no fact of 2015
    assert status("The margin was 50%.", MARGIN, Q) == "pass"  # the sentence says something of its own
    assert status("50% in 2017", MARGIN, Q) == "pass"  # it names its own year


def test_a_change_between_the_questions_years_still_passes():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Net sales | 2019", value=980, unit="USD millions", period="2019"),
            Fact(id="B", label="Net sales | 2018", value=887, unit="USD millions", period="2018"),
            Fact(id="C", label="Net income | 2017", value=93, unit="USD millions", period="2017"),
        )
    )
    q = "What is the change in Net Sales from 2018 to 2019?"
    assert status("93 million", snap, q) == "pass"  # 980 − 887
    assert status("93 million", snap, "What was the net income in 2017?") == "pass"


def test_is_bare_reads_one_figure_with_its_unit_and_markers_only():
    for text in ("$2.6 million [P3N0].", "50% [T5C1]", "£(8.2m)", "-14 million", "0.88"):
        assert is_bare(text, 0, tuple(extract_quantities(text))), text
    for text in ("Revenue was $5 million.", "4.1% [A]. 4.6% [B].", "3 stores"):
        assert not is_bare(text, 0, tuple(extract_quantities(text))), text


@settings(max_examples=30, deadline=None)
@given(a=st.integers(min_value=10, max_value=900), b=st.integers(min_value=10, max_value=900))
def test_property_a_bare_figure_passes_for_its_own_year_only(a: int, b: int):
    if a == b:
        return
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Backlog | 2019", value=a, unit="USD millions", period="2019"),
            Fact(id="B", label="Backlog | 2018", value=b, unit="USD millions", period="2018"),
        )
    )
    assert status(f"{a} million", snap, "What was the backlog in 2019?") == "pass"
    if abs(a - b) != b:  # b = a − b (a = 2b) is the change from 2018 to 2019, a derivation of the pair
        assert status(f"{b} million", snap, "What was the backlog in 2019?") == "fail"
