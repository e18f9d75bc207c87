"""Native trace schema, eval summaries, trace lookup and windows (assay.traces)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.traces import (
    AXES,
    Trace,
    TraceError,
    axis_inputs,
    has_axis_input,
    is_state_changing,
    load_summary,
    load_trace,
    resolve_trace_path,
    window_trace,
    write_trace_set,
)

FULL = {
    "schema": 1,
    "planner": {
        "query_type": "cancel",
        "pipeline": "demo/tool-calling",
        "stage_sequence": ["get_booking", "cancel_booking"],
        "selected_top_k": 5,
        "retrieval_budget": {"reason": "one booking", "max_calls": 3},
        "attempts": [
            {
                "stage": "get_booking",
                "step": 3,
                "outcome": "ok",
                "verification_reasons": ["new_arguments: id", "after_user_turn"],
            }
        ],
        "future_field": "ignored",
    },
    "synthesis_llm_call": {
        "user_prompt_text": '[tool get_booking] {"id": "B1", "price": 120}',
        "completion_text": "Booking B1 (120 USD) is cancelled.",
    },
    "steps": [
        {"index": 0, "actor": "user", "content": "Cancel B1 please"},
        {"index": 1, "actor": "assistant", "kind": "tool_call", "name": "get_booking", "arguments": {"id": "B1"}},
        {
            "index": 2,
            "actor": "get_booking",
            "kind": "tool_result",
            "name": "get_booking",
            "content": '{"id": "B1", "price": 120}',
        },
        {"index": 3, "actor": "assistant", "content": "Shall I cancel B1?"},
        {"index": 4, "actor": "user", "content": "yes"},
        {"index": 5, "actor": "assistant", "kind": "tool_call", "name": "cancel_booking", "arguments": {"id": "B1"}},
        {"index": 6, "actor": "cancel_booking", "kind": "tool_result", "name": "cancel_booking", "content": "ok"},
        {"index": 7, "actor": "assistant", "content": "Booking B1 (120 USD) is cancelled."},
    ],
    "unknown_top_level": {"x": 1},
}


def _write(path: Path, obj) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj, encoding="utf-8")
    return path


def test_full_trace_loads_and_axis_inputs_are_the_documented_subsets(tmp_path):
    t = load_trace(_write(tmp_path / "t.json", FULL))
    assert t.planner.stage_sequence == ("get_booking", "cancel_booking") and len(t.steps) == 8
    assert axis_inputs(t, "planner_decomposition") == {
        "planner.query_type": "cancel",
        "planner.pipeline": "demo/tool-calling",
        "planner.stage_sequence": ["get_booking", "cancel_booking"],
        "planner.selected_top_k": 5,
        "planner.retrieval_budget.reason": "one booking",
    }
    assert axis_inputs(t, "retrieval_recalls") == {
        "planner.attempts[*].verification_reasons": [["new_arguments: id", "after_user_turn"]]
    }
    assert axis_inputs(t, "answer_reasoning") == {
        "synthesis_llm_call.user_prompt_text": FULL["synthesis_llm_call"]["user_prompt_text"],
        "synthesis_llm_call.completion_text": "Booking B1 (120 USD) is cancelled.",
    }
    with pytest.raises(ValueError, match="unknown axis"):
        axis_inputs(t, "vibes")


def test_minimal_trace_has_null_fields_and_no_answer_axis(tmp_path):
    t = load_trace(_write(tmp_path / "t.json", {"planner": {"stage_sequence": ["retrieve"]}}))
    assert axis_inputs(t, "planner_decomposition") == {
        "planner.query_type": None,
        "planner.pipeline": None,
        "planner.stage_sequence": ["retrieve"],
        "planner.selected_top_k": None,
        "planner.retrieval_budget.reason": None,
    }
    assert axis_inputs(t, "retrieval_recalls") == {"planner.attempts[*].verification_reasons": []}
    assert axis_inputs(t, "answer_reasoning") is None


def test_regression_an_empty_planner_measures_nothing(tmp_path):
    """A trace with an empty planner scored 1.0 ("no finding") on every heuristic axis; with no
    stage and no attempt there is nothing to judge: the axes are None for every backend."""
    from assay.judges.rationality import stub_scores
    from assay.judges.rationality_rules import heuristic_scores

    t = load_trace(_write(tmp_path / "t.json", {"planner": {}}))
    assert axis_inputs(t, "planner_decomposition") is None and axis_inputs(t, "retrieval_recalls") is None
    assert heuristic_scores(t)[0] == {a: None for a in AXES}
    assert stub_scores(t, "case-1") == {a: None for a in AXES}
    only_retries = load_trace(
        _write(
            tmp_path / "r.json",
            {"planner": {"attempts": [{"stage": "search", "verification_reasons": ["same_arguments"]}]}},
        )
    )
    assert axis_inputs(only_retries, "planner_decomposition") is None
    assert heuristic_scores(only_retries)[0]["retrieval_recalls"] is not None
    # a conversation with no tool call is a decision (use no tool): judged, not None
    chat = load_trace(
        _write(
            tmp_path / "c.json",
            {
                "planner": {},
                "steps": [
                    {"index": 0, "actor": "user", "content": "hi"},
                    {"index": 1, "actor": "assistant", "content": "hello"},
                ],
            },
        )
    )
    assert (
        heuristic_scores(chat)[0]["planner_decomposition"] == 1.0
        and stub_scores(chat, "c")["retrieval_recalls"] is not None
    )


def test_load_without_steps_keeps_axis_inputs(tmp_path):
    p = _write(tmp_path / "t.json", FULL)
    head, full = load_trace(p, steps=False), load_trace(p)
    assert head.steps == () and len(full.steps) == 8
    for axis in AXES:
        assert axis_inputs(head, axis) == axis_inputs(full, axis)


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        ('{"planner": {"query_type": "x",\n  "stage_sequence": [1, }', ":2: <json>:"),
        ({"synthesis_llm_call": {"user_prompt_text": "a", "completion_text": "b"}}, "planner: missing"),
        ({"planner": ["not", "an", "object"]}, "planner: not an object"),
        ([1, 2], "<root>: expected a JSON object"),
        ({"planner": {"stage_sequence": "retrieve"}}, "planner.stage_sequence:"),
        (
            {"planner": {}, "synthesis_llm_call": {"completion_text": "b"}},
            "synthesis_llm_call.user_prompt_text: field required",
        ),
        ({"planner": {"attempts": [{"outcome": "exploded"}]}}, "planner.attempts[0].outcome:"),
    ],
)
@pytest.mark.parametrize("steps", [True, False])
def test_bad_traces_name_file_and_field(tmp_path, content, message, steps):
    path = tmp_path / "bad.json"
    if content is not None:
        _write(path, content)
    with pytest.raises(TraceError) as e:
        load_trace(path, steps=steps)
    assert str(e.value).startswith(str(path)) and message in str(e.value)


def test_summary_loads_ignoring_unknown_fields(tmp_path):
    p = _write(
        tmp_path / "s.json",
        {
            "tool": "other",
            "case_results": [
                {"id": "a", "slice": "x", "trace_path": "t/a.json", "score": 0.3, "labels": {"reward": 1.0}},
                {"id": "b", "trace_path": None},
            ],
        },
    )
    s = load_summary(p)
    assert [r.id for r in s.case_results] == ["a", "b"] and s.path == p
    assert s.case_results[0].labels == {"reward": 1.0} and s.case_results[1].slice is None


@pytest.mark.parametrize(
    "content, message",
    [
        ("[1]", "<root>: expected a JSON object"),
        ('{"cases": []}', "case_results: missing"),
        ('{"case_results": {"id": "a"}}', "case_results:"),
        ('{"case_results": [{"slice": "x"}]}', "case_results[0].id: field required"),
        ('{"case_results": [{"id": ""}]}', "case_results[0].id:"),
        ('{"case_results": [{"id": "a"}, {"id": "a"}]}', "case_results[1].id: duplicate id 'a'"),
        ('{"case_results": [\n{"id": "a"},,\n]}', ":2: <json>:"),
    ],
)
def test_malformed_summary_is_one_line_file_field_problem(tmp_path, content, message):
    p = _write(tmp_path / "s.json", content)
    with pytest.raises(TraceError) as e:
        load_summary(p)
    assert str(e.value).startswith(str(p)) and message in str(e.value) and "\n" not in str(e.value)


def test_trace_paths_resolve_against_summary_folder_or_traces_dir(tmp_path):
    summary = tmp_path / "run" / "summary.json"
    summary.parent.mkdir()
    own = _write(tmp_path / "run" / "traces" / "a.json", {"planner": {}})
    assert resolve_trace_path(summary, "traces/a.json") == own
    assert resolve_trace_path(summary, str(own)) == own
    moved = _write(tmp_path / "moved" / "traces" / "a.json", {"planner": {}})
    assert resolve_trace_path(summary, "traces/a.json", tmp_path / "moved") == moved  # D/relative path
    flat = _write(tmp_path / "flat" / "a.json", {"planner": {}})
    assert resolve_trace_path(summary, "traces/a.json", tmp_path / "flat") == flat  # D/<file name>
    assert resolve_trace_path(summary, "/elsewhere/a.json", tmp_path / "flat") == flat
    # not in D: the summary-relative file is used; nowhere: D/<name> is reported
    assert resolve_trace_path(summary, "traces/a.json", tmp_path / "empty") == own
    assert resolve_trace_path(summary, "traces/zz.json", tmp_path / "flat") == tmp_path / "flat" / "zz.json"


def test_window_trace_keeps_window_stages_attempts_and_prior_prompt():
    t = Trace.model_validate(FULL)
    w = window_trace(t, 3, 6)
    assert [s.index for s in w.steps] == [3, 4, 5]
    assert w.planner.stage_sequence == ("assistant", "user", "cancel_booking")
    assert [a.step for a in w.planner.attempts] == [3]
    assert "Cancel B1 please" in w.synthesis_llm_call.user_prompt_text  # the steps before the window are the prompt
    assert (
        "Shall I cancel" not in w.synthesis_llm_call.user_prompt_text
        and "Shall I cancel" in w.synthesis_llm_call.completion_text
    )
    with pytest.raises(ValueError):
        window_trace(t, 4, 4)


def test_write_trace_set_round_trips(tmp_path):
    from assay.traces import CaseResult

    t = Trace.model_validate(FULL)
    path = write_trace_set(
        tmp_path / "out",
        [(CaseResult(id="a", slice="s", trace_path="traces/a.json", labels={"y": 1}), t)],
        extra={"source": "test"},
    )
    s = load_summary(path)
    assert s.case_results[0].labels == {"y": 1} and json.loads(path.read_text())["source"] == "test"
    assert load_trace(tmp_path / "out" / "traces" / "a.json") == t
    with pytest.raises(ValueError, match="relative"):
        write_trace_set(tmp_path / "out", [(CaseResult(id="b", trace_path="/abs/b.json"), t)])


def test_state_changing_stage_names():
    assert is_state_changing("cancel_reservation") and is_state_changing("Update-Profile") and is_state_changing("book")
    assert not is_state_changing("get_user_details") and not is_state_changing("search_direct_flight")
    assert not is_state_changing("transfer_to_human_agents") and not is_state_changing("think")


def test_regression_a_utf8_bom_is_accepted(tmp_path):
    """A summary saved by a Windows editor (UTF-8 with BOM) was refused with 'Unexpected UTF-8 BOM'."""
    (tmp_path / "t.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"planner": {"stage_sequence": ["a"]}}).encode())
    s = tmp_path / "s.json"
    s.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"case_results": [{"id": "x", "slice": "s", "trace_path": "t.json"}]}).encode()
    )
    assert load_summary(s).case_results[0].id == "x"
    assert load_trace(tmp_path / "t.json").planner.stage_sequence == ("a",)


def test_the_readme_trace_example_loads_and_is_judged():
    """The example in README.md's "Agent traces" section is a valid trace on every axis."""
    import re

    from assay.judges.rationality import stub_scores
    from assay.judges.rationality_rules import heuristic_scores

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Agent traces", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.S).group(1)
    t = Trace.model_validate(json.loads(block))
    assert all(v is not None for v in heuristic_scores(t)[0].values())
    assert all(v is not None for v in stub_scores(t, "readme").values())


@pytest.mark.parametrize(
    "trace",
    [
        FULL,
        {"planner": {}},
        {"planner": {"stage_sequence": ["a"]}},
        {"planner": {"attempts": [{"stage": "s"}]}},
        {"planner": {}, "steps": [{"index": 0, "actor": "user", "content": "hi"}]},
        {"planner": {}, "synthesis_llm_call": {"user_prompt_text": "a", "completion_text": "b"}},
    ],
)
def test_has_axis_input_agrees_with_axis_inputs(trace):
    t = Trace.model_validate(trace)
    for axis in AXES:
        assert has_axis_input(t, axis) == (axis_inputs(t, axis) is not None)
    with pytest.raises(ValueError, match="unknown axis"):
        has_axis_input(t, "vibes")
