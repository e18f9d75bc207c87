"""Facts, units and the snapshot fingerprint (assay.facts), with hypothesis invariance properties."""

from __future__ import annotations

import hashlib
import json
import random
import struct

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from assay.cases import parse_case_line
from assay.facts import Fact, Snapshot, UnitSpec, canonical_number, parse_unit

# --- units ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unit", "spec"),
    [
        (None, UnitSpec("none")),
        ("", UnitSpec("none")),
        ("USD", UnitSpec("currency", "USD")),
        ("KRW", UnitSpec("currency", "KRW")),
        ("USD millions", UnitSpec("currency", "USD", 1e6)),
        ("EUR thousand", UnitSpec("currency", "EUR", 1e3)),
        ("USD/share", UnitSpec("per_share", "USD")),
        ("%", UnitSpec("percent")),
        ("pp", UnitSpec("pp")),
        ("ratio", UnitSpec("ratio")),
        ("x", UnitSpec("multiple")),
        ("count", UnitSpec("count")),
        ("millions", UnitSpec("amount", None, 1e6)),
        ("Thousands", UnitSpec("amount", None, 1e3)),
    ],
)
def test_unit_vocabulary(unit, spec):
    assert parse_unit(unit) == spec


@pytest.mark.parametrize("unit", ["dollars", "usd", "USD bazillions", "%%", "USD/shares", "US Dollars"])
def test_unknown_unit_is_rejected_by_name(unit):
    with pytest.raises(ValueError, match="unknown unit"):
        parse_unit(unit)
    with pytest.raises(ValidationError, match="unknown unit"):
        Fact(id="F1", label="x", value=1, unit=unit)


# --- facts ------------------------------------------------------------------------------------


def test_base_value_applies_the_unit_scale():
    assert Fact(id="F1", label="Capex", value=1577, unit="USD millions").base_value == 1.577e9
    assert Fact(id="F2", label="Margin", value=20, unit="%").base_value == 20


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), "12", None, True, [1]])
def test_fact_value_must_be_a_finite_number(value):
    with pytest.raises(ValidationError):
        Fact(id="F1", label="x", value=value)


def test_fact_id_nonempty_extra_fields_forbidden_and_frozen():
    with pytest.raises(ValidationError):
        Fact(id="  ", label="x", value=1)
    with pytest.raises(ValidationError):
        Fact(id="F1", label="x", value=1, currency="USD")
    f = Fact(id="F1", label="x", value=1)
    with pytest.raises(ValidationError):
        f.value = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "1"),
        (1.0, "1"),
        (1.00, "1"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e20, "100000000000000000000"),
        (1e-7, "0.0000001"),
        (-1577.5, "-1577.5"),
        (383285, "383285"),
    ],
)
def test_canonical_number(value, text):
    assert canonical_number(value) == text


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_canonical_number_rejects_non_finite(value):
    with pytest.raises(ValueError):
        canonical_number(value)


# --- fingerprint ----------------------------------------------------------------------------

APPLE = (
    Fact(id="F1", label="Total net sales", value=383285, unit="USD millions", period="FY2023"),
    Fact(id="F2", label="Total net sales", value=394328, unit="USD millions", period="FY2022"),
    Fact(id="F9", label="Diluted EPS", value=6.13, unit="USD/share", period="FY2023"),
)


def test_fingerprint_is_the_documented_sha256():
    """The digest is SHA-256 of the canonical JSON the docstring describes (stable across platforms)."""
    snap = Snapshot(facts=APPLE, sources=("page one", "page two"))
    rows = sorted((f.id, f.label, f.unit or "", f.value, f.period or "") for f in APPLE)
    payload = {
        "facts": [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[4] for r in rows]],
        "sources": ["page one", "page two"],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    data = text.encode("utf-8") + b"".join(struct.pack("<d", r[3]) for r in rows)
    assert snap.fingerprint() == hashlib.sha256(data).hexdigest()


def test_fingerprint_zero_sign_and_empty():
    """``-0.0`` is the value ``0``; no facts and one empty passage differ."""
    assert (
        Snapshot(facts=(Fact(id="A", label="x", value=-0.0),)).fingerprint()
        == Snapshot(facts=(Fact(id="A", label="x", value=0),)).fingerprint()
    )
    assert Snapshot(facts=()).fingerprint() != Snapshot(sources=("",)).fingerprint()


def test_regression_snapshot_rejects_repeated_fact_ids():
    """Two facts F1 (100 and 200) in either order had one fingerprint, while the gate used the
    last one: the memo cache served an answer that failed today's gate. A repeat is an error."""
    a, b = (
        Fact(id="F1", label="Revenue", value=200, unit="USD millions"),
        Fact(id="F1", label="Revenue", value=100, unit="USD millions"),
    )
    with pytest.raises(ValidationError, match="duplicate fact id 'F1'"):
        Snapshot(facts=(b, a))


def test_fingerprint_order_independent_and_float_formatting():
    a = Snapshot(facts=APPLE).fingerprint()
    assert Snapshot(facts=tuple(reversed(APPLE))).fingerprint() == a
    one = [Fact(id="A", label="x", value=v) for v in (1, 1.0, 1.00)]
    assert len({Snapshot(facts=(f,)).fingerprint() for f in one}) == 1


def test_fingerprint_same_for_json_1_and_1_00():
    """A case file that writes ``1.00`` and one that writes ``1`` describe the same data."""
    digests = set()
    for raw in ("1", "1.0", "1.00", "1e0"):
        line = '{"id": "q", "answer": "a", "facts": [{"id": "F1", "label": "x", "value": ' + raw + "}]}"
        case, problems = parse_case_line(line, file="f", line=1)
        assert not problems
        digests.add(case.snapshot().fingerprint())
    assert len(digests) == 1


def test_fingerprint_sources_and_as_of():
    base = Snapshot(facts=APPLE)
    assert Snapshot(facts=APPLE, sources=()).fingerprint() == base.fingerprint()
    assert Snapshot(facts=APPLE, as_of="2024-01-01").fingerprint() == base.fingerprint()  # informational only
    assert Snapshot(facts=APPLE, sources=("p",)).fingerprint() != base.fingerprint()
    # a passage list is a document: its order is part of the data
    assert Snapshot(sources=("a", "b")).fingerprint() != Snapshot(sources=("b", "a")).fingerprint()


def test_fingerprint_korean_labels():
    k1 = Snapshot(facts=(Fact(id="F1", label="매출액", value=1234e8, unit="KRW", period="2023"),))
    k2 = Snapshot(facts=(Fact(id="F1", label="영업이익", value=1234e8, unit="KRW", period="2023"),))
    assert k1.fingerprint() != k2.fingerprint()
    assert len(k1.fingerprint()) == 64 and k1.fingerprint() == Snapshot(facts=k1.facts).fingerprint()


# --- properties -----------------------------------------------------------------------------

_UNITS = [None, "USD", "KRW", "USD millions", "USD/share", "%", "pp", "ratio", "x", "count", "thousands"]
_TEXT = st.text(alphabet=st.sampled_from(list("abcXYZ 0123|&-매출액영업이익순이익😀")), min_size=1, max_size=12)
_VALUES = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15)


@st.composite
def snapshots(draw):
    n = draw(st.integers(1, 8))
    ids = draw(st.lists(_TEXT.filter(lambda s: s.strip() != ""), min_size=n, max_size=n, unique=True))
    facts = tuple(
        Fact(
            id=i,
            label=draw(_TEXT),
            value=draw(_VALUES),
            unit=draw(st.sampled_from(_UNITS)),
            period=draw(st.none() | _TEXT),
        )
        for i in ids
    )
    sources = tuple(draw(st.lists(_TEXT, max_size=3)))
    return Snapshot(facts=facts, sources=sources)


@settings(max_examples=100, deadline=None)
@given(snapshots(), st.randoms(use_true_random=False))
def test_property_fingerprint_order_independent(snap, rnd: random.Random):
    facts = list(snap.facts)
    rnd.shuffle(facts)
    assert Snapshot(facts=tuple(facts), sources=snap.sources).fingerprint() == snap.fingerprint()


@settings(max_examples=100, deadline=None)
@given(snapshots(), st.integers(0, 7))
def test_property_fingerprint_int_and_float_forms_agree(snap, k):
    f = snap.facts[k % len(snap.facts)]
    whole = float(round(f.value))
    a = [g if g.id != f.id else Fact(**{**g.model_dump(), "value": whole}) for g in snap.facts]
    b = [g if g.id != f.id else Fact(**{**g.model_dump(), "value": int(whole)}) for g in snap.facts]
    assert Snapshot(facts=tuple(a)).fingerprint() == Snapshot(facts=tuple(b)).fingerprint()


@settings(max_examples=120, deadline=None)
@given(snapshots(), st.integers(0, 7), st.sampled_from(["id", "label", "unit", "value", "period", "source"]), st.data())
def test_property_any_single_change_changes_fingerprint(snap, k, field, data):
    f = snap.facts[k % len(snap.facts)]
    before = snap.fingerprint()
    if field == "source":
        new_sources = list(snap.sources) or [""]
        i = data.draw(st.integers(0, len(new_sources) - 1))
        new_sources[i] = new_sources[i] + data.draw(_TEXT)
        changed = Snapshot(facts=snap.facts, sources=tuple(new_sources))
    else:
        old = getattr(f, field)
        if field == "id":
            taken = {g.id for g in snap.facts}
            new = data.draw(_TEXT.filter(lambda s: s.strip() != "" and s not in taken))
        elif field == "label":
            new = data.draw(_TEXT.filter(lambda s: s != old))
        elif field == "unit":
            new = data.draw(st.sampled_from([u for u in _UNITS if (u or "") != (old or "")]))
        elif field == "value":
            new = data.draw(_VALUES.filter(lambda v: v != old))
        else:
            new = data.draw((st.none() | _TEXT).filter(lambda p: (p or "") != (old or "")))
        facts = tuple(g.model_copy(update={field: new}) if g.id == f.id else g for g in snap.facts)
        changed = Snapshot(facts=facts, sources=snap.sources)
    assert changed.fingerprint() != before


def test_fingerprint_follows_data_changed_in_place_after_it_was_taken():
    """The fingerprint is the memo cache's key, so it is never memoised on the object: a
    helper's attack on a memoised one (issue 15, tenth pass; reverted) changed a snapshot's data
    after its first fingerprint and got a stored memo served on the changed data. ``model_copy(update=…)``
    and ``model_construct`` do not validate, so a list stays a list and can change in place."""
    facts = [Fact(id=f"f{i}", label=f"L{i}", value=float(i), unit="USD") for i in range(3)]
    sources = ["p"]
    copied = Snapshot(facts=tuple(facts)).model_copy(update={"sources": sources})
    built = Snapshot.model_construct(facts=facts, sources=("p",))
    before = copied.fingerprint(), built.fingerprint()
    sources.append("restated passage")
    facts[0] = facts[0].model_copy(update={"value": 42.0})
    assert copied.fingerprint() != before[0]
    assert copied.fingerprint() == Snapshot(facts=copied.facts, sources=tuple(sources)).fingerprint()
    assert built.fingerprint() != before[1]
    assert built.fingerprint() == Snapshot(facts=tuple(facts), sources=("p",)).fingerprint()


# --- issue 16: a huge value is a field error, not a traceback or Python's int-digits advice ----------


@pytest.mark.parametrize("digits, said", [(400, "got a 400-digit integer"), (5000, "got a number that overflows it")])
def test_a_huge_fact_value_is_one_field_error(tmp_path, digits, said):
    from typer.testing import CliRunner

    from assay.cases import CaseFileError, load_cases
    from assay.cli import app

    line = (
        '{"id": "q1", "variant": "a", "question": "q", "answer": "It was 5 [F1].", '
        f'"facts": [{{"id": "F1", "label": "x", "value": {"9" * digits}, "unit": "USD"}}]}}'
    )
    f = tmp_path / "cases.jsonl"
    f.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as e:
        load_cases(f)
    assert str(e.value.problems[0]) == (
        f"{f}:1: facts.0.value: must be finite and below 1.8e308 in magnitude (a 64-bit float), {said}"
    )
    res = CliRunner().invoke(app, ["gate", str(f)])
    assert res.exit_code == 2 and "set_int_max_str_digits" not in res.output and "Traceback" not in res.output
    assert "facts.0.value: must be finite and below" in res.output


# --- issue 15: displayed_value --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number", "negative"),
    [
        ("6.13", 6.13, False),
        ("$ 1,452.4", 1452.4, False),
        ("(1,577.3)", 1577.3, True),
        ("$(89.7)", 89.7, True),
        ("(3.0)%", 3.0, True),
        ("-9.9", 9.9, True),
        ("US$5", 5.0, False),
        ("12.5%", 12.5, False),
        ("(9,819 )", 9819.0, True),
    ],
)
def test_displayed_number_forms(text, number, negative):
    from assay.facts import displayed_number

    assert displayed_number(text) == (number, negative)


@pytest.mark.parametrize("text", ["n/a", "", "3 to 4", "(370", "370)", "$6.13 million", "1,2,3"])
def test_displayed_value_not_a_figure_is_a_field_error(text):
    with pytest.raises(ValidationError, match="displayed_value"):
        Fact(id="F1", label="x", value=370, displayed_value=text)


def test_displayed_value_must_show_the_value():
    """The display is the value up to a power of a thousand (or a percent of a ratio), with its sign."""
    assert Fact(id="F1", label="x", value=1452.4, unit="USD millions", displayed_value="$ 1,452.4").displayed == 1452.4
    assert Fact(id="F1", label="x", value=1.4524e9, unit="USD", displayed_value="1,452.4").displayed == 1452.4
    assert Fact(id="F1", label="x", value=0.125, unit="ratio", displayed_value="12.5%").displayed == 12.5
    assert Fact(id="F1", label="x", value=-370, displayed_value="(370)").displayed == -370
    assert Fact(id="F1", label="x", value=-370, displayed_value="370").displayed == -370  # no sign shown: value's
    assert Fact(id="F1", label="x", value=370).displayed is None
    with pytest.raises(ValidationError, match="is not the value"):
        Fact(id="F1", label="x", value=6.13, unit="USD millions", displayed_value="6.31")
    with pytest.raises(ValidationError, match="shows a negative figure"):
        Fact(id="F1", label="x", value=370, displayed_value="(370)")


def test_fingerprint_covers_displayed_value():
    plain = Fact(id="F1", label="Revenue", value=6.13, unit="USD millions")
    shown = plain.model_copy(update={"displayed_value": "6.13"})
    dollar = plain.model_copy(update={"displayed_value": "$6.13"})
    digests = {Snapshot(facts=(f,)).fingerprint() for f in (plain, shown, dollar)}
    assert len(digests) == 3
    # a snapshot without displayed values keeps the digest documented before the field existed
    assert Snapshot(facts=(plain,)).fingerprint() == Snapshot(facts=(Fact(**plain.model_dump()),)).fingerprint()
    other = Fact(id="F2", label="Revenue", value=6.0, unit="USD millions")
    assert (
        Snapshot(facts=(shown, other)).fingerprint() == Snapshot(facts=(other, shown)).fingerprint()
    )  # order-free with the column too


def test_fingerprint_with_displayed_is_the_documented_sha256():
    f = Fact(id="F1", label="Revenue", value=6.13, unit="USD millions", period="FY1", displayed_value="6.13")
    text = json.dumps(
        {"displayed": ["6.13"], "facts": [["F1"], ["Revenue"], ["USD millions"], ["FY1"]]},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    data = text.encode("utf-8") + struct.pack("<1d", 6.13)
    assert Snapshot(facts=(f,)).fingerprint() == hashlib.sha256(data).hexdigest()


@settings(max_examples=60, deadline=None)
@given(snapshots(), st.integers(0, 7), st.sampled_from(["", "$", "("]))
def test_property_displayed_value_change_changes_fingerprint(snap, k, prefix):
    """Adding, or changing the form of, one fact's displayed value changes the digest."""
    f = snap.facts[k % len(snap.facts)]
    assume(f.value == 0 or abs(f.value) >= 1e-6)  # a display shows digits, not 1e-9
    shown = canonical_number(abs(f.value))
    text = f"{prefix}{shown}" + (")" if prefix == "(" else "")
    if prefix == "(" and f.value > 0:
        text = shown
    with_display = tuple(Fact(**{**g.model_dump(), "displayed_value": text}) if g.id == f.id else g for g in snap.facts)
    assert Snapshot(facts=with_display, sources=snap.sources).fingerprint() != snap.fingerprint()
