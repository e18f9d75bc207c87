"""Judge validity on labelled data: metrics, dataset readers, the CLI, and the real HaluEval/FaithBench."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assay.cases import Case, CaseFileError
from assay.judges.faithfulness import JudgeVerdict
from assay.judges.faithfulness_prompt import ClaimCheck
from assay.judges.validate import binary_metrics, sample_groups, span_recall, validate_judge
from assay.judges.validation_sets import LabelledCase, load_faithbench, load_halueval


def test_binary_metrics_accuracy_balanced_accuracy_and_unscored():
    pred = [True, True, False, False, False, None, True]
    gold = [True, True, True, False, False, True, False]
    m = binary_metrics(pred, gold, list(range(7)), n_resamples=500)
    assert (m["tp"], m["fn"], m["tn"], m["fp"]) == (2, 1, 2, 1)
    assert m["n"] == 7 and m["n_scored"] == 6 and m["coverage"] == pytest.approx(6 / 7, abs=1e-6)
    assert m["accuracy"]["value"] == pytest.approx(4 / 6)
    assert m["balanced_accuracy"]["value"] == pytest.approx((2 / 3 + 2 / 3) / 2)
    lo, hi = m["balanced_accuracy"]["ci"]
    assert 0 <= lo <= m["balanced_accuracy"]["value"] <= hi <= 1


def test_balanced_accuracy_on_imbalanced_classes_and_degenerate_cases():
    gold = [True] * 9 + [False] * 3
    always = binary_metrics([True] * 12, gold, list(range(12)), n_resamples=200)
    assert always["accuracy"]["value"] == pytest.approx(0.75) and always["balanced_accuracy"]["value"] == pytest.approx(
        0.5
    )
    pred = [True] * 6 + [False] * 3 + [False, False, True]
    m = binary_metrics(pred, gold, list(range(12)), n_resamples=200)
    assert m["balanced_accuracy"]["value"] == pytest.approx((6 / 9 + 2 / 3) / 2)
    one_class = binary_metrics([True, False], [True, True], [0, 1], n_resamples=200)
    assert one_class["balanced_accuracy"] == {"value": None, "ci": None} and one_class["tnr"] is None
    nothing = binary_metrics([None, None], [True, False], [0, 1], n_resamples=200)
    assert nothing["n_scored"] == 0 and nothing["accuracy"]["value"] is None
    with pytest.raises(ValueError, match="differ in length"):
        binary_metrics([True], [True, False], [0, 1])


def _lc(answer, spans, gid):
    return LabelledCase(
        case=Case(id=gid, answer=answer, sources=("s",)),
        hallucinated={"strict": bool(spans)},
        group=gid,
        origin="f",
        unwanted_spans=tuple(spans),
    )


def _verdict(checks):
    return JudgeVerdict(
        status="scored",
        score=0.5,
        backend="stub",
        claims=tuple(ClaimCheck(id=f"c{i}", claim="x", span=sp, supported=ok) for i, (sp, ok) in enumerate(checks)),
    )


def test_span_recall_counts_spans_overlapped_by_unsupported_claims():
    items = [_lc("A b. C d.", [(0, 2), (5, 7)], "g1"), _lc("E f.", [(0, 1)], "g2"), _lc("G.", [(0, 1)], "g3")]
    verdicts = [
        _verdict([((0, 4), False), ((5, 9), True)]),
        _verdict([((0, 4), True)]),
        JudgeVerdict(status="rejected", backend="stub", reason="x: y"),
    ]
    r = span_recall(items, verdicts, n_resamples=200)
    assert r["n_spans"] == 3 and r["n_samples"] == 2 and r["value"] == pytest.approx(1 / 3)
    touching = span_recall([_lc("ab", [(2, 3)], "g")], [_verdict([((0, 2), False)])], n_resamples=10)
    assert touching["value"] == 0.0  # [0,2) and [2,3) do not overlap


def test_sample_groups_keeps_pairs_together_and_is_seeded():
    items = [_lc("a", [], f"g{i // 2}") for i in range(20)]
    s = sample_groups(items, 4, seed=1)
    assert len(s) == 8 and len({it.group for it in s}) == 4
    assert s == sample_groups(items, 4, seed=1) and sample_groups(items, None, 0) == items


def _write_halueval(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_halueval_reader_makes_a_positive_and_a_negative_per_record(tmp_path):
    rec = {
        "knowledge": "K is in Paris.",
        "question": "Where is K?",
        "right_answer": "Paris",
        "hallucinated_answer": "K is in Rome.",
    }
    f = _write_halueval(tmp_path / "qa_one-turn_data.jsonl", [json.dumps(rec), ""])
    items = load_halueval(f)
    assert [(it.case.variant, it.hallucinated["gold"]) for it in items] == [("right", False), ("hallucinated", True)]
    assert (
        items[0].case.sources == ("K is in Paris.",)
        and items[0].case.question == "Where is K?"
        and items[0].group == items[1].group
    )
    bad = _write_halueval(
        tmp_path / "qa_multi-turn_data.jsonl", [json.dumps(rec), "{oops", json.dumps({**rec, "right_answer": ""})]
    )
    with pytest.raises(CaseFileError) as e:
        load_halueval(tmp_path)
    text = str(e.value)
    assert f"{bad}:2: <json>:" in text and f"{bad}:3: right_answer: required" in text
    with pytest.raises(FileNotFoundError):
        load_halueval(tmp_path / "missing")


def test_halueval_reader_takes_a_bom_and_raw_line_separators_inside_strings(tmp_path):
    """JSON allows U+2028/U+2029 raw inside strings; a JSON Lines file is split at "\\n" only."""
    rec = {
        "knowledge": "K is in Paris.\u2028It moved in 1990.",
        "question": "Where is K?",
        "right_answer": "Paris",
        "hallucinated_answer": "K is in Rome.",
    }
    f = tmp_path / "qa_one-turn_data.jsonl"
    f.write_text("\ufeff" + json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    items = load_halueval(f)
    assert len(items) == 2 and items[0].case.sources == (rec["knowledge"],) and items[0].group == "qa_one-turn_data:1"


def _fb_sample(sid, labels, span=(1, 4), meta=None):
    return {
        "sample_id": sid,
        "source": "Poseidon grossed $181m.",
        "summary": " The film grossed $181m.",
        "annotations": [
            {"annot_id": i, "label": lab, "summary_start": span[0], "summary_end": span[1]}
            for i, lab in enumerate(labels)
        ],
        "metadata": {"summarizer": "m", "hhem-2.1": 0.4, "gpt_4o": 1, "raw_sample_id": 3, **(meta or {})},
    }


def test_faithbench_reader_readings_spans_and_anchors(tmp_path):
    samples = [
        _fb_sample(0, [["Unwanted", "Unwanted.Intrinsic"], ["Benign"]]),
        _fb_sample(1, [["Questionable"]]),
        _fb_sample(2, []),
        _fb_sample(3, [["Benign", "Unwanted.Extrinsic"]], meta={"hhem-2.1": 0.9, "gpt_4o": 0}),
    ]
    (tmp_path / "batch_1.json").write_text(json.dumps({"samples": samples}), encoding="utf-8")
    items = load_faithbench(tmp_path)
    assert [it.hallucinated for it in items] == [
        {"strict": True, "inclusive": True},
        {"strict": False, "inclusive": True},
        {"strict": False, "inclusive": False},
        {"strict": True, "inclusive": True},
    ]
    assert items[0].unwanted_spans == ((1, 4),) and items[1].unwanted_spans == ()
    assert items[0].case.answer == " The film grossed $181m." and items[0].case.slice == "m"
    assert items[0].anchors == {"hhem-2.1": True, "gpt_4o": False} and items[3].anchors == {
        "hhem-2.1": False,
        "gpt_4o": True,
    }
    (tmp_path / "batch_2.json").write_text(
        json.dumps({"samples": [_fb_sample(9, [["Unwanted"]], span=(3, 99))]}), encoding="utf-8"
    )
    with pytest.raises(CaseFileError, match=r"batch_2.json:1: samples\[0\]: annotation 0: span \[3, 99\) outside"):
        load_faithbench(tmp_path)


def test_validate_on_small_files_with_the_stub(tmp_path):
    samples = [_fb_sample(i, [["Unwanted"]] if i % 2 else []) for i in range(12)]
    (tmp_path / "batch_1.json").write_text(json.dumps({"samples": samples}), encoding="utf-8")
    local, agg = validate_judge("faithbench", tmp_path, backend="stub", n_resamples=200)
    assert agg["n"] == 12 and set(agg["readings"]) == {"strict", "inclusive"} and "span_recall" in agg
    assert set(agg["anchors"]["strict"]) == {"hhem-2.1", "gpt_4o"}
    assert "batch_1:0" not in json.dumps(agg) and local["cases"][0]["id"] == "batch_1:0"
    with pytest.raises(ValueError, match="unknown dataset"):
        validate_judge("truthfulqa", tmp_path)


def test_cli_judge_validate_writes_reports_and_fails_in_one_line(tmp_path):
    from assay.cli import app

    rec = {
        "knowledge": "K is in Paris.",
        "question": "Where is K?",
        "right_answer": "Paris",
        "hallucinated_answer": "K is in Rome.",
    }
    f = _write_halueval(
        tmp_path / "qa_one-turn_data.jsonl", [json.dumps({**rec, "question": f"Q{i}?"}) for i in range(6)]
    )
    runner = CliRunner()
    res = runner.invoke(
        app, ["judge", "validate", str(f), "--dataset", "halueval", "--out", str(tmp_path / "out"), "--limit", "4"]
    )
    assert res.exit_code == 0, res.output
    agg = json.loads((tmp_path / "out" / "validate-halueval.aggregate.json").read_text())
    assert agg["n"] == 8 and agg["backend"] == "stub" and "balanced_accuracy" in agg["readings"]["gold"]
    local = json.loads((tmp_path / "out" / "validate-halueval.local.json").read_text())
    assert len(local["cases"]) == 8
    md = (tmp_path / "out" / "validate-halueval.md").read_text()
    assert md.startswith("# Judge validity: halueval") and "balanced accuracy [95% CI]" in md and "| gold | " in md
    assert "not a quality signal" in md  # the stub is labelled as such
    ids = {c["id"] for c in local["cases"]}
    assert ids and not any(i in md for i in ids)  # figures only
    (tmp_path / "bad.jsonl").write_text("{nope\n", encoding="utf-8")
    res = runner.invoke(app, ["judge", "validate", str(tmp_path / "bad.jsonl"), "--dataset", "halueval"])
    assert res.exit_code == 2 and "bad.jsonl:1: <json>:" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["judge", "validate", str(tmp_path / "nothing"), "--dataset", "faithbench"])
    assert res.exit_code == 2 and "no such file" in res.output


# --- real data --------------------------------------------------------------------------------


@pytest.mark.slow
def test_stub_is_at_chance_on_real_halueval_and_faithbench(shared_data):
    _, hal = validate_judge("halueval", shared_data / "halueval", backend="stub", n_resamples=1000)
    g = hal["readings"]["gold"]
    assert hal["n"] == 2 * sum(
        1 for f in (shared_data / "halueval").glob("qa_*turn_data*.jsonl") for line in f.open() if line.strip()
    )
    assert (
        g["coverage"] == 1.0 and abs(g["balanced_accuracy"]["value"] - 0.5) < 0.06
    )  # ±5 SE at n=1600: a hash is no detector
    assert set(hal["by_origin"]) == {"qa_one-turn_data.first400.jsonl", "qa_multi-turn_data.first400.jsonl"}
    _, fb = validate_judge("faithbench", shared_data / "faithbench", backend="stub", n_resamples=1000)
    items = load_faithbench(shared_data / "faithbench")
    assert fb["n"] == len(items) and fb["span_recall"]["n_spans"] == sum(len(it.unwanted_spans) for it in items)
    for reading in ("strict", "inclusive"):
        ba = fb["readings"][reading]["balanced_accuracy"]
        assert abs(ba["value"] - 0.5) < 0.1 and ba["ci"][0] < ba["value"] < ba["ci"][1]  # a hash is no detector
        assert fb["readings"][reading]["tp"] + fb["readings"][reading]["fn"] == sum(
            it.hallucinated[reading] for it in items
        )
        anchors = fb["anchors"][reading]
        assert {"hhem-2.1", "gpt_4o", "gpt-4-turbo"} <= set(anchors)
        assert all(a["n_scored"] == fb["n"] for a in anchors.values())


def test_halueval_wrong_file_stops_at_the_third_line_with_one_problem(tmp_path):
    lines = [json.dumps({"ID": str(i), "user_query": "q", "chatgpt_response": "r"}) for i in range(1000)]
    f = _write_halueval(tmp_path / "general_data.jsonl", lines)
    with pytest.raises(CaseFileError) as e:
        load_halueval(f)
    assert len(e.value.problems) == 1
    assert str(e.value.problems[0]).startswith(f"{f}:1: <file>: the first 3 lines are not HaluEval QA records")
    assert "line 3 lacks knowledge, question, right_answer, hallucinated_answer" in str(e.value)
    # a good first record: later bad lines are bad lines, each reported (not "the wrong file")
    rec = {"knowledge": "K.", "question": "Q?", "right_answer": "A", "hallucinated_answer": "B"}
    g = _write_halueval(tmp_path / "qa_x.jsonl", [json.dumps(rec), *lines[:4]])
    with pytest.raises(CaseFileError) as e:
        load_halueval(g)
    assert len(e.value.problems) == 16 and "<file>" not in str(e.value)


def test_validate_reports_each_judged_case(tmp_path):
    rec = {"knowledge": "K.", "question": "Q?", "right_answer": "A", "hallucinated_answer": "B"}
    f = _write_halueval(tmp_path / "qa_x.jsonl", [json.dumps({**rec, "question": f"Q{i}?"}) for i in range(5)])
    loaded, done = [], []
    local, _ = validate_judge("halueval", f, n_resamples=100, on_loaded=loaded.append, on_case=done.append)
    assert loaded == [10] and sorted(done) == list(range(10)) and len(local["cases"]) == 10
