"""No case id (nor answer text) ever reaches a shareable output: aggregate JSON, Markdown, HTML,
the console, or ``compare``. Only ``NAME.local.json`` may hold ids.

Ids are distinctive (``case-SECRET-…``), include characters that escaping would rewrite, and the
runs use every feature that handles per-case data: labels, a baseline, the stub judge, slices,
bottom-k rows and a one-case variant.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from eval_cases import ADVICE, GOOD, HALF, REFUSAL, WRONG, case, write_jsonl

SECRET = "SECRET"
ANSWER_MARK = "Zanzibarquux"  # a word that only the answers contain


def _secret_ids(n: int) -> list[str]:
    return [f'case-{SECRET}-{i:04d}-<é&"{i}>' for i in range(n)]


def _rows() -> list[dict]:
    answers = [GOOD, HALF, WRONG, REFUSAL, ADVICE]
    labels = ["Correct Answer", "Incorrect Answer", "Incorrect Answer", "Refusal", None]
    rows = []
    for i, cid in enumerate(_secret_ids(10)):
        for j, variant in enumerate(("single_pass", "debate")):
            k = (i + j) % len(answers)
            meta = {"human_label": labels[k]} if labels[k] else {}
            rows.append(
                case(cid, variant, f"{answers[k]} {ANSWER_MARK}.", slice=["income", "margins"][i % 2], meta=meta)
            )
    rows.append(case(f"case-{SECRET}-lonely", "solo", f"{GOOD} {ANSWER_MARK}.", slice="other"))
    return rows


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, object]:
    tmp = tmp_path_factory.mktemp("privacy")
    cases = write_jsonl(tmp / "cases.jsonl", _rows())
    mp = pytest.MonkeyPatch()
    mp.setenv("ASSAY_HOME", str(tmp / "home"))
    mp.delenv("ASSAY_DB_URL", raising=False)
    runner = CliRunner()
    try:
        runs = {}
        for name, extra in {
            "plain": [],
            "full": [
                "--judge",
                "stub",
                "--baseline",
                "single_pass",
                "--label-field",
                "meta.human_label",
                "--positive",
                "Incorrect Answer",
                "--exclude-label",
                "Refusal",
            ],
        }.items():
            res = runner.invoke(app, ["eval", str(cases), "--out", str(tmp / "out"), "--name", name, *extra])
            assert res.exit_code == 0, res.output
            runs[name] = res
        compare = runner.invoke(
            app, ["compare", str(tmp / "out" / "plain.local.json"), str(tmp / "out" / "full.local.json"), "--json"]
        )
        compare_table = runner.invoke(
            app, ["compare", str(tmp / "out" / "plain.local.json"), str(tmp / "out" / "full.local.json")]
        )
    finally:
        mp.undo()
    assert compare.exit_code == 0 and compare_table.exit_code == 0
    return {"out": tmp / "out", "runs": runs, "compare": [compare.output, compare_table.output]}


def _shareable(reports) -> dict[str, str]:
    out: Path = reports["out"]
    texts = {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(out.iterdir())
        if p.is_file() and not p.name.endswith(".local.json")
    }
    for name, res in reports["runs"].items():
        texts[f"console:{name}"] = res.output
    for i, text in enumerate(reports["compare"]):
        texts[f"compare:{i}"] = text
    return texts


def test_the_runs_used_every_feature(reports):
    agg = json.loads((reports["out"] / "full.aggregate.json").read_text(encoding="utf-8"))
    assert agg["backend"] == "stub" and agg["lift"] and agg["agreement"]["n"] > 0
    assert agg["agreement"]["excluded"] and agg["bottom"]["composite"]
    assert agg["variants"]["solo"]["n"] == 1
    names = {p.name for p in reports["out"].iterdir()}
    assert {f"{n}{s}" for n in ("plain", "full") for s in (".aggregate.json", ".md", ".html")} <= names


def test_local_json_holds_the_ids(reports):
    """The check below is meaningful: the ids are in the run's private file."""
    local = json.loads((reports["out"] / "full.local.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in local["cases"]} == set(_secret_ids(10)) | {f"case-{SECRET}-lonely"}


def test_no_case_id_in_any_aggregate_markdown_html_or_console_output(reports):
    texts = _shareable(reports)
    assert len(texts) >= 6 + 2 + 2
    ids = _secret_ids(10) + [f"case-{SECRET}-lonely"]
    for name, text in texts.items():
        assert SECRET not in text, f"{name} leaks a case id"
        for cid in ids:
            for form in (cid, html.escape(cid), json.dumps(cid)[1:-1]):
                assert form not in text, f"{name} leaks {cid!r}"


def test_no_answer_text_in_shareable_outputs(reports):
    for name, text in _shareable(reports).items():
        assert ANSWER_MARK not in text, f"{name} leaks answer text"


def test_aggregate_json_has_no_id_fields(reports):
    def walk(obj, path="$"):
        if isinstance(obj, dict):
            for k, v in obj.items():
                assert k not in {"id", "ids", "case_id", "cases"}, f"{path}.{k}"
                walk(v, f"{path}.{k}")
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, f"{path}[{i}]")

    for name in ("plain", "full"):
        walk(json.loads((reports["out"] / f"{name}.aggregate.json").read_text(encoding="utf-8")))
