"""``assay memory retrain`` and ``assay memory models …`` through the command line (no training:
the registry rows are stand-ins; training is covered by tests/memory/learning/test_retrain.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.memory.learning.registry import ModelRecord, deploy, register
from assay.memory.learning.rerankers import CARD_NAME
from assay.storage import make_engine


@pytest.fixture()
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ASSAY_HOST_ID", "h1")
    monkeypatch.setenv("ASSAY_MEMORY_EMBEDDER", "hashing")
    url = f"sqlite:///{tmp_path / 'm.db'}"
    return url


def invoke(url, *args):
    return CliRunner().invoke(app, ["--db", url, "memory", *args])


def model(tmp_path, version):
    p = tmp_path / version
    p.mkdir()
    (p / "config.json").write_text("{}")
    (p / CARD_NAME).write_text(json.dumps({"model_id": version}))
    return ModelRecord(
        version=version, path=str(p), host="h1", base_model="b", trained_at=datetime.now(UTC), labels_used=10,
        label_watermark=None, label_digest=None, heldout_pairs=4, incumbent="composite", incumbent_agreement=0.5,
        candidate_agreement=0.8, margin=0.3, margin_ci_lo=0.1, margin_ci_hi=0.5, deploy_margin=0.02,
        status="candidate",
    )  # fmt: skip


def test_retrain_without_labels_has_nothing_to_do_and_exits_0(env, tmp_path):
    r = invoke(env, "retrain", "--models-dir", str(tmp_path / "models"))
    assert r.exit_code == 0, r.output
    assert "0 new label(s)" in r.output and "nothing to do" in r.output


def test_models_list_show_rollback(env, tmp_path):
    engine = make_engine(env)
    register(engine, model(tmp_path, "m1"))
    register(engine, model(tmp_path, "m2"))
    deploy(engine, "m1", "h1")
    deploy(engine, "m2", "h1")
    engine.dispose()
    r = invoke(env, "models", "list", "--json")
    assert r.exit_code == 0 and {m["version"]: m["status"] for m in json.loads(r.stdout)} == {
        "m1": "retired",
        "m2": "deployed",
    }
    r = invoke(env, "models", "rollback", "m1")
    assert r.exit_code == 0 and "h1 serves m1 (was m2)" in r.output
    assert json.loads(invoke(env, "models", "show", "m1").stdout)["status"] == "deployed"


def test_unknown_versions_exit_2_naming_the_known(env, tmp_path):
    engine = make_engine(env)
    register(engine, model(tmp_path, "m1"))
    engine.dispose()
    for args in (("models", "show", "nope"), ("models", "rollback", "nope"), ("models", "floor", "nope")):
        r = invoke(env, *args)
        assert r.exit_code == 2 and "no reranker model 'nope'" in r.output and "m1" in r.output


def test_floor_without_graded_deliveries_exits_3(env, tmp_path):
    engine = make_engine(env)
    register(engine, model(tmp_path, "m1"))
    engine.dispose()
    r = invoke(env, "models", "floor", "m1")
    assert r.exit_code == 3 and "nothing to calibrate" in r.output
