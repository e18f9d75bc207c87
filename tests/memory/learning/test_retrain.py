"""``retrain``: label-volume gate, the beat-the-incumbent gate through the registry, rollback, and
the lock — a real student trained from the packaged MiniLM on tiny synthetic labels written as
real delivery-log rows, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import threading

import pytest

if os.environ.get("CI") != "true":  # under CI the 'ml' extra is installed and its absence must fail
    pytest.importorskip("sentence_transformers")

from assay.memory.config import RerankerSettings  # noqa: E402
from assay.memory.learning.registry import deployed_model, get_model, list_models, rollback  # noqa: E402
from assay.memory.learning.resolution import DeviceFacts  # noqa: E402
from assay.memory.learning.retrain import retrain, retrain_lock  # noqa: E402
from assay.memory.learning.train import TrainConfig  # noqa: E402
from registry_fixtures import add_graded, graded_store, shuffle_all_grades  # noqa: E402

pytestmark = pytest.mark.slow

TINY = TrainConfig(max_length=32, lr=1e-4, batch_size=8, epochs=1, threads=1)
OPTS = dict(
    config=TINY,
    settings=RerankerSettings(gpu=False, int8=False),
    split_by="scope",
    holdout=0.34,
    device_facts=DeviceFacts(),
    host="h1",
)


def test_retrain_deploys_rejects_noise_and_rolls_back(db_url, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOST_ID", "h1")
    monkeypatch.setenv("ASSAY_RERANKER_INT8", "0")
    monkeypatch.setenv("ASSAY_RERANKER_GPU", "0")
    monkeypatch.setenv("ASSAY_RERANKER_REGISTRY_CHECK_S", "0")
    store = graded_store(db_url)
    models = tmp_path / "models"

    few = retrain(store, models, min_new_labels=500, **OPTS)
    assert few.status == "nothing_to_do" and few.new_labels == 96 and few.exit_code == 0

    first = retrain(store, models, min_new_labels=50, **OPTS)
    assert first.status == "deployed", first.message
    assert first.decision["incumbent"] == "composite" and first.exit_code == 0
    m1 = get_model(store.engine, first.version)
    assert m1.status == "deployed" and m1.labels_used == 96 and m1.folder_ready()
    assert deployed_model(store.engine, "h1").version == first.version

    again = retrain(store, models, min_new_labels=50, **OPTS)
    assert again.status == "nothing_to_do" and again.new_labels == 0  # idempotent: no new labels

    shuffle_all_grades(store, seed=1)  # every label now says nothing
    noisy = retrain(store, models, min_new_labels=50, **OPTS)
    assert noisy.status == "rejected", noisy.message
    assert noisy.exit_code == 1 and noisy.decision["incumbent"].startswith("student:")
    assert get_model(store.engine, noisy.version).status == "rejected"
    assert get_model(store.engine, noisy.version).path is None  # the rejected folder is not kept
    assert deployed_model(store.engine, "h1").version == first.version

    add_graded(store, seed=2, prefix="fresh-")
    add_graded(store, seed=3, prefix="fresh2-")
    # the plain margin gate (as `assay memory train`), to have a second served model to roll back from
    second = retrain(store, models, min_new_labels=50, deploy_margin=0.0, require_ci=False, **OPTS)
    assert second.status == "deployed", second.message
    hits = store.search("what do I know about the coffee and the latte?", k=2)
    assert hits.hits and _served_model(store, hits.search_id) == second.version

    rollback(store.engine, first.version, "h1")
    hits = store.search("what do I know about the dog and the leash?", k=2)
    assert _served_model(store, hits.search_id) == first.version
    assert {m.version: m.status for m in list_models(store.engine)}[second.version] == "retired"


def test_a_second_run_exits_locked_while_one_trains(db_url, tmp_path):
    store = graded_store(db_url)
    models = tmp_path / "models"
    held, release = threading.Event(), threading.Event()

    def hold():
        with retrain_lock(store.engine, models, wait=False):
            held.set()
            release.wait(60)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(30)
        r = retrain(store, models, min_new_labels=1, **OPTS)
        assert r.status == "locked" and r.exit_code == 0 and "lock" in r.message
    finally:
        release.set()
        t.join()
    results = []
    barrier = threading.Barrier(2)

    def run():
        barrier.wait()
        results.append(retrain(store, models, min_new_labels=1, **OPTS).status)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(results) == ["deployed", "locked"]
    assert len([m for m in list_models(store.engine) if m.status == "deployed"]) == 1


def _served_model(store, search_id: str) -> str:
    from sqlalchemy import select

    from assay.memory.tables import memory_deliveries as d

    with store.engine.connect() as conn:
        models = conn.execute(select(d.c.reranker_model).where(d.c.search_id == search_id)).scalars().all()
    assert len(set(models)) == 1
    return models[0]
