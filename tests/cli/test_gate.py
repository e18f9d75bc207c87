"""``assay gate FILE [--mode] [--json]`` through the real CLI: exit codes, output shapes, bad input.

Runs the Typer app in process (``typer.testing.CliRunner``) and the installed console script in a
subprocess (the entry point a user runs).
"""

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
ASSAY = Path(sys.executable).parent / "assay"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "apple_fy2023_memos.jsonl"

FACTS = [
    {"id": "F1", "label": "Total net sales", "value": 383285, "unit": "USD millions", "period": "FY2023"},
    {"id": "F2", "label": "Total net sales", "value": 394328, "unit": "USD millions", "period": "FY2022"},
]
PASS = {"id": "q1", "variant": "a", "answer": "Net sales were $383.3 billion [F1], down 2.8% [F1, F2].", "facts": FACTS}
FAIL = {
    "id": "q1",
    "variant": "b",
    "answer": "Net sales were $385.3 billion [F1].",
    "facts": FACTS,
    "reference": "$383.3 billion",
}
REFUSAL = {"id": "q2", "variant": "a", "answer": "I cannot tell from the filing.", "facts": FACTS}
UNCITED = {
    "id": "q3",
    "variant": "a",
    "answer": "Net sales were $383.3 billion. You should buy the stock.",
    "sources": ["(Millions)\nNet sales 383,285 394,328"],
}


def write(tmp_path: Path, *records: dict | str, name: str = "cases.jsonl") -> Path:
    p = tmp_path / name
    p.write_text(
        "".join((json.dumps(r, ensure_ascii=False) if isinstance(r, dict) else r) + "\n" for r in records),
        encoding="utf-8",
    )
    return p


def gate(*args) -> object:
    return runner.invoke(app, ["gate", *map(str, args)])


def test_text_output_and_exit_1_when_a_case_fails(tmp_path):
    r = gate(write(tmp_path, PASS, FAIL, REFUSAL))
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("PASS") and "q1 [a] cited: 2/2 quantities matched" in lines[0]
    assert lines[1].startswith("FAIL") and "value_mismatch '$385.3 billion'" in lines[1]
    assert lines[2].startswith("NO_CLAIMS") and "nothing checkable" in lines[2]
    assert lines[-1] == "3 case(s): 1 pass, 1 fail, 0 unchecked, 1 no_claims"


def test_exit_0_when_nothing_fails_and_no_claims_does_not_fail(tmp_path):
    r = gate(write(tmp_path, PASS, REFUSAL))
    assert r.exit_code == 0 and r.stdout.splitlines()[-1] == "2 case(s): 1 pass, 0 fail, 0 unchecked, 1 no_claims"
    r = gate(write(tmp_path, REFUSAL, name="refusal.jsonl"))
    assert r.exit_code == 3  # every case no_claims: done, but nothing was measured


def test_json_output(tmp_path):
    r = gate("--json", write(tmp_path, PASS, FAIL, REFUSAL, UNCITED))
    assert r.exit_code == 1
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(recs) == 4
    for rec in recs:
        assert {"id", "variant", "status", "violations", "completeness", "impersonal"} <= set(rec)
    assert [(x["id"], x["variant"], x["status"]) for x in recs] == [
        ("q1", "a", "pass"),
        ("q1", "b", "fail"),
        ("q2", "a", "no_claims"),
        ("q3", "a", "pass"),
    ]
    (v,) = recs[1]["violations"]
    assert v["kind"] == "value_mismatch" and v["quantity"] == "$385.3 billion"
    assert FAIL["answer"][v["span"][0] : v["span"][1]] == "$385.3 billion"
    assert v["candidate"]["ref"] == "F1" and v["reason"]
    assert recs[1]["completeness"]["reference_recall"] == 0.0 and recs[0]["completeness"]["cited"] == ["F1", "F2"]
    assert recs[3]["mode"] == "uncited" and recs[3]["impersonal"]["score"] < 1 and recs[3]["impersonal"]["flags"]


def test_mode_option(tmp_path):
    p = write(tmp_path, {**PASS, "answer": "Net sales were $383.3 billion."})
    assert json.loads(gate("--json", p).stdout)["mode"] == "uncited"
    r = gate("--json", "--mode", "cited", p)
    rec = json.loads(r.stdout)
    assert r.exit_code == 1 and rec["mode"] == "cited" and rec["violations"][0]["kind"] == "uncited"
    r = gate("--mode", "sideways", p)
    assert r.exit_code == 2


def test_regression_ids_are_printed_as_written(tmp_path):
    """Bug fixed: rich replaced ":smile:" in ids with an emoji (text and --json output)."""
    rec = {**PASS, "id": "q:smile:1", "variant": "v[bold]x[/bold]"}
    p = write(tmp_path, rec)
    assert json.loads(gate("--json", p).stdout)["id"] == "q:smile:1"
    assert "q:smile:1 [v[bold]x[/bold]]" in gate(p).stdout


def test_example_file(tmp_path):
    r = gate("--json", EXAMPLE)
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    statuses = {(x["id"], x["variant"]): x["status"] for x in recs}
    assert len(recs) == 24 and r.exit_code == 1
    assert all(s == "pass" for (i, v), s in statuses.items() if v == "debate")
    assert statuses[("q1", "fast_model")] == "fail" and statuses[("q8", "single_pass")] == "no_claims"


# --- bad input: exit 2, one line `file:line: field: problem`, nothing written -------------------

BAD_INPUTS = {
    "malformed": (b'{"id": "q1", "answer": "a"}\n{"id": "q2", "answer": \n', ":2: <json>: "),
    "missing_answer": (b'{"id": "q1"}\n', ":1: answer: required field is missing"),
    "nan_value": (
        b'{"id": "q1", "answer": "a", "facts": [{"id": "F1", "label": "x", "value": NaN}]}\n',
        ":1: <json>: NaN",
    ),
    "inf_value": (
        b'{"id": "q1", "answer": "a", "facts": [{"id": "F1", "label": "x", "value": 1e999}]}\n',
        ":1: facts.0.value: must be finite",
    ),
    "text_value": (
        b'{"id": "q1", "answer": "a", "facts": [{"id": "F1", "label": "x", "value": "12"}]}\n',
        ":1: facts.0.value: must be a number",
    ),
    "non_utf8": (b'{"id": "q1", "answer": "caf\xe9"}\n', ":1: <bytes>: not valid UTF-8"),
    "empty": (b"", ":0: <file>: empty file"),
}


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_exit_2(tmp_path, kind):
    content, expected = BAD_INPUTS[kind]
    p = tmp_path / f"{kind}.jsonl"
    p.write_bytes(content)
    before = sorted(tmp_path.iterdir())
    for args in ([p], ["--json", p]):
        r = gate(*args)
        assert r.exit_code == 2, r.output
        assert r.stdout == ""
        (line,) = r.stderr.splitlines()
        assert line.startswith(f"error: {p}{expected}"), line
        assert "Traceback" not in r.output
    assert sorted(tmp_path.iterdir()) == before


def test_missing_file_exit_2(tmp_path):
    r = gate(tmp_path / "nope.jsonl")
    assert r.exit_code == 2 and "nope.jsonl" in r.stderr and "Traceback" not in r.output


def test_debug_shows_the_traceback_and_keeps_the_input_errors_exit_code():
    """A new user's walkthrough: under --debug an input error exited 1 (a gate failure's code)."""
    r = runner.invoke(app, ["--debug", "gate", str(Path(__file__).parent / "no-such-cases.jsonl")])
    assert r.exit_code == 2 and "Traceback" in r.stderr and "no-such-cases.jsonl" in r.stderr


def test_a_file_with_several_bad_lines_is_one_line_naming_the_first(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"id": "q1", "answer": "a", "bogus": 1}\n{"id": "q2"}\n{"id": "q3"}\n', encoding="utf-8")
    r = gate(p)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        f"error: {p}:1: bogus: unknown field (and 2 more problems in the file: --debug lists them)"
    ]


def test_debug_after_the_subcommand_is_hoisted_to_the_global_option():
    from assay.cli.app import hoist_debug

    assert hoist_debug(["gate", "x.jsonl", "--debug"]) == ["--debug", "gate", "x.jsonl"]
    assert hoist_debug(["--debug", "gate", "x.jsonl"]) == ["--debug", "gate", "x.jsonl"]
    assert hoist_debug(["gate", "x.jsonl"]) == ["gate", "x.jsonl"]
    assert hoist_debug(["claims", "check", "--", "--debug"]) == ["claims", "check", "--", "--debug"]


# --- the installed console script ----------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "60"}
    return subprocess.run(
        [str(ASSAY), "gate", *args], capture_output=True, text=True, encoding="utf-8", timeout=60, env=env
    )


def test_console_script_json_and_exit_codes(tmp_path):
    assert ASSAY.exists(), f"console script not installed at {ASSAY}"
    long_answer = "😀 매출은 1,234억 원 [K1]. " + "Net sales were $383.3 billion [F1]. " * 5
    korean = {
        "id": "k" * 120,
        "variant": "long",
        "answer": long_answer,
        "facts": [{"id": "K1", "label": "매출액", "value": 123_400_000_000, "unit": "KRW"}, *FACTS],
    }
    p = write(tmp_path, PASS, REFUSAL, korean)
    r = _run("--json", str(p))
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]  # one object per line even when long (no wrapping)
    assert [x["status"] for x in recs] == ["pass", "no_claims", "pass"] and recs[2]["id"] == "k" * 120
    r = _run(str(write(tmp_path, PASS, FAIL, name="fail.jsonl")))
    assert r.returncode == 1 and r.stdout.splitlines()[-1] == "2 case(s): 1 pass, 1 fail, 0 unchecked, 0 no_claims"


def test_console_script_bad_input(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(b'{"id": "q1", "answer": "a"}\n{"id": "q2"}\n')
    r = _run(str(p))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == f"error: {p}:2: answer: required field is missing"


def test_exit_1_for_a_case_whose_only_numbers_are_unchecked(tmp_path):
    vague = {"id": "q9", "variant": "a", "answer": "Services were about a few billion [F1].", "facts": FACTS}
    from assay.claims import extract_claims

    if not any(c.unchecked for c in extract_claims(vague["answer"])):
        pytest.skip("the reader reports no unchecked span for this form")
    r = gate(write(tmp_path, vague))
    assert r.exit_code == 1 and "UNCHECKED" in r.stdout, r.output


def test_gate_reads_standard_input_with_a_dash():
    r = runner.invoke(app, ["gate", "-"], input=json.dumps(PASS) + "\n")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-1] == "1 case(s): 1 pass, 0 fail, 0 unchecked, 0 no_claims"


def test_messages_show_the_nearest_value_in_the_facts_unit(tmp_path):
    r = gate(write(tmp_path, FAIL))
    assert r.exit_code == 1 and "nearest: F1 = $383.3 billion" in r.stdout, r.output


def test_markers_without_facts_are_unknown_citation_not_unsourced(tmp_path):
    bare = {"id": "q5", "variant": "a", "answer": "Net sales were $383.3 billion [F1]."}
    r = gate("--json", write(tmp_path, bare))
    rec = json.loads(r.stdout.splitlines()[0])
    assert r.exit_code == 1 and rec["violations"][0]["kind"] == "unknown_citation"


def test_gate_validity_on_the_bundled_example_prints_one_table():
    r = gate("validity", "--dataset", "example", EXAMPLE)
    assert r.exit_code == 0, r.output
    assert "gold accepted" in r.stdout and "sum_periods" in r.stdout and "Wilson" in r.stdout
    bad = gate("validity", "--dataset", "nope", EXAMPLE)
    assert bad.exit_code == 2 and "--dataset" in bad.output


def test_json_output_counts_scale_from_display_and_bad_display_is_a_usage_error(tmp_path):
    """Issue 15: "$6.13 [F1]" passes 6.13 USD millions only through its displayed_value, and says so."""
    fact = {"id": "F1", "label": "Revenue", "value": 6.13, "unit": "USD millions"}
    shown = {
        "id": "q1",
        "variant": "a",
        "answer": "Revenue was $6.13 [F1].",
        "facts": [{**fact, "displayed_value": "6.13"}],
    }
    plain = {**shown, "variant": "b", "facts": [fact]}
    r = gate("--json", write(tmp_path, shown, plain))
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(x["status"], x["scale_from_display"]) for x in recs] == [("pass", 1), ("fail", 0)]
    assert r.exit_code == 1
    bad = {**shown, "facts": [{**fact, "displayed_value": "6.31"}]}
    r = gate(write(tmp_path, bad, name="bad.jsonl"))
    assert r.exit_code == 2 and "bad.jsonl:1: facts.0: displayed_value '6.31' is not the value" in r.output


def test_standard_input_problems_name_stdin_and_bad_bytes_are_a_line_error():
    # found by rtry: errors named a temporary file, and non-UTF-8 bytes gave a codec message
    r = runner.invoke(app, ["gate", "-"], input=json.dumps(PASS) + "\n" + '{"id": "b", "variant":\n')
    assert r.exit_code == 2, r.output
    assert "<stdin>:2: <json>:" in r.output and "stdin.jsonl" not in r.output
    r = runner.invoke(app, ["gate", "-"], input=b"\xff\xfe\n")
    assert r.exit_code == 2, r.output
    assert "<stdin>:1: <bytes>: not valid UTF-8" in r.output


def test_the_help_row_for_exit_0_allows_no_claims_cases(tmp_path):
    # found by rtry: `assay --help` said "0 every case passes", but pass + no_claims exits 0 too
    assert gate(write(tmp_path, PASS, REFUSAL)).exit_code == 0
    help_text = " ".join(runner.invoke(app, ["--help"]).stdout.split())
    assert "gate: 0 no case fails or is unchecked (some may be no_claims)" in help_text


def test_gate_validity_local_lists_false_accepts_and_needs_the_local_suffix(tmp_path):
    """f15: per-case false accepts go to a *.local.json (case ids), never to the table."""
    local = tmp_path / "fa.local.json"
    r = gate("validity", "--dataset", "example", EXAMPLE, "--local", str(local))
    assert r.exit_code == 0, r.output
    assert isinstance(json.loads(local.read_text(encoding="utf-8")), list)
    bad = gate("validity", "--dataset", "example", EXAMPLE, "--local", str(tmp_path / "fa.json"))
    assert bad.exit_code == 2 and ".local.json" in bad.output


def test_console_script_usage_errors_and_unwritable_output_are_one_line(tmp_path):
    """A new user's walkthrough: a bad option value, an unknown option and a missing argument printed
    click's usage block and a boxed panel; output to a full disk, a traceback."""
    for args, start in [
        ((str(EXAMPLE), "--mode", "bogus"), "error: Invalid value for '--mode'"),
        ((str(EXAMPLE), "--bogus"), "error: No such option: --bogus"),
        ((), "error: Missing argument 'file'"),
    ]:
        r = _run(*args)
        assert r.returncode == 2 and r.stdout == "", args
        (line,) = r.stderr.splitlines()
        assert line.startswith(start) and line.endswith("(see 'assay gate --help')"), line
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            r = subprocess.run([str(ASSAY), "gate", str(EXAMPLE)], stdout=full, stderr=subprocess.PIPE, text=True)
        assert r.returncode == 2 and r.stderr.splitlines() == [
            "error: output could not be written: No space left on device"
        ]


def test_gate_validity_refuses_mode_and_a_local_folder_and_exits_3_when_nothing_is_measured(tmp_path):
    r = gate("validity", "--dataset", "example", EXAMPLE, "--mode", "cited")
    assert r.exit_code == 2 and "--mode belongs to 'assay gate'" in r.stderr  # was silently ignored
    folder = tmp_path / "fa.local.json"
    folder.mkdir()
    r = gate("validity", "--dataset", "example", EXAMPLE, "--local", str(folder))
    assert r.exit_code == 2 and "is a directory" in r.stderr  # was a traceback after the whole run
    refusal = write(tmp_path, REFUSAL, name="refusal.jsonl")
    r = gate("validity", "--dataset", "example", refusal)
    assert r.exit_code == 3, r.output  # gold 0/1 and no class measured: done, the measurement incomplete


def test_console_script_takes_debug_after_the_subcommand(tmp_path):
    """A new user's `assay gate bad.jsonl --debug` said "No such option: --debug"; it is the global
    option wherever it stands, and shows the traceback."""
    p = tmp_path / "bad.jsonl"
    p.write_bytes(b'{"id": "q1", "answer": "a"}\n{"id": "q2"}\n')
    plain, debug = _run(str(p)), _run(str(p), "--debug")
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    assert debug.returncode != 0 and "No such option" not in debug.stderr and "Traceback" in debug.stderr


def test_gate_validity_shows_progress_over_its_cases_and_quiet_turns_it_off(monkeypatch):
    """Long work shows progress: one step per gold case of every set, on stderr; ``--quiet`` shows none
    and prints the same table; ``--quiet`` without 'validity' is a usage error."""
    import io

    from rich.console import Console

    import assay.cli.gate as gate_cli
    from assay.cli.common import ProgressBar

    buf = io.StringIO()

    def every_step(label, *extra, quiet=False):  # a plain line on every step, into ``buf``
        return ProgressBar(label, *extra, quiet=quiet, interval_s=0.0, console=Console(file=buf, force_terminal=False))

    monkeypatch.setattr(gate_cli, "progress_bar", every_step)
    shown = gate("validity", "--dataset", "example", EXAMPLE)
    lines = buf.getvalue().splitlines()
    assert shown.exit_code == 0 and lines and lines[-1].startswith("gate validity: "), buf.getvalue()
    done, total = lines[-1].split(": ")[1].split(" ")[0].split("/")
    from assay.grounding.suite import dataset_sets

    expected = sum(len(cases) for _, _, cases in dataset_sets("example", EXAMPLE))
    assert int(done) == int(total) == expected  # every case of every set counted once
    buf.truncate(0)
    buf.seek(0)
    quiet = gate("validity", "--dataset", "example", EXAMPLE, "--quiet")
    assert quiet.exit_code == 0 and buf.getvalue() == "" and quiet.stdout == shown.stdout
    assert gate("--quiet", EXAMPLE).exit_code == 2
