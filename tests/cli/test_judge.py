"""``assay judge validate`` through the CLI: the wrong file in one line, exit 3 when an LLM judge
scored nothing, tables that fold to the terminal width, ``--quiet``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assay.cli import app

_REC = {
    "knowledge": "K is in Paris.",
    "question": "Where is K?",
    "right_answer": "Paris",
    "hallucinated_answer": "K is in Rome.",
}
_LLM_ENV = ("ASSAY_LLM_BASE_URL", "ASSAY_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY")


@pytest.fixture
def halueval(tmp_path):
    f = tmp_path / "qa_one-turn_data.jsonl"
    f.write_text("".join(json.dumps({**_REC, "question": f"Q{i}?"}) + "\n" for i in range(6)), encoding="utf-8")
    return f


def _invoke(args, **kw):
    return CliRunner().invoke(app, args, **kw)


def test_the_wrong_halueval_file_is_one_line_and_writes_nothing(tmp_path):
    """HaluEval's general_data file (user_query, chatgpt_response, …) gave 50 errors and
    "… and 14350 more"; now one line naming the fields a QA record needs."""
    wrong = tmp_path / "general_data.jsonl"
    rec = {"ID": "1", "user_query": "Produce a list.", "chatgpt_response": "the, a", "hallucination": "no"}
    wrong.write_text("".join(json.dumps({**rec, "ID": str(i)}) + "\n" for i in range(14_400)), encoding="utf-8")
    res = _invoke(["judge", "validate", str(wrong), "--dataset", "halueval", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1, res.output
    assert "the first 3 lines are not HaluEval QA records: expected fields knowledge, question" in lines[0]
    assert "more" not in lines[0] and "Traceback" not in res.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_an_llm_judge_that_scored_nothing_exits_3_after_writing(tmp_path, halueval, monkeypatch):
    for name in _LLM_ENV:
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out"
    args = ["--db", f"sqlite:///{tmp_path / 'a.db'}", "judge", "validate", str(halueval), "--dataset", "halueval"]
    res = _invoke([*args, "--backend", "openai_compatible", "--out", str(out)])
    assert res.exit_code == 3, res.output
    assert "scored 0 of 12 case(s)" in res.output
    assert (out / "validate-halueval.aggregate.json").exists()  # written, but incomplete
    res = _invoke([*args, "--backend", "stub"])  # the stub always scores: a floor, not an LLM
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_table_folds_to_the_terminal_width_and_cuts_no_number(halueval, width):
    res = _invoke(["judge", "validate", str(halueval), "--dataset", "halueval", "-q"], env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    table = [line for line in res.output.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(len(line) for line in table) <= width
    assert "…" not in res.output
    assert "12/12" in res.output and res.output.count("[") >= 2  # counts and CIs printed whole


def test_quiet_prints_no_progress(halueval):
    res = _invoke(["judge", "validate", str(halueval), "--dataset", "halueval", "--quiet"])
    assert res.exit_code == 0 and "judging" not in res.output
