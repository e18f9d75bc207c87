"""The reranker model registry: register, deploy (one pointer per host), rollback, floors, and a
store that follows the pointer without a restart. Fast: model folders are stand-ins (card +
config), no model is loaded."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from assay.memory import MemorySettings, MemoryStore
from assay.memory.config import RerankerSettings
from assay.memory.learning.registry import (
    ModelRecord,
    RegistryError,
    deploy,
    deployed_model,
    get_model,
    list_models,
    register,
    rollback,
    set_floor,
)
from assay.memory.learning.rerankers import CARD_NAME
from assay.memory.learning.serving import RegistryReranker, registry_reranker
from assay.storage import make_engine

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def folder(tmp_path, version):
    p = tmp_path / "models" / version
    p.mkdir(parents=True)
    (p / "config.json").write_text("{}")
    (p / CARD_NAME).write_text(json.dumps({"model_id": version}))
    return str(p)


def record(tmp_path, version, *, status="candidate", minutes=0, path=True):
    return ModelRecord(
        version=version,
        path=folder(tmp_path, version) if path else None,
        host="h1",
        base_model="all-MiniLM-L6-v2",
        trained_at=T0 + timedelta(minutes=minutes),
        labels_used=96,
        label_watermark=T0,
        label_digest="ab" * 32,
        heldout_pairs=40,
        incumbent="composite",
        incumbent_agreement=0.5,
        candidate_agreement=0.9,
        margin=0.4,
        margin_ci_lo=0.3,
        margin_ci_hi=0.5,
        deploy_margin=0.02,
        status=status,
    )


@pytest.fixture()
def engine(db_url):
    e = make_engine(db_url)
    yield e
    e.dispose()


def test_deploy_flips_one_pointer_per_host_and_retires_the_previous(engine, tmp_path):
    register(engine, record(tmp_path, "m1"))
    register(engine, record(tmp_path, "m2", minutes=5))
    deploy(engine, "m1", "h1")
    deploy(engine, "m1", "h2")
    deploy(engine, "m2", "h1")
    assert deployed_model(engine, "h1").version == "m2"
    assert deployed_model(engine, "h2").version == "m1"
    assert get_model(engine, "m1").status == "deployed"  # h2 still serves it
    deploy(engine, "m2", "h2")
    assert get_model(engine, "m1").status == "retired"
    assert [m.version for m in list_models(engine)] == ["m2", "m1"]


def test_rollback_restores_a_retired_model_with_its_floor(engine, tmp_path):
    register(engine, record(tmp_path, "m1"))
    register(engine, record(tmp_path, "m2", minutes=5))
    deploy(engine, "m1", "h1")
    set_floor(engine, "m1", 0.25, labels=30, detail={"status": "ok"})
    deploy(engine, "m2", "h1")
    rolled = rollback(engine, "m1", "h1")
    assert rolled.status == "deployed" and rolled.floor == 0.25 and rolled.floor_labels == 30
    assert get_model(engine, "m2").status == "retired"


def test_refusals_name_the_problem(engine, tmp_path):
    register(engine, record(tmp_path, "ok"))
    register(engine, record(tmp_path, "bad", status="rejected", path=False))
    with pytest.raises(RegistryError, match=r"no reranker model 'nope'.*known: .*ok"):
        deploy(engine, "nope", "h1")
    with pytest.raises(RegistryError, match="rejected by the gate"):
        deploy(engine, "bad", "h1")
    with pytest.raises(RegistryError, match="never deployed"):
        rollback(engine, "ok", "h1")
    gone = record(tmp_path, "gone")
    register(engine, gone)
    (tmp_path / "models" / "gone" / CARD_NAME).unlink()  # another host's folder, or a half-copied one
    with pytest.raises(RegistryError, match="not on this host"):
        deploy(engine, "gone", "h1")
    assert deployed_model(engine, "h1") is None


def test_a_served_store_follows_the_pointer_without_a_restart(db_url, tmp_path):
    engine = make_engine(db_url)
    register(engine, record(tmp_path, "m1"))
    register(engine, record(tmp_path, "m2", minutes=5))
    deploy(engine, "m1", "h1")
    now = [0.0]
    settings = RerankerSettings(gpu=False, int8=False, registry_check_s=2.0, apply_floor=True)
    served = RegistryReranker(engine, "h1", settings, deployed_model(engine, "h1"), clock=lambda: now[0])
    assert served.model == "m1"
    deploy(engine, "m2", "h1")
    set_floor(engine, "m2", 0.4, labels=10, detail={})
    assert served.model == "m1"  # not re-read before registry_check_s
    now[0] = 2.5
    assert served.model == "m2" and served.version == "m2"
    rollback(engine, "m1", "h1")
    now[0] = 5.0
    assert served.version == "m1"
    engine.dispose()


def test_memory_store_serves_the_registry_model_for_its_host(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOST_ID", "h1")
    monkeypatch.setenv("ASSAY_RERANKER_INT8", "0")
    monkeypatch.setenv("ASSAY_RERANKER_GPU", "0")
    store = MemoryStore(db_url, settings=MemorySettings(embedder="hashing"))
    assert store.resolve_reranker() is None  # nothing deployed, nothing configured
    register(store.engine, record(tmp_path, "m1"))
    deploy(store.engine, "m1", "h1")
    served = store.resolve_reranker()
    assert isinstance(served, RegistryReranker) and served.model == "m1"
    monkeypatch.setenv("ASSAY_HOST_ID", "elsewhere")
    assert registry_reranker(store.engine, "elsewhere", RerankerSettings()) is None
