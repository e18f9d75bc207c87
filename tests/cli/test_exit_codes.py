"""The exit-code table (README "Exit codes", ``assay --help``): a case per row for the commands of
this branch — ``init-db``, ``import``, ``judge validate``, ``judge rationality``, ``judge
agreement``, ``verdicts …``, ``cache …``. 2 is a usage or input error with nothing written; 130 is
Ctrl-C with nothing half-written. The gate, eval/compare and memory rows are tested by their
owners' tests (tests/cli/test_gate.py, test_eval.py, test_memory.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.cli.app import EXIT_CODES
from verdict_fixtures import FIXTURE

_LLM_ENV = ("ASSAY_LLM_BASE_URL", "ASSAY_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY")
_HALUEVAL = {
    "knowledge": "K is in Paris.",
    "question": "Where?",
    "right_answer": "Paris",
    "hallucinated_answer": "Rome",
}


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    for name in ("ASSAY_DB_URL", *_LLM_ENV):
        monkeypatch.delenv(name, raising=False)


def _run(*args, **kw):
    return CliRunner().invoke(app, [str(a) for a in args], **kw)


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'x.db'}"


def _files(path: Path) -> list[str]:
    return sorted(p.name for p in path.rglob("*") if p.is_file()) if path.exists() else []


def _halueval(tmp_path: Path) -> Path:
    f = tmp_path / "qa_one-turn_data.jsonl"
    f.write_text("".join(json.dumps({**_HALUEVAL, "question": f"Q{i}?"}) + "\n" for i in range(4)), encoding="utf-8")
    return f


def _summary(tmp_path: Path) -> Path:
    rows = []
    for i in range(3):
        trace = {
            "planner": {"query_type": "cancel", "stage_sequence": ["get_x"] * (i + 1)},
            "synthesis_llm_call": {"user_prompt_text": f"value {i}", "completion_text": f"It is {i}."},
        }
        p = tmp_path / "traces" / f"c{i}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(trace))
        rows.append({"id": f"c{i}", "slice": "s", "trace_path": f"traces/c{i}.json"})
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"case_results": rows}))
    return path


def test_the_table_names_every_row_of_issue_16():
    assert [row[0] for row in EXIT_CODES] == [
        "gate",
        "gate validity",
        "eval, judge validate/rationality/pairwise, import, report",
        "compare, claims check",
        "memory train",
        "memory calibrate",
        "memory retrain",
        "memory ab promote",
        "memory ab tick",
        "memory grade",
        "other memory, cache, verdicts commands, judge agreement, init-db",
        "assay-hook",
    ]


# --- init-db: 0 done, 2 ---------------------------------------------------------------------


def test_init_db(tmp_path):
    assert _run("--db", _db(tmp_path), "init-db").exit_code == 0
    r = _run("--db", "nosuchdialect://x", "init-db")
    assert r.exit_code == 2 and r.output.startswith("error: ")


# --- import: 0 written, 2, 130 ----------------------------------------------------------------


def _tatqa(tmp_path: Path) -> Path:
    q = {
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
    ctx = [
        {
            "table": {"uid": "t1", "table": [["", "2019", "2018"], ["Revenue", "$120", "$100"]]},
            "paragraphs": [{"uid": "p1", "order": 1, "text": "Revenue grew."}],
            "questions": [q],
        }
    ]
    (tmp_path / "tatqa").mkdir()
    (tmp_path / "tatqa" / "tatqa_dataset_dev.json").write_text(json.dumps(ctx), encoding="utf-8")
    return tmp_path / "tatqa"


def test_import(tmp_path, monkeypatch):
    src, out = _tatqa(tmp_path), tmp_path / "out" / "cases.jsonl"
    assert _run("import", "tatqa", src, "--out", out).exit_code == 0 and out.is_file()
    r = _run("import", "tatqa", tmp_path / "missing", "--out", tmp_path / "o2" / "c.jsonl")
    assert r.exit_code == 2 and _files(tmp_path / "o2") == []

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr("assay.importers.tatqa.import_tatqa", interrupted)
    r = _run("import", "tatqa", src, "--out", tmp_path / "o3" / "c.jsonl")
    assert r.exit_code == 130 and "interrupted: nothing was written" in r.output
    assert _files(tmp_path / "o3") == []


# --- judge validate: 0 written, 3 an LLM judge scored nothing, 2, 130 ------------------------------


def test_judge_validate(tmp_path, monkeypatch):
    f, db = _halueval(tmp_path), _db(tmp_path)
    assert _run("--db", db, "judge", "validate", f, "--dataset", "halueval", "--out", tmp_path / "a").exit_code == 0
    r = _run("--db", db, "judge", "validate", f, "--dataset", "halueval", "--backend", "openai_compatible")
    assert r.exit_code == 3 and "scored 0 of 8 case(s)" in r.output
    r = _run("--db", db, "judge", "validate", f, "--dataset", "faithbench", "--out", tmp_path / "b")
    assert r.exit_code == 2 and _files(tmp_path / "b") == []

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr("assay.judges.validate.validate_judge", interrupted)
    r = _run("--db", db, "judge", "validate", f, "--dataset", "halueval", "--out", tmp_path / "c")
    assert r.exit_code == 130 and _files(tmp_path / "c") == []


# --- judge rationality: 0 written, 3 (LLM scored nothing; --expect-full-trace), 2 ------------------


def test_judge_rationality(tmp_path):
    s, db = _summary(tmp_path), _db(tmp_path)
    args = ["--db", db, "judge", "rationality", "--eval-summary", s]
    assert _run(*args, "--out", tmp_path / "a").exit_code == 0
    r = _run(*args, "--out", tmp_path / "b", "--backend", "openai_compatible")
    assert r.exit_code == 3 and "scored 0 of 3 trace(s)" in r.output
    assert "rationality.aggregate.json" in _files(tmp_path / "b")  # written, then 3
    r = _run("judge", "rationality", "--eval-summary", tmp_path / "missing.json", "--out", tmp_path / "c")
    assert r.exit_code == 2 and _files(tmp_path / "c") == []
    a = tmp_path / "a" / "rationality.local.json"
    assert _run("judge", "agreement", a, a).exit_code == 0  # "other" row: done
    assert _run("judge", "agreement", a, tmp_path / "nope.json").exit_code == 2


# --- verdicts, cache: 0 done, 2 ---------------------------------------------------------------


def test_verdicts(tmp_path):
    db, vfile, q = _db(tmp_path), tmp_path / "v.jsonl", tmp_path / "q.json"
    vfile.write_text("".join(json.dumps(v) + "\n" for v in FIXTURE))
    q.write_text(json.dumps({"fields": {"cost_codes": ["FAC-ENERGY"]}}))
    for args in (["add", vfile], ["add", vfile], ["search", "--query", q], ["stats"]):
        assert _run("--db", db, "verdicts", *args).exit_code == 0, args
    for args in (
        ["add", tmp_path / "none.jsonl"],
        ["search", "--query", q, "--store", "typo"],
        ["stats", "--store", "x"],
    ):
        assert _run("--db", db, "verdicts", *args).exit_code == 2, args


def test_cache(tmp_path):
    db = _db(tmp_path)
    for args in (["stats"], ["stats", "--json"], ["clear", "--yes"]):
        assert _run("--db", db, "cache", *args).exit_code == 0, args
    assert _run("--db", db, "cache", "clear").exit_code == 2  # no terminal to ask on, no --yes
    assert _run("--db", "nosuchdialect://x", "cache", "stats").exit_code == 2


# --- eval --label-field / --positive: 2 naming what exists, nothing written ----------------------


def test_a_misspelled_label_field_or_an_unseen_positive_exits_2_naming_what_exists(tmp_path):
    cases = tmp_path / "cases.jsonl"
    rows = [
        {"id": f"q{i}", "variant": "a", "question": "q", "answer": "No figure.", "meta": {"human_label": label}}
        for i, label in enumerate(["Correct Answer"] * 3 + ["Refusal"] * 2 + [f"other{k}" for k in range(10)])
    ]
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "reports"
    r = _run("eval", cases, "--out", out, "--label-field", "meta.human_lable", "--positive", "Incorrect Answer")
    assert r.exit_code == 2 and _files(tmp_path / "reports") == []
    assert f"--label-field meta.human_lable: no case of {cases} has it; did you mean meta.human_label?" in r.output
    assert "fields with a value: answer, id, meta.human_label, question, variant" in " ".join(r.output.split())
    r = _run("eval", cases, "--out", out, "--label-field", "meta.human_label", "--positive", "Incorrect Answer")
    assert r.exit_code == 2 and _files(tmp_path / "reports") == []
    said = " ".join(r.output.split())
    assert "no case has meta.human_label = 'Incorrect Answer'; values seen: 'Correct Answer' (3), 'Refusal' (2)" in said
    assert said.count("'other") == 8 and "… 2 more" in said  # the 10 most frequent, then how many others
