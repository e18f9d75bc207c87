"""tau-bench and Who&When importers on the real shared files: counts, mapping, and no label leak."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from assay.importers.taubench import classify_request, import_taubench
from assay.importers.whoandwhen import classify_question, import_whoandwhen
from assay.traces import load_summary, load_trace, write_trace_set

TAU_FILE = "tau_bench/gpt-4o-airline.tasks00-39.json"


@pytest.fixture(scope="module")
def tau(shared_data):
    return import_taubench(shared_data / TAU_FILE)


@pytest.fixture(scope="module")
def tau_source(shared_data):
    return json.loads((shared_data / TAU_FILE).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def whowhen(shared_data):
    return import_whoandwhen(shared_data / "who_and_when")


def test_taubench_counts_ids_and_reward_labels(tau, tau_source):
    assert len(tau) == 160
    assert tau[0][0].id == "taubench-airline-000-0" and tau[0][0].trace_path == "traces/taubench-airline-000-0.json"
    assert Counter(r.labels["reward"] for r, _ in tau) == Counter({0.0: 101, 1.0: 59})
    for (row, trace), rec in zip(tau, tau_source, strict=True):
        assert row.labels == {"reward": float(rec["reward"]), "task_id": rec["task_id"], "trial": rec["trial"]}
        assert row.slice == trace.planner.query_type


def test_taubench_mapping(tau, tau_source):
    row, trace = tau[0]
    rec = tau_source[0]
    calls = [
        tc["function"]["name"] for m in rec["traj"] if m["role"] == "assistant" for tc in (m.get("tool_calls") or [])
    ]
    assert list(trace.planner.stage_sequence) == calls
    assert trace.planner.pipeline == "tau-bench/airline/tool-calling" and trace.planner.query_type == "book"
    assert trace.planner.selected_top_k is None and trace.planner.retrieval_budget is None
    finals = [m["content"] for m in rec["traj"] if m["role"] == "assistant" and m.get("content")]
    assert trace.synthesis_llm_call.completion_text == finals[-1]
    assert "[tool get_user_details]" in trace.synthesis_llm_call.user_prompt_text
    assert len(trace.steps) == len(rec["traj"]) + sum(
        max(0, len(m.get("tool_calls") or []) - (0 if m.get("content") else 1)) for m in rec["traj"]
    )
    # the failed book_reservation is an attempt with its error; the retry says why it was made
    booked = [a for a in trace.planner.attempts if a.stage == "book_reservation"]
    assert booked[0].outcome == "error" and booked[0].verification_reasons[-1].startswith(
        "tool_error: Error: payment amount"
    )
    assert "after_tool_error" in booked[1].verification_reasons
    assert all(a.verification_reasons for _, t in tau for a in t.planner.attempts)


def test_taubench_traces_carry_no_labels(tau, tau_source, tmp_path):
    summary = write_trace_set(tmp_path, tau)
    for (row, _), rec in zip(tau, tau_source, strict=True):
        text = (tmp_path / row.trace_path).read_text(encoding="utf-8")
        data = json.loads(text)
        assert set(data) <= {"schema", "planner", "synthesis_llm_call", "steps", "source"}
        for leak in (
            '"reward"',
            '"info"',
            '"kwargs"',
            "r_actions",
            "gt_data_hash",
            "user_cost",
            rec["info"]["task"]["instruction"][:60],
        ):
            assert leak not in text, (row.id, leak)
    assert load_summary(summary).case_results[5].labels["reward"] in (0.0, 1.0)


def test_taubench_bad_record_names_file_and_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"task_id": 0, "reward": 1.0, "traj": []}, {"task_id": 1, "traj": []}]))
    with pytest.raises(ValueError, match=r"bad\.json: \[1\]\.reward: missing"):
        import_taubench(bad)
    bad.write_text(json.dumps([{"task_id": 0, "reward": 1, "traj": [{"content": "x"}]}]))
    with pytest.raises(ValueError, match=r"\[0\]\.traj\[0\]\.role: missing"):
        import_taubench(bad)


def test_request_classification():
    assert classify_request("Hi, I need to cancel my flight and get a refund") == "cancel"
    assert classify_request("I'd like to add two checked bags") == "baggage"
    assert classify_request("I want to change my flight to May 24") == "modify"
    assert classify_request("I'm looking to book a flight to Seattle") == "book"
    assert classify_request("My flight was delayed and I'm upset") == "complaint"
    assert classify_request("What is my gift card balance?") == "account"
    assert classify_request("Hello") == "other"
    assert classify_question("How many studio albums were published?") == "count"


def test_whoandwhen_counts_labels_and_mapping(whowhen, shared_data):
    assert len(whowhen) == 146
    assert Counter(r.slice for r, _ in whowhen) == Counter({"algorithm-generated": 100, "hand-crafted": 46})
    row, trace = next((r, t) for r, t in whowhen if r.id == "whowhen-ag-001")
    log = json.loads((shared_data / "who_and_when" / "Algorithm-Generated" / "1.json").read_text(encoding="utf-8"))
    assert (
        row.labels["mistake_step"] == int(log["mistake_step"]) and row.labels["mistake_agent"] == log["mistake_agent"]
    )
    assert len(trace.steps) == len(log["history"]) == len(trace.planner.stage_sequence)
    assert trace.planner.stage_sequence[0] == log["history"][0]["name"] and trace.planner.pipeline == "captainagent"
    assert all(0 <= r.labels["mistake_step"] < len(t.steps) for r, t in whowhen)
    assert all(t.synthesis_llm_call is not None for _, t in whowhen)
    errors = sum(a.outcome == "error" for _, t in whowhen for a in t.planner.attempts)
    assert errors > 20  # failed code executions are attempts with tool_error reasons


def test_whoandwhen_traces_carry_no_labels(whowhen, shared_data, tmp_path):
    write_trace_set(tmp_path, whowhen)
    for sub in ("Algorithm-Generated", "Hand-Crafted"):
        for f in (shared_data / "who_and_when" / sub).glob("*.json"):
            log = json.loads(f.read_text(encoding="utf-8"))
            short = "ag" if sub.startswith("Algorithm") else "hc"
            text = (tmp_path / "traces" / f"whowhen-{short}-{int(f.stem):03d}.json").read_text(encoding="utf-8")
            assert "mistake_step" not in text and "mistake_agent" not in text and "mistake_reason" not in text
            assert log["mistake_reason"][:50] not in text
            assert "system_prompt" not in text and '"ground_truth"' not in text


def test_cli_import_writes_traces_and_summary(shared_data, tmp_path):
    out = tmp_path / "tau"
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home")}
    r = subprocess.run(
        [sys.executable, "-m", "assay.cli", "import", "taubench", str(shared_data / TAU_FILE), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "160 traces"
    s = load_summary(out / "summary.json")
    assert len(s.case_results) == 160 and load_trace(out / s.case_results[0].trace_path).planner.stage_sequence
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay.cli",
            "import",
            "whoandwhen",
            str(shared_data / "who_and_when"),
            "--out",
            str(out / "summary.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 2 and "not a directory" in r.stderr and "Traceback" not in r.stderr


def test_regression_importers_read_json_like_the_summary_loader(tmp_path):
    """tau-bench and Who&When files saved with a UTF-8 BOM were refused ('Unexpected UTF-8 BOM'),
    and a file that is not UTF-8 escaped as a bare UnicodeDecodeError; both importers now read
    through assay.traces.read_json."""
    run = {
        "task_id": 3,
        "trial": 0,
        "reward": 1.0,
        "traj": [{"role": "user", "content": "cancel my flight"}, {"role": "assistant", "content": "Done."}],
    }
    tau = tmp_path / "airline.json"
    tau.write_bytes(b"\xef\xbb\xbf" + json.dumps([run]).encode())
    assert import_taubench(tau)[0][0].id == "taubench-airline-003-0"
    log = tmp_path / "Hand-Crafted" / "7.json"
    log.parent.mkdir()
    log.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"question": "how many", "history": [{"role": "A", "content": "x"}]}).encode()
    )
    assert import_whoandwhen(log)[0][0].id == "whowhen-hc-007"
    tau.write_bytes(b"[\xff]")
    with pytest.raises(ValueError, match=r"airline\.json: cannot read"):
        import_taubench(tau)
    log.write_text('{"history": [\n,]}')
    with pytest.raises(ValueError, match=r"7\.json:2: <json>:"):
        import_whoandwhen(log)
