"""Training a real student from the packaged MiniLM on tiny synthetic labels (a few dozen pairs,
1 epoch, max_length 32), the gate around it, the CLI's exit codes, and serving the deployed
student in memory search (loaded once per process, int8 optional)."""

from __future__ import annotations

import json
import os
import sys

import pytest
from typer.testing import CliRunner

from rerank_labels import label_records, write_labels

if os.environ.get("CI") != "true":  # under CI the 'ml' extra is installed and its absence must fail
    pytest.importorskip("sentence_transformers")

from assay.memory import MemorySettings, MemoryStore  # noqa: E402
from assay.memory.config import RerankerSettings  # noqa: E402
from assay.memory.learning import deploy as deploy_mod  # noqa: E402
from assay.memory.learning.deploy import train_and_deploy  # noqa: E402
from assay.memory.learning.rerankers import CARD_NAME, CrossEncoderReranker, load_cross_encoder  # noqa: E402
from assay.memory.learning.resolution import DeviceFacts, configured_reranker, student_ready  # noqa: E402
from assay.memory.learning.train import TrainConfig, train_device  # noqa: E402

TINY = TrainConfig(max_length=32, lr=1e-4, batch_size=8, epochs=1, threads=1)
CPU = DeviceFacts()


def _app():
    from assay.cli import app

    return app


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """One student trained and deployed over the composite incumbent (no composite recorded: ties)."""
    root = tmp_path_factory.mktemp("student")
    labels = write_labels(root / "labels.jsonl", label_records(24, composite="none"))
    calls = []
    real_gate = deploy_mod.gate

    def spy(pairs, incumbent, candidate, **kw):
        calls.append((list(pairs), dict(incumbent), dict(candidate)))
        return real_gate(pairs, incumbent, candidate, **kw)

    deploy_mod.gate = spy
    try:
        rep = train_and_deploy(
            labels,
            root / "student",
            config=TINY,
            settings=RerankerSettings(gpu=False),
            split_by="scope",
            holdout=0.34,
            device_facts=CPU,
        )
    finally:
        deploy_mod.gate = real_gate
    return root, rep, calls


def test_student_beats_the_composite_and_is_installed_with_a_card(deployed):
    root, rep, calls = deployed
    d = rep.decision
    assert d.incumbent == "composite" and d.incumbent_agreement == 0.5  # no composite recorded: every pair a tie
    assert d.deployed and d.candidate_agreement >= 0.9 and d.auto_promote_safe
    assert student_ready(root / "student")
    card = json.loads((root / "student" / CARD_NAME).read_text())
    assert card["base_model"].startswith("all-MiniLM-L6-v2") and "untrained" in card["head"]
    assert card["split"] == {"by": "scope", "holdout": 0.34, "seed": 0}
    assert card["data"]["heldout_pairs"] == d.n_pairs and card["gate"]["candidate_agreement"] == d.candidate_agreement
    assert card["training"]["max_length"] == 32 and card["training"]["head_untrained_at_start"] is True
    assert not any(p.name.startswith(".student.") for p in root.iterdir())  # staging cleaned up


def test_embeddings_stay_frozen_and_the_encoder_moves(deployed):
    from safetensors.torch import load_file

    from assay.memory.retrieval.embeddings import minilm_model_dir

    root, _rep, _ = deployed
    base = load_file(str(minilm_model_dir() / "model.safetensors"))
    student = load_file(str(root / "student" / "model.safetensors"))
    word = next(k for k in student if k.endswith("embeddings.word_embeddings.weight"))
    assert (student[word] == base[next(k for k in base if k.endswith("embeddings.word_embeddings.weight"))]).all()
    q = next(k for k in student if k.endswith("encoder.layer.5.attention.self.query.weight"))
    assert not (
        student[q] == base[next(k for k in base if k.endswith("encoder.layer.5.attention.self.query.weight"))]
    ).all()


def test_incumbent_and_candidate_see_identical_pairs(deployed):
    _root, rep, calls = deployed
    ((pairs, inc, cand),) = calls
    keys = {(p.query_id, it.memory_id) for p in pairs for it in (p.pos, p.neg)}
    assert set(inc) == set(cand) == keys and len(pairs) == rep.decision.n_pairs
    assert all(p.source == "grade" for p in pairs)


def test_cli_not_deployed_against_a_perfect_composite_and_bad_input(tmp_path):
    runner = CliRunner()
    app = _app()
    labels = write_labels(tmp_path / "labels.jsonl", label_records(24, composite="perfect"))
    args = [
        "memory",
        "train",
        "--labels",
        str(labels),
        "--out",
        str(tmp_path / "s"),
        "--split-by",
        "scope",
        "--holdout",
        "0.34",
        "--max-length",
        "32",
        "--batch-size",
        "8",
        "--lr",
        "1e-4",
        "--threads",
        "1",
        "--device",
        "cpu",
        "--keep-candidate",
        str(tmp_path / "rejected"),
    ]
    r = runner.invoke(app, args, env={"ASSAY_RERANKER_GPU": "0"})
    assert r.exit_code == 1, r.output
    assert "incumbent composite: held-out pairwise agreement 1.000" in r.output and "not deployed" in r.output
    assert not (tmp_path / "s").exists()
    card = json.loads((tmp_path / "rejected" / CARD_NAME).read_text())  # the rejected candidate, kept on request
    assert card["gate"]["deployed"] is False and card["gate"]["incumbent_agreement"] == 1.0
    tied = write_labels(tmp_path / "tied.jsonl", [x | {"grade": 1} for x in label_records(4)])
    r = runner.invoke(app, ["memory", "train", "--labels", str(tied), "--out", str(tmp_path / "s")])
    assert r.exit_code == 3 and "too few labels to train: no grade pairs" in r.output  # exit-code table: 3
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "precious.txt").write_text("x")
    r = runner.invoke(app, ["memory", "train", "--labels", str(labels), "--out", str(tmp_path / "busy")])
    assert r.exit_code == 2 and "not a deployed student" in r.output
    r = runner.invoke(app, ["memory", "train", "--labels", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "s")])
    assert r.exit_code == 2 and "no such file" in r.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "q"}\n')
    r = runner.invoke(app, ["memory", "train", "--labels", str(bad), "--out", str(tmp_path / "s")])
    assert r.exit_code == 2 and f"{bad}:1: query: required field is missing" in r.output


def test_cli_retrain_faces_the_deployed_student_as_incumbent(deployed, tmp_path):
    root, _rep, _ = deployed
    labels = write_labels(tmp_path / "labels.jsonl", label_records(24, composite="none"))
    r = CliRunner().invoke(
        _app(),
        [
            "memory",
            "train",
            "--labels",
            str(labels),
            "--out",
            str(root / "student"),
            "--split-by",
            "scope",
            "--holdout",
            "0.34",
            "--max-length",
            "32",
            "--batch-size",
            "8",
            "--lr",
            "1e-4",
            "--threads",
            "1",
            "--json",
        ],
        env={"ASSAY_RERANKER_GPU": "0"},
    )
    assert r.exit_code in (0, 1), r.output
    rep = json.loads(r.stdout)
    assert rep["decision"]["incumbent"].startswith("student:student-")
    assert rep["decision"]["deployed"] is (r.exit_code == 0)
    assert student_ready(root / "student")  # deployed or not, a student stays in place


def test_search_serves_the_deployed_student_loaded_once(deployed, tmp_path, monkeypatch):
    from sqlalchemy import select

    from assay.memory.tables import memory_deliveries

    root, rep, _ = deployed
    monkeypatch.setenv("ASSAY_RERANKER_STUDENT", str(root / "student"))
    monkeypatch.setenv("ASSAY_RERANKER_GPU", "0")
    store = MemoryStore(f"sqlite:///{tmp_path / 'm.db'}", settings=MemorySettings(embedder="hashing"))
    store.add(
        [
            {"id": "c", "text": "note: the coffee espresso matters, grinder too"},
            {"id": "d", "text": "note: the dog leash matters"},
            {"id": "t", "text": "note: the tax refund matters"},
        ]
    )
    model_id = json.loads((root / "student" / CARD_NAME).read_text())["model_id"]
    before = load_cross_encoder.cache_info()
    res = store.search("what do I know about the coffee and the latte?", 3)
    assert res.hits[0].memory.id == "c" and {h.reranker_model for h in res} == {
        model_id + "-int8"
    }  # int8 on CPU by default
    again = MemoryStore(f"sqlite:///{tmp_path / 'm.db'}", settings=MemorySettings(embedder="hashing"))
    again.search("the dog and the puppy", 2)
    after = load_cross_encoder.cache_info()
    assert after.misses - before.misses <= 1 and after.hits > before.hits  # one load per process
    with store.engine.connect() as conn:
        comps = [r.score_components for r in conn.execute(select(memory_deliveries))]
    assert all({"reranker", "composite"} <= set(c) for c in comps)
    r = configured_reranker(RerankerSettings(student_dir=str(root / "student"), gpu=False, int8=False))
    assert r is not None and r.model == model_id
    q = "what do I know about the dog and the kennel?"
    scores = r.rerank(q, ["note: the dog puppy matters", "note: the tax filing matters"])
    assert scores[0] > scores[1]


def test_cli_evaluate_with_the_auto_reranker(deployed, tmp_path):
    root, _rep, _ = deployed
    mem = tmp_path / "m.jsonl"
    mem.write_text(
        "".join(
            json.dumps(m) + "\n"
            for m in [
                {"id": "c", "text": "note: the coffee espresso matters, grinder too"},
                {"id": "d", "text": "note: the dog leash matters"},
                {"id": "t", "text": "note: the tax refund matters"},
            ]
        )
    )
    q = tmp_path / "q.jsonl"
    q.write_text(
        json.dumps({"id": "q1", "query": "what do I know about the coffee and the latte?", "relevant": ["c"]}) + "\n"
    )
    db = f"sqlite:///{tmp_path / 'e.db'}"
    env = {
        "ASSAY_RERANKER_STUDENT": str(root / "student"),
        "ASSAY_RERANKER_GPU": "0",
        "ASSAY_MEMORY_EMBEDDER": "hashing",
    }
    runner, app = CliRunner(), _app()
    assert runner.invoke(app, ["--db", db, "memory", "add", str(mem)], env=env).exit_code == 0
    r = runner.invoke(
        app, ["--db", db, "memory", "evaluate", str(q), "--ranker", "reranker", "--reranker", "auto", "--json"], env=env
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["recall@10"] == 1.0


def test_train_device_is_a_pure_choice():
    assert train_device("auto", DeviceFacts()) == "cpu"
    assert train_device("auto", DeviceFacts(cuda=True, vram_gb=8)) == "cuda"
    assert train_device("cpu", DeviceFacts(cuda=True)) == "cpu"
    with pytest.raises(ValueError, match="no CUDA"):
        train_device("cuda", DeviceFacts())


def test_loading_prints_nothing(tmp_path, capfd):
    from assay.memory.retrieval.embeddings import minilm_model_dir

    load_cross_encoder.cache_clear()
    ce = load_cross_encoder(str(minilm_model_dir()), "cpu", 32, False, 1, "")
    assert ce is load_cross_encoder(str(minilm_model_dir()), "cpu", 32, False, 1, "")
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert "torch" in sys.modules
    with pytest.raises(ValueError, match="not a model folder"):
        load_cross_encoder(str(tmp_path), "cpu", 32, False, None, "")
    assert CrossEncoderReranker  # exported


def test_cli_train_takes_the_student_folder_from_reranker_settings(tmp_path, monkeypatch):
    """ASSAY_RERANKER_STUDENT is read through RerankerSettings (the one place env is read), not os.environ."""
    labels = write_labels(tmp_path / "labels.jsonl", label_records(4))
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "precious.txt").write_text("x")
    monkeypatch.delenv("ASSAY_RERANKER_STUDENT", raising=False)
    r = CliRunner().invoke(_app(), ["memory", "train", "--labels", str(labels)])
    assert r.exit_code == 2 and "give --out DIR (the student folder) or set ASSAY_RERANKER_STUDENT" in r.output
    r = CliRunner().invoke(
        _app(), ["memory", "train", "--labels", str(labels)], env={"ASSAY_RERANKER_STUDENT": str(busy)}
    )
    assert r.exit_code == 2 and f"{busy}: exists and is not a deployed student" in r.output
    r = CliRunner().invoke(_app(), ["memory", "train", "--labels", str(labels)], env={"ASSAY_RERANKER_INT8": "maybe"})
    assert r.exit_code == 2 and "ASSAY_RERANKER_INT8='maybe'" in r.output
