"""Schema 1 result files stay byte-compatible: stored files of each kind are re-produced exactly.

``tests/data/results_schema1/`` holds a small deterministic input (synthetic eval cases; synthetic
agent traces and their eval summary) and the files assay wrote from it when schema 1 was first
typed: ``eval.local.json`` / ``eval.aggregate.json`` (``assay eval`` with the stub judge, a
baseline and human labels), ``rationality.*`` (the stub backend) and ``rationality-heuristic.*``
(the heuristic backend, whose records carry ``details``), with the ``NAME.md`` rendered from each
aggregate. The tests check that today's writers re-produce the rationality files byte for byte
from the same input, and that the eval files (eval now writes schema 2) still load, dump back to
the same bytes and render, their ``composite`` being schema 2's ``composite_answered``.

Regenerate (only on a deliberate change of the files, with a new schema number when the meaning
changes): ``PYTHONPATH=src python tests/results/test_schema1.py`` (rewrites the rationality files
and every ``NAME.md``; the eval JSON files are schema 1 as last written and stay).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from assay.atomic import dumps_json
from assay.cases import load_cases
from assay.evaluate import EvalConfig, run_eval
from assay.judges.rationality import judge_rationality
from assay.reports import render_markdown
from assay.results import (
    EvalAggregateV1,
    EvalCaseRecord,
    EvalLocalV1,
    RationalityAggregateV1,
    RationalityCaseRecord,
    RationalityLocalV1,
    ResultModel,
    load_aggregate,
    load_local,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "results_schema1"
#: Stored file stems (how each was made: :func:`produce`).
STEMS = ("eval", "rationality", "rationality-heuristic")
#: Stems today's writers still write as schema 1.
WRITTEN = ("rationality", "rationality-heuristic")
#: Stem → (local model, case record model, aggregate model) its files must load into.
MODELS = {
    "eval": (EvalLocalV1, EvalCaseRecord, EvalAggregateV1),
    "rationality": (RationalityLocalV1, RationalityCaseRecord, RationalityAggregateV1),
    "rationality-heuristic": (RationalityLocalV1, RationalityCaseRecord, RationalityAggregateV1),
}


def produce(stem: str) -> tuple[str, str]:
    """``(local JSON text, aggregate JSON text)`` of ``stem`` from the stored input, as written today."""
    if stem == "eval":
        config = EvalConfig(
            name="schema1",
            judge="stub",
            baseline="base",
            label_field="meta.human_label",
            positive="bad",
            exclude_labels=("refusal",),
            n_resamples=2000,
        )
        local, aggregate = run_eval(load_cases(DATA / "eval_cases.jsonl"), config)
    else:
        backend = "heuristic" if stem.endswith("heuristic") else "stub"
        with _cwd(DATA):  # relative summary path: the records' trace_path stays relative
            local, aggregate = judge_rationality("summary.json", backend=backend, name=stem, n_resamples=2000)
    return dumps_json(local), dumps_json(aggregate)


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any store a judge opens lands in the test's tmp dir, never in ~/.assay."""
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ASSAY_DB_URL", raising=False)


@pytest.mark.parametrize("stem", WRITTEN)
def test_writers_reproduce_the_stored_schema1_files(stem: str) -> None:
    local, aggregate = produce(stem)
    assert local == _stored(f"{stem}.local.json")
    assert aggregate == _stored(f"{stem}.aggregate.json")


def test_schema1_eval_composite_is_schema2_composite_answered() -> None:
    """Issue 16: a schema-1 file's composite is read as the answered-only composite."""
    local, aggregate = (json.loads(t) for t in produce("eval"))
    old_local, old_aggregate = (json.loads(_stored(f"eval{s}")) for s in (".local.json", ".aggregate.json"))
    assert local["schema"] == aggregate["schema"] == 2 and old_local["schema"] == 1
    new = {(r["id"], r["variant"]): r["scores"] for r in local["cases"]}
    for r in old_local["cases"]:
        scores = new[(r["id"], r["variant"])]
        assert scores["composite_answered"] == r["scores"]["composite"]
        assert scores["composite"] == (r["scores"]["composite"] if r["status"] != "no_claims" else 0.0)
    for v, stats in old_aggregate["variants"].items():
        assert aggregate["variants"][v]["dims"]["composite_answered"] == stats["dims"]["composite"]


@pytest.mark.parametrize("stem", STEMS)
def test_stored_files_load_into_their_models_and_dump_to_the_same_bytes(stem: str) -> None:
    local_model, record_model, aggregate_model = MODELS[stem]
    local = load_local(json.loads(_stored(f"{stem}.local.json")))
    aggregate = load_aggregate(json.loads(_stored(f"{stem}.aggregate.json")))
    assert type(local) is local_model and type(aggregate) is aggregate_model
    assert local.cases and all(type(r) is record_model for r in local.cases)
    assert _extra_keys(local) == _extra_keys(aggregate) == []  # every key of schema 1 is a typed field
    assert dumps_json(local.to_json()) == _stored(f"{stem}.local.json")
    assert dumps_json(aggregate.to_json()) == _stored(f"{stem}.aggregate.json")


@pytest.mark.parametrize("stem", STEMS)
def test_markdown_of_the_stored_aggregate_is_unchanged(stem: str) -> None:
    assert render_markdown(json.loads(_stored(f"{stem}.aggregate.json"))) == _stored(f"{stem}.md")


def test_stored_files_hold_no_real_data_ids() -> None:
    for path in DATA.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        assert "financebench" not in text.lower() and "tau-bench" not in text.lower(), path.name


# --- helpers -------------------------------------------------------------------------------


def _extra_keys(model: object) -> list[str]:
    """Keys kept as extras anywhere in ``model`` (a typed field would have taken them)."""
    if isinstance(model, ResultModel):
        own = list(model.model_extra or {})
        return own + [k for name in type(model).model_fields for k in _extra_keys(getattr(model, name))]
    if isinstance(model, dict):
        return [k for v in model.values() for k in _extra_keys(v)]
    if isinstance(model, list):
        return [k for v in model for k in _extra_keys(v)]
    return []


def _stored(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@contextmanager
def _cwd(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _write_all() -> None:
    """Write every stored file from the input (run as a script)."""
    for stem in STEMS:
        if stem in WRITTEN:
            local, aggregate = produce(stem)
        else:
            local, aggregate = _stored(f"{stem}.local.json"), _stored(f"{stem}.aggregate.json")
        md = render_markdown(json.loads(aggregate))
        for suffix, text in ((".local.json", local), (".aggregate.json", aggregate), (".md", md)):
            (DATA / f"{stem}{suffix}").write_text(text, encoding="utf-8")
            print(DATA / f"{stem}{suffix}")


if __name__ == "__main__":
    sys.exit(_write_all())
