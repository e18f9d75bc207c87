"""A stated change amount (assay.grounding.change_amount): never a ratio of two figures, never one
year's level when the sentence states the change between two years. The false accepts are the
TAT-QA change sentences moved by one unit; each with its true counterpart, and a property."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.facts import Fact, Snapshot
from assay.grounding import check_answer


def status(answer: str, snap: Snapshot, mode: str = "cited") -> str:
    return check_answer(answer, snap, mode=mode).status  # type: ignore[arg-type]


def _two_years(item: str, later: float, earlier: float, unit: str | None = None) -> Snapshot:
    return Snapshot(
        facts=(
            Fact(id="A", label=f"{item} | 2019", value=later, unit=unit, period="2019"),
            Fact(id="B", label=f"{item} | 2018", value=earlier, unit=unit, period="2018"),
        )
    )


def test_a_change_amount_is_not_a_ratio_of_the_two_levels():
    snap = _two_years("Additions", 3.1, 2.4)
    assert status("Additions increased by 0.7 from 2018 to 2019 [A, B].", snap) == "pass"
    assert status("Additions increased by 0.8 from 2018 to 2019 [A, B].", snap) == "fail"  # 2.4 / 3.1 = 0.77
    shares = _two_years("Weighted average number of shares outstanding", 74.0, 73.1)
    item = "Weighted average number of shares outstanding"
    assert status(f"{item} increased by 0.9 from 2018 to 2019 [A, B].", shares) == "pass"
    assert status(f"{item} increased by 1.0 from 2018 to 2019 [A, B].", shares) == "fail"  # 74.0 / 73.1 = 1.01


def test_a_change_amount_is_not_a_relative_change():
    snap = _two_years("Ireland", 0.4, 0.5)
    assert status("Ireland decreased by 0.1 from 2018 to 2019 [A, B].", snap) == "pass"
    assert status("Ireland decreased by 0.2 from 2018 to 2019 [A, B].", snap) == "fail"  # (0.4 − 0.5) / 0.5
    assert status("Ireland decreased by 20% from 2018 to 2019 [A, B].", snap) == "pass"  # the percent change stays


def test_a_change_between_two_years_is_not_one_years_level():
    snap = _two_years("Tamil films", 3, 1)
    assert status("Tamil films increased by 2 from 2018 to 2019 [A, B].", snap) == "pass"
    assert status("Tamil films increased by 3 from 2018 to 2019 [A, B].", snap) == "fail"  # the 2019 level
    assert status("Tamil films were 3 in 2019 [A].", snap) == "pass"  # the level stated as a level


def test_a_figure_that_is_itself_a_change_backs_the_change_between_two_years():
    snap = Snapshot(
        facts=(
            Fact(id="C", label="Net increase in cash | 2019", value=12.5, unit="USD millions", period="2019"),
            Fact(id="D", label="Other income | Change", value=1.5, unit="USD millions", period="2019"),
        )
    )
    assert status("Cash increased by $12.5 million from 2018 to 2019 [C].", snap) == "pass"
    assert status("Other income increased by $1.5 million from 2018 to 2019 [D].", snap) == "pass"


@settings(max_examples=40, deadline=None)
@given(
    earlier=st.integers(min_value=20, max_value=900),
    later=st.integers(min_value=20, max_value=900),
)
def test_property_a_stated_change_passes_as_the_difference_and_never_as_a_level_or_ratio(earlier: int, later: int):
    if later == earlier:
        return
    snap = _two_years("Segment revenue", float(later), float(earlier), "USD millions")
    verb = "increased" if later > earlier else "decreased"
    diff = abs(later - earlier)
    assert status(f"Segment revenue {verb} by ${diff} million from 2018 to 2019 [A, B].", snap) == "pass"
    if diff not in (later, earlier, abs(later + earlier)):
        assert status(f"Segment revenue {verb} by ${later} million from 2018 to 2019 [A, B].", snap) == "fail"


def test_a_level_is_the_change_when_the_other_year_is_zero():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Green tariff | FY19", value=-27603, unit=None, period="FY2019"),
            Fact(id="B", label="Green tariff | FY18", value=0, unit=None, period="FY2018"),
        )
    )
    assert status("The Green tariff decreased by 27,603 [A, B] from FY18 to FY19.", snap) == "pass"
    assert status("The Green tariff decreased by 27,604 [A, B] from FY18 to FY19.", snap) == "fail"


def test_a_zero_of_an_uncited_row_of_the_same_name_is_no_base():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Tamil films | 2019", value=3, period="2019"),
            Fact(id="B", label="Tamil films | 2018", value=1, period="2018"),
            Fact(id="Z", label="Tamil films | 2018", value=0, period="2018"),  # another table's row
        )
    )
    assert status("Tamil films increased by 2 from 2018 to 2019 [A, B].", snap) == "pass"
    assert status("Tamil films increased by 3 from 2018 to 2019 [A, B].", snap) == "fail"


def test_a_change_amount_is_not_a_sum_of_the_two_levels():
    """The table change set's cited false accept: 7,730 + 7,715 million = 15.4 billion backed "increased
    by 15 billion" (issue 15, a scale_word perturbation of the true "by 15 million")."""
    snap = _two_years("Total segment assets", 7730.0, 7715.0, "millions")
    assert status("Total segment assets increased by 15 million from 2018 to 2019 [A, B].", snap) == "pass"
    assert status("Total segment assets increased by 15 billion from 2018 to 2019 [A, B].", snap) == "fail"
    assert status("Total segment assets were 15.4 billion combined over the two years [A, B].", snap) == "pass"


def test_a_sum_of_two_changes_may_be_a_total_change():
    snap = Snapshot(
        facts=(
            Fact(id="A", label="Change in product revenue", value=30.0, unit="USD millions", period="2019"),
            Fact(id="B", label="Change in service revenue", value=12.0, unit="USD millions", period="2019"),
        )
    )
    assert status("Revenue increased by $42 million in 2019 [A, B].", snap) == "pass"


def test_a_percent_change_between_two_years_is_not_one_years_level():
    """The table %-change set's cited false accept: "fell 8.7%" backed by 2018's level 8.7, though the
    rate rose from 8.70 to 9.46 (+8.7%)."""
    snap = _two_years("Swedish Krona", 9.46, 8.7)
    assert status("Swedish Krona rose 8.7% from 2018 to 2019 [A, B].", snap) == "pass"
    assert status("Swedish Krona fell 8.7% from 2018 to 2019 [A, B].", snap) == "fail"
    rates = _two_years("Effective tax rate", 21.0, 25.0, "%")
    assert status("The effective tax rate was 21% in 2019 [A].", rates) == "pass"  # a level stated as a level
    assert status("The effective tax rate fell 4 pp from 2018 to 2019 [A, B].", rates) == "pass"
    assert status("The effective tax rate fell 21% from 2018 to 2019 [A, B].", rates) == "fail"  # 2019's level


def test_a_change_named_by_a_noun_is_no_one_years_level():
    """gate-20 (``cell_level_veto`` with a change noun): "The change in … between December 31, 2018 and 2019
    was 182" passed on the 2019 column's level 182; a change of 0 (two equal levels) and the true change pass."""
    page = (
        " | 2019 | 2018\nWeighted average shares issued during the year, net | 182 | 92\n"
        "Weighted average common shares, basic | 1,000 | 818\nOther | 0.3 | 0.3"
    )
    snap = Snapshot(sources=(page,))
    said = (
        "The change in Weighted average shares issued during the year, net between December 31, 2018 and 2019 was 182."
    )
    got = check_answer(said, snap, mode="uncited")
    assert got.status == "fail" and "period_mismatch" in [v.kind for v in got.violations], got
    true = "The change in Weighted average common shares, basic between December 31, 2018 and 2019 was 182."
    assert check_answer(true, snap, mode="uncited").status == "pass"
    assert (
        check_answer("The percentage change in Other from 2018 to 2019 was 0%.", snap, mode="uncited").status == "pass"
    )
