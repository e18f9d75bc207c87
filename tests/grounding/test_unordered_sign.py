"""A profit or loss stated on a change of figures of both signs needs their order in time (gate-8).

Failing input (FinanceBench, perturbation ``sign_word``): "… the Consumer & Community Banking
(CCB) segment, with a net loss of $3.1 billion" passed on the passage row "Pre-provision
profit/(loss) 1,387 … (1,684)" as 1,387 − (−1,684) = 3,071: a passage row carries no period, so
which figure is the item now (a profit or a loss) is unknown, and the stated sign is not proven.
With periods the later figure decides (gate-7); without a profit/loss word the change stands.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.candidates import Candidate
from assay.grounding.operands import unordered_sign

ROW = Snapshot(sources=("(Millions)\nPre-provision profit/(loss) 1,387 (1,684)\nNet sales 1,577 1,400\n",))
ORDERED = Snapshot(
    facts=(
        Fact(id="F1", label="Pre-provision profit/(loss)", value=1387, unit="USD millions", period="FY2022"),
        Fact(id="F2", label="Pre-provision profit/(loss)", value=-1684, unit="USD millions", period="FY2021"),
    )
)


def test_a_loss_on_an_unordered_mixed_sign_row_fails() -> None:
    for word in ("a net loss", "a profit"):
        r = check_answer(f"The segment posted {word} of $3,071 million.", ROW, mode="uncited")
        assert r.status == "fail"
        assert "order in time" in r.violations[0].reason


def test_true_counterparts_pass() -> None:
    # no profit/loss word: the difference of the row is backed
    assert check_answer("The difference in pre-provision profit/(loss) was $3,071 million.", ROW).status == "pass"
    # each figure itself, with its own sign word
    assert check_answer("Pre-provision profit was $1,387 million.", ROW).status == "pass"
    assert check_answer("Pre-provision loss was $1,684 million.", ROW).status == "pass"
    # ordered by periods: the later figure (FY2022, a profit) decides
    assert check_answer("The result swung by $3,071 million to a profit [F1, F2].", ORDERED).status == "pass"
    assert check_answer("The segment posted a net loss of $3,071 million [F1, F2].", ORDERED).status == "fail"


@settings(max_examples=80, deadline=None)
@given(a=st.integers(1, 10**6), b=st.integers(1, 10**6), stated=st.sampled_from([1, -1, None]))
def test_property_unordered_sign_only_on_mixed_unordered_changes(a: int, b: int, stated: int | None) -> None:
    """Perturbation class ``sign_word`` on an unordered row: a stated sign on a change of a
    profit and a loss is never proven; on figures of one sign, or with no stated sign, the
    predicate leaves the match to the other rules."""
    pa = Candidate(float(a), "amount", "S1:L2", "x", origin="passage")
    nb = Candidate(float(-b), "amount", "S1:L2", "x", origin="passage")
    pb = Candidate(float(b), "amount", "S1:L2", "x", origin="passage")
    mixed = Candidate(float(a + b), "amount", "S1:L2-S1:L2", op="a-b", operands=(pa, nb), origin="derived")
    same = Candidate(float(a - b), "amount", "S1:L2-S1:L2", op="a-b", operands=(pa, pb), origin="derived")
    assert unordered_sign(mixed, stated) is (stated is not None)
    assert not unordered_sign(same, stated)
