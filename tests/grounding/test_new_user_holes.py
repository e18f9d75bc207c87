"""False accepts a new user found (issue 15, direction_word and sign_word holes), each beside its
true counterpart: two levels said to move the wrong way (:mod:`assay.grounding.level_moves`), a
change amount equal to one period's level without named years (``level_veto``), decline verbs
the reader did not know, a fact named by a change ("Net sales % change") whose sign is its way,
and a Korean passage's 감소."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.claims import extract_claims
from assay.facts import Fact, Snapshot
from assay.grounding import check_answer
from assay.grounding.level_moves import contradicted_levels

OI = Snapshot(
    facts=(
        Fact(id="F1", label="Operating income", value=93, unit="USD millions", period="2019"),
        Fact(id="F2", label="Operating income", value=118, unit="USD millions", period="2018"),
    )
)
REV = Snapshot(
    facts=(
        Fact(id="F1", label="Revenue", value=200, unit="USD millions", period="2023"),
        Fact(id="F2", label="Revenue", value=100, unit="USD millions", period="2022"),
    )
)


def status(answer: str, snap: Snapshot = OI, mode: str = "auto") -> str:
    return check_answer(answer, snap, mode=mode).status  # type: ignore[arg-type]


def test_two_levels_said_to_move_the_wrong_way_fail():
    for wrong, right in [
        (
            "rose from $118 million in 2018 to $93 million in 2019",
            "fell from $118 million in 2018 to $93 million in 2019",
        ),
        ("increased to $93 million from $118 million", "decreased to $93 million from $118 million"),
        ("was $93 million, up from $118 million", "was $93 million, down from $118 million"),
    ]:
        assert status(f"Operating income {wrong} [F1, F2].") == "fail", wrong
        assert status(f"Operating income {right} [F1, F2].") == "pass", right


def test_levels_in_a_passage_said_to_move_the_wrong_way_fail():
    page = Snapshot(sources=("Operating income for 2019 was $93 million compared with $118 million in 2018.",))
    assert status("Operating income rose from $118 million in 2018 to $93 million in 2019.", page, "uncited") == "fail"
    assert status("Operating income fell from $118 million in 2018 to $93 million in 2019.", page, "uncited") == "pass"


def test_levels_compared_without_a_verb_are_not_read():
    assert status("Operating income was $93 million in 2019 [F1], compared with $118 million in 2018 [F2].") == "pass"


@settings(max_examples=60, deadline=None)
@given(
    a=st.integers(min_value=1, max_value=9_999),
    b=st.integers(min_value=1, max_value=9_999),
    up=st.booleans(),
    form=st.sampled_from(["{v} from ${a} million to ${b} million", "{v} to ${b} million from ${a} million"]),
)
def test_property_a_stated_move_is_flagged_exactly_when_the_levels_go_the_other_way(a, b, up, form):
    verb = "rose" if up else "fell"
    text = "Sales " + form.format(v=verb, a=a, b=b) + "."
    (claim,) = extract_claims(text)
    flagged = contradicted_levels(claim.text, claim.span[0], claim.numbers)
    assert bool(flagged) == (a != b and (b > a) != up)


def test_a_change_amount_is_no_level_of_an_item_with_other_periods():
    assert status("Revenue rose by $200 million [F1, F2].", REV) == "fail"  # 2023's level; the change was 100
    assert status("Revenue rose by $100 million [F1, F2].", REV) == "pass"
    assert status("Revenue fell by $100 million [F1, F2].", REV) == "fail"
    assert status("Revenue was $200 million in 2023 [F1].", REV) == "pass"
    alone = Snapshot(facts=(Fact(id="F1", label="Revenue", value=200, unit="USD millions", period="2023"),))
    assert status("Revenue rose by $200 million [F1].", alone) == "pass"  # no other period: not known a level


def test_decline_verbs_state_a_fall():
    snap = Snapshot(
        facts=(
            Fact(id="F11", label="Research and development", value=29915, unit="USD millions", period="FY2023"),
            Fact(id="F12", label="Research and development", value=26251, unit="USD millions", period="FY2022"),
        )
    )
    for verb in ("plunged", "slumped", "tumbled", "slid", "sank", "dipped", "eroded", "weakened", "retreated"):
        assert status(f"R&D spending {verb} 14.0% [F11, F12].", snap) == "fail", verb
    for verb in ("surged", "soared", "rose", "climbed"):
        assert status(f"R&D spending {verb} 14.0% [F11, F12].", snap) == "pass", verb


def test_a_fact_named_by_a_change_carries_its_way():
    up = Snapshot(facts=(Fact(id="F1", label="Net sales % change", value=3, unit="%", period="FY2023"),))
    assert status("Net sales fell 3% [F1].", up) == "fail"
    assert status("Net sales grew 3% [F1].", up) == "pass"
    down = Snapshot(facts=(Fact(id="F2", label="Operating income % change", value=-23, unit="%", period="FY2023"),))
    assert status("Operating income fell 23% [F2].", down) == "pass"  # a fall of a profit item, not a loss
    assert status("Operating income rose 23% [F2].", down) == "fail"


def test_a_korean_passage_tells_its_direction():
    page = Snapshot(sources=("2023년 매출액은 3조 5천억원으로 전년 대비 12% 감소했다.",))
    assert status("매출액은 12% 감소했다.", page, "uncited") == "pass"
    assert status("매출액은 12% 증가했다.", page, "uncited") == "fail"


def test_currency_words_name_their_currency():
    krw = Snapshot(facts=(Fact(id="F1", label="매출액", value=3.5e12, unit="KRW", period="2023"),))
    assert status("매출액은 3조 5천억원이다 [F1].", krw) == "pass"
    for other in ("엔", "위안", "유로", "달러"):
        assert status(f"매출액은 3조 5천억 {other}이다 [F1].", krw) == "fail", other
    usd = Snapshot(facts=(Fact(id="F1", label="Revenue", value=383285, unit="USD millions", period="FY2023"),))
    assert status("Revenue was $383.3 billion [F1].", usd) == "pass"
    for word in ("yen", "yuan", "renminbi"):
        assert status(f"Revenue was 383.3 billion {word} [F1].", usd) == "fail", word


def test_a_dated_table_orders_its_row_for_a_stated_change():
    page = Snapshot(sources=("(in millions)\n2019 2018\nNet sales 1,200 1,100",))
    assert status("Net sales grew 9.1% in 2019.", page, "uncited") == "pass"  # (1,200 − 1,100) / 1,100
    assert status("Net sales fell 9.1% in 2019.", page, "uncited") == "fail"
    undated = Snapshot(sources=("(in millions)\nNet sales 1,200 1,100",))
    assert status("Net sales grew 9.1%.", undated, "uncited") == "fail"  # nothing orders the row (gate-8)


APPLE = Snapshot(
    facts=(
        Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
        Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
        Fact(id="F7", label="Net income", value=96995, unit="USD millions", period="FY2023"),
        Fact(id="F8", label="Net income", value=99803, unit="USD millions", period="FY2022"),
    )
)


def test_an_opening_period_scopes_the_sentence():
    lead = "In fiscal 2023, revenue was $383.3 billion [F1] and net income was {} [F7, F8]."
    assert status(lead.format("$99.8 billion"), APPLE) == "fail"  # FY2022's net income
    assert status(lead.format("$97.0 billion"), APPLE) == "pass"
    assert status("For FY2022, net income was $99.8 billion [F7, F8].", APPLE) == "pass"
    assert status("For FY2022, net income was $97.0 billion [F7, F8].", APPLE) == "fail"


def test_an_opening_period_with_no_comma_scopes_the_sentence_too():
    lead = "In fiscal 2023 total net sales were $383.3 billion [F1] and net income was {} [F7, F8]."
    assert status(lead.format("$99.8 billion"), APPLE) == "fail"  # FY2022's net income (gate-13)
    assert status(lead.format("$97.0 billion"), APPLE) == "pass"
    assert status("In fiscal 2023 revenue was $383.3 billion, down from $394.3 billion [F1, F2].", APPLE) == "pass"
    both = "In 2023 and 2022 net income was $97.0 billion and $99.8 billion [F7, F8]."  # two years: no lead
    assert status(both, APPLE) == "pass"


def test_an_opening_period_leaves_bases_and_respectively_alone():
    assert status("In fiscal 2023, revenue was $383.3 billion [F1], down from $394.3 billion [F2].", APPLE) == "pass"
    assert status("In fiscal 2023, revenue fell 2.8% from $394.3 billion [F1, F2].", APPLE) == "pass"
    both = "In fiscal 2023 and 2022, net income was $97.0 billion and $99.8 billion [F7, F8], respectively."
    assert status(both, APPLE) == "pass"


def test_a_per_share_line_takes_no_page_scale():
    lines = ["(in millions, except per share amounts)", "2023 2022", "Net sales 1,030 1,000"]
    page = Snapshot(sources=("\n".join([*lines, "Diluted earnings per share 6.13 6.11"]),))
    assert status("Diluted EPS was $6.13 in 2023.", page, "uncited") == "pass"
    assert status("Diluted EPS was $6.13 million in 2023.", page, "uncited") == "fail"
    assert status("Net income was $6.13 million.", page, "uncited") == "fail"
    assert status("Net sales were $1,030 million in 2023.", page, "uncited") == "pass"  # the page's scale
    listed = Snapshot(sources=("\n".join([*lines, "Net sales, EBIT and EPS 2,018 6.13"]),))
    assert status("Net sales were $2,018 million.", listed, "uncited") == "pass"  # a list of items keeps it
