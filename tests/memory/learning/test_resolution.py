"""Reranker resolution (pure, injected device facts), settings, blend/normalisation, floors and the
failure fallback — all without loading a model; plus: memory search imports no torch when no
reranker is configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.memory import MemorySettings, MemoryStore
from assay.memory.config import RerankerSettings
from assay.memory.learning.rerankers import CARD_NAME, blend_scores, minmax, rerank_hits
from assay.memory.learning.resolution import (
    DeviceFacts,
    configured_reranker,
    load_reranker,
    resolve_reranker,
    student_ready,
)

HASHING = MemorySettings(embedder="hashing")
NO_GPU = DeviceFacts()
BIG_GPU = DeviceFacts(cuda=True, vram_gb=24.0, name="test-gpu")
SMALL_GPU = DeviceFacts(cuda=True, vram_gb=4.0, name="test-gpu-4gb")


def _student(tmp_path: Path) -> str:
    d = tmp_path / "student"
    d.mkdir()
    (d / "config.json").write_text("{}")
    (d / CARD_NAME).write_text(json.dumps({"model_id": "student-x", "created_at": "2026-01-01T00:00:00Z"}))
    return str(d)


# -- resolution ------------------------------------------------------------------------------


def test_nothing_configured_resolves_to_none_and_the_composite():
    r = resolve_reranker(RerankerSettings(), BIG_GPU, student_present=False)
    assert r.kind == "none" and r.path is None and "composite" in r.reason


def test_large_on_cuda_needs_the_vram_threshold():
    s = RerankerSettings(small_model="/m/small", large_model="/m/large", large_floor=0.3, small_floor=-1.0)
    big = resolve_reranker(s, BIG_GPU, student_present=False)
    assert (big.kind, big.path, big.device, big.floor) == ("large", "/m/large", "cuda", 0.3)
    exactly = resolve_reranker(s, DeviceFacts(cuda=True, vram_gb=6.0), student_present=False)
    assert exactly.kind == "large"  # >= the threshold
    small = resolve_reranker(s, SMALL_GPU, student_present=False)
    assert (small.kind, small.device, small.floor) == ("small", "cpu", -1.0) and "4.0 GB < 6 GB" in small.reason
    assert resolve_reranker(s, NO_GPU, student_present=False).kind == "small"
    assert resolve_reranker(s.with_(gpu=False), BIG_GPU, student_present=False).kind == "small"
    assert resolve_reranker(s.with_(min_vram_gb=32), BIG_GPU, student_present=False).kind == "small"


def test_large_only_without_a_gpu_serves_nothing():
    r = resolve_reranker(RerankerSettings(large_model="/m/large"), NO_GPU, student_present=False)
    assert r.kind == "none" and "no CUDA device" in r.reason


def test_student_overrides_both_with_its_floor_off_by_default():
    s = RerankerSettings(
        student_dir="/s", small_model="/m/small", large_model="/m/large", small_floor=0.1, large_floor=0.2
    )
    r = resolve_reranker(s, BIG_GPU, student_present=True)
    assert (r.kind, r.path, r.device, r.floor, r.blend_weight) == ("student", "/s", "cuda", None, 0.5)
    assert resolve_reranker(s, NO_GPU, student_present=True).device == "cpu"
    assert resolve_reranker(s, BIG_GPU, student_present=False).kind == "large"  # configured but not (yet) deployed


def test_settings_from_env_and_bad_values():
    s = RerankerSettings.from_env(
        {
            "ASSAY_RERANKER_SMALL": "/m/s",
            "ASSAY_RERANKER_GPU": "0",
            "ASSAY_RERANKER_BLEND": "0.7",
            "ASSAY_RERANKER_FLOOR_STUDENT": "-2.5",
            "ASSAY_RERANKER_MIN_VRAM_GB": "8",
            "ASSAY_RERANKER_INT8": "off",
        }
    )
    assert (s.small_model, s.gpu, s.blend_weight, s.student_floor, s.min_vram_gb, s.int8) == (
        "/m/s",
        False,
        0.7,
        -2.5,
        8.0,
        False,
    )
    assert RerankerSettings.from_env({}) == RerankerSettings()
    with pytest.raises(ValueError, match="ASSAY_RERANKER_BLEND='lots'"):
        RerankerSettings.from_env({"ASSAY_RERANKER_BLEND": "lots"})
    with pytest.raises(ValueError, match="blend_weight must be in"):
        RerankerSettings.from_env({"ASSAY_RERANKER_BLEND": "1.5"})
    with pytest.raises(ValueError, match="ASSAY_RERANKER_GPU"):
        RerankerSettings.from_env({"ASSAY_RERANKER_GPU": "maybe"})


def test_student_ready_needs_card_and_config(tmp_path):
    assert not student_ready(None) and not student_ready(tmp_path / "nope")
    d = tmp_path / "half"
    d.mkdir()
    (d / "config.json").write_text("{}")
    assert not student_ready(d)
    assert student_ready(_student(tmp_path))


def test_configured_reranker_none_without_config_and_resolved_with_a_student(tmp_path):
    assert configured_reranker(RerankerSettings()) is None
    assert configured_reranker(RerankerSettings(student_dir=str(tmp_path / "empty"))) is None
    r = configured_reranker(RerankerSettings(student_dir=_student(tmp_path), gpu=False))
    assert r is not None and r.kind == "student" and r.model == "student-x-int8" and r.floor is None  # not loaded yet
    fp32 = configured_reranker(RerankerSettings(student_dir=str(tmp_path / "student"), gpu=False, int8=False))
    assert fp32 is not None and fp32.model == "student-x"


def test_builtin_auto_name_explains_what_to_set(monkeypatch):
    for k in list(os.environ):
        if k.startswith("ASSAY_RERANKER_"):
            monkeypatch.delenv(k)
    with pytest.raises(ValueError, match="ASSAY_RERANKER_STUDENT"):
        load_reranker("auto")


def test_memory_search_imports_no_torch_without_a_reranker(tmp_path):
    code = (
        "import sys\nfrom assay.memory import MemoryStore, MemorySettings\n"
        f"s = MemoryStore('sqlite:///{tmp_path / 'm.db'}', settings=MemorySettings(embedder='hashing'))\n"
        "s.add([{'id': 'a', 'text': 'alpha beta'}, {'id': 'b', 'text': 'gamma delta'}])\n"
        "assert [h.memory.id for h in s.search('alpha', 2)][0] == 'a'\n"
        "assert s.reranker is None\n"
        "bad = [m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_RERANKER_")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr


# -- blend, floors, fallback -----------------------------------------------------------------


def test_minmax_single_and_constant_are_not_zero():
    assert minmax([3.7]) == [1.0]
    assert minmax([2.0, 2.0]) == [1.0, 1.0]
    assert minmax([]) == []
    assert minmax([1.0, 3.0, 2.0]) == [0.0, 1.0, 0.5]


def test_blend_weights_and_errors():
    assert blend_scores([10.0, 0.0], [0.0, 1.0], 1.0) == [1.0, 0.0]
    assert blend_scores([10.0, 0.0], [0.0, 1.0], 0.0) == [0.0, 1.0]
    assert blend_scores([10.0, 0.0], [0.0, 1.0], 0.5) == [0.5, 0.5]
    assert blend_scores([5.0], [0.3], 0.5) == [1.0]  # a lone candidate keeps its full blended score
    with pytest.raises(ValueError, match="as many"):
        blend_scores([1.0], [1.0, 2.0], 0.5)
    with pytest.raises(ValueError, match="weight"):
        blend_scores([1.0], [1.0], 1.5)


class Scripted:
    """A reranker returning given scores (or failing), with the pool step of assay.memory.learning.rerankers."""

    model = "scripted-v1"

    def __init__(self, scores=None, exc=None, blend_weight=0.5, floor=None):
        self.scores, self.exc, self.blend_weight, self.floor = scores, exc, blend_weight, floor
        self.calls = 0

    def rerank(self, query, memories):
        self.calls += 1
        if self.exc:
            raise self.exc
        return self.scores(memories) if callable(self.scores) else self.scores

    def rerank_pool(self, query, pool, k):
        return rerank_hits(self, query, pool, k, blend_weight=self.blend_weight, floor=self.floor)


@pytest.fixture()
def pool(tmp_path):
    s = MemoryStore(f"sqlite:///{tmp_path / 'p.db'}", settings=HASHING.with_(rerank_depth=4))
    s.add([{"id": f"m{i}", "text": "budget " * (5 - i) + f"note {i}"} for i in range(4)])
    return s.rank("budget", 4)


@pytest.mark.parametrize("bad", [RuntimeError("model crashed"), "short", "nan"])
def test_failure_falls_back_to_composite_order_and_leaves_the_pool_unchanged(pool, bad):
    before = [h.model_copy() for h in pool]
    r = Scripted(exc=bad) if isinstance(bad, Exception) else Scripted([1.0] if bad == "short" else [float("nan")] * 4)
    out = rerank_hits(r, "budget", pool, 3, blend_weight=0.5, floor=None)
    assert [h.memory.id for h in out] == [h.memory.id for h in pool[:3]]
    assert [h.score for h in out] == [h.score for h in pool[:3]] and all(h.reranker_model is None for h in out)
    assert pool == before  # the caller's candidate list is untouched


def test_blend_orders_by_model_and_composite_and_records_both(pool):
    reverse = Scripted([0.0, 1.0, 2.0, 3.0], blend_weight=1.0)
    out = rerank_hits(reverse, "q", pool, 4, blend_weight=1.0, floor=None)
    assert [h.memory.id for h in out] == [h.memory.id for h in pool[::-1]]
    top = out[0]
    assert (
        top.reranker_model == "scripted-v1"
        and top.components["reranker"] == 3.0
        and top.components["composite"] == pool[-1].score
    )
    assert top.score == 1.0
    mirror = Scripted([-h.score for h in pool])
    half = rerank_hits(mirror, "q", pool, 4, blend_weight=0.5, floor=None)
    # a model that mirrors the composite cancels it at w = 0.5: all tie at 0.5, ties keep composite order
    assert [h.memory.id for h in half] == [h.memory.id for h in pool] and {round(h.score, 9) for h in half} == {0.5}
    comp_only = rerank_hits(reverse, "q", pool, 4, blend_weight=0.0, floor=None)
    assert [h.memory.id for h in comp_only] == [h.memory.id for h in pool]


def test_floor_drops_below_the_raw_score(pool):
    out = rerank_hits(Scripted([5.0, -1.0, 2.0, -3.0]), "q", pool, 4, blend_weight=1.0, floor=0.0)
    assert [h.memory.id for h in out] == [pool[0].memory.id, pool[2].memory.id]
    assert rerank_hits(Scripted([-5.0] * 4), "q", pool, 4, blend_weight=1.0, floor=0.0) == []


def test_single_candidate_keeps_a_nonzero_score(pool):
    out = rerank_hits(Scripted([-7.0]), "q", pool[:1], 5, blend_weight=0.5, floor=None)
    assert len(out) == 1 and out[0].score == 1.0


def test_search_uses_the_pool_step_and_logs_it(tmp_path):
    from sqlalchemy import select

    from assay.memory.tables import memory_deliveries

    seen = []
    r = Scripted(lambda mems: seen.append(len(mems)) or [float(len(m.text)) * -1 for m in mems], blend_weight=1.0)
    s = MemoryStore(f"sqlite:///{tmp_path / 's.db'}", settings=HASHING, reranker=r)
    s.add(
        [{"id": "long", "text": "alpha " * 12}, {"id": "short", "text": "alpha beta"}]
        + [{"id": f"o{i}", "text": f"alpha other {i}"} for i in range(6)]
    )
    res = s.search("alpha", 2)
    assert [h.memory.id for h in res][0] == "short" and r.calls == 1
    assert seen == [8]  # the whole over-fetched pool (depth 50 here: all 8), not the top k = 2
    with s.engine.connect() as conn:
        rows = conn.execute(select(memory_deliveries).order_by(memory_deliveries.c.rank)).all()
    assert rows[0].reranker_model == "scripted-v1" and {"composite", "reranker"} <= set(rows[0].score_components)
    broken = MemoryStore(
        f"sqlite:///{tmp_path / 's.db'}", settings=HASHING, reranker=Scripted(exc=RuntimeError("boom"))
    )
    res2 = broken.search("alpha", 2)
    assert [h.memory.id for h in res2] == [h.memory.id for h in broken.rank("alpha", 2, ranker="composite")]
    assert all(h.reranker_model is None for h in res2)
