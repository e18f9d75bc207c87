"""Floor calibration: known score distributions, refusal past the grade-3 drop limit, the store's
delivery log grouped by model, and the CLI (exit codes, JSON without ids)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from assay.memory import MemorySettings, MemoryStore
from assay.memory.feedback.grades import apply_grades
from assay.memory.learning.calibrate import calibrate_floor, calibrate_store, floor_point
from assay.memory.learning.rerankers import rerank_hits


def test_separable_scores_get_a_floor_that_drops_no_grade3_and_keeps_no_grade0():
    r = calibrate_floor([0.8, 0.9, 0.7], [0.1, 0.2, 0.3])
    assert r["status"] == "ok" and r["floor"] == 0.7
    assert (r["grade3_dropped"], r["grade0_kept"], r["j"]) == (0.0, 0.0, 1.0)
    assert r["n_grade3"] == 3 and r["n_grade0"] == 3 and r["curve"][0]["grade0_kept"] == 1.0


def test_optimum_dropping_too_many_grade3_is_refused_with_a_safe_alternative():
    g3 = [0.1, 0.2, 0.3, 0.9, 0.95, 0.97, 0.98, 0.99, 1.0, 1.1]  # 3 of 10 useful memories score low
    g0 = [0.0] * 5 + [0.05, 0.15, 0.25, 0.35, 0.4] * 2
    r = calibrate_floor(g3, g0)
    assert r["status"] == "refused" and r["floor"] is None
    assert r["optimum"]["floor"] == 0.9 and r["optimum"]["grade3_dropped"] == 0.3
    w = r["within_limit"]
    assert w["grade3_dropped"] <= 0.10 and w["floor"] < 0.9
    loose = calibrate_floor(g3, g0, max_grade3_drop=0.3)
    assert loose["status"] == "ok" and loose["floor"] == 0.9


def test_a_proposed_floor_is_judged_not_chosen():
    r = calibrate_floor([0.5, 0.6, 0.7, 0.8], [0.1, 0.55], proposed=0.65)
    assert r["status"] == "refused" and r["grade3_dropped"] == 0.5 and r["proposed"] == 0.65
    ok = calibrate_floor([0.5, 0.6, 0.7, 0.8], [0.1, 0.55], proposed=0.2)
    assert ok["status"] == "ok" and ok["floor"] == 0.2 and ok["grade0_kept"] == 0.5


def test_bad_inputs():
    with pytest.raises(ValueError, match="grade 3 and of grade 0"):
        calibrate_floor([], [0.1])
    with pytest.raises(ValueError, match="finite"):
        calibrate_floor([float("nan")], [0.1])
    with pytest.raises(ValueError, match="max_grade3_drop"):
        calibrate_floor([1.0], [0.0], max_grade3_drop=2)
    assert (
        floor_point(0.5, __import__("numpy").array([0.4, 0.6]), __import__("numpy").array([0.5]))["grade0_kept"] == 1.0
    )


class Fixed:
    model = "fixed-ce"

    def __init__(self, scores):
        self.scores = scores

    def rerank(self, query, memories):
        return [self.scores[m.id] for m in memories]

    def rerank_pool(self, query, pool, k):
        return rerank_hits(self, query, pool, k, blend_weight=0.5, floor=None)


@pytest.fixture()
def graded_db(tmp_path):
    url = f"sqlite:///{tmp_path / 'cal.db'}"
    mems = [{"id": f"m{i}", "text": f"project alpha budget note number {i} " + "alpha " * i} for i in range(6)]
    raw = {"m0": -2.0, "m1": -1.0, "m2": 0.5, "m3": 1.0, "m4": 2.0, "m5": 3.0}
    plain = MemoryStore(url, settings=MemorySettings(embedder="hashing"))
    plain.add(mems)
    for _ in range(2):
        res = plain.search("project alpha budget", 6)
        apply_grades(plain, res.search_id, "m5:3, m4:3, m3:3, m0:0, m1:0, m2:0")
    ce = MemoryStore(url, settings=MemorySettings(embedder="hashing"), reranker=Fixed(raw))
    res = ce.search("project alpha budget", 6)
    apply_grades(ce, res.search_id, "m5:3, m4:3, m3:3, m0:0, m1:0, m2:0")
    return url


def test_store_calibration_is_per_model_on_the_raw_score(graded_db):
    res = calibrate_store(MemoryStore(graded_db, settings=MemorySettings(embedder="hashing")))
    assert set(res["models"]) == {"composite", "fixed-ce"}
    ce = res["models"]["fixed-ce"]
    assert ce["status"] == "ok" and ce["floor"] == 1.0 and ce["grade3_dropped"] == 0.0 and ce["grade0_kept"] == 0.0
    assert res["models"]["composite"]["n_grade3"] == 6
    only = calibrate_store(MemoryStore(graded_db, settings=MemorySettings(embedder="hashing")), model="fixed-ce")
    assert list(only["models"]) == ["fixed-ce"]
    with pytest.raises(ValueError, match="no graded delivery ranked by 'nope'"):
        calibrate_store(MemoryStore(graded_db, settings=MemorySettings(embedder="hashing")), model="nope")


def test_cli_calibrate_json_text_and_exit_codes(graded_db, tmp_path):
    from assay.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["--db", graded_db, "memory", "calibrate", "--model", "fixed-ce", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["models"]["fixed-ce"]["floor"] == 1.0
    assert not re.search(r'"m\d"|search_id', r.output)  # aggregate: no memory or search ids
    r = runner.invoke(app, ["--db", graded_db, "memory", "calibrate", "--model", "fixed-ce", "--floor", "2.5"])
    assert r.exit_code == 1 and "REFUSED floor 2.5000" in r.output and "grade 3" in r.output
    r = runner.invoke(app, ["--db", graded_db, "memory", "calibrate"])
    assert r.exit_code in (0, 1) and "floor curve" in r.output
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    r = runner.invoke(app, ["--db", empty, "memory", "calibrate"])
    assert r.exit_code == 3 and "too few labels to calibrate: no graded delivery" in r.output  # table: 3


def test_cli_calibrate_with_only_grade3_labels_exits_3(tmp_path):
    """Exit-code table: calibrate 3 = too few labels (a model without both grade 3 and grade 0)."""
    from assay.cli import app

    url = f"sqlite:///{tmp_path / 'few.db'}"
    store = MemoryStore(url, settings=MemorySettings(embedder="hashing"))
    store.add([{"id": "m1", "text": "alpha budget"}, {"id": "m2", "text": "alpha plan"}])
    apply_grades(store, store.search("alpha", 2).search_id, "m1:3, m2:3")
    r = CliRunner().invoke(app, ["--db", url, "memory", "calibrate"])
    assert r.exit_code == 3, r.output
    assert "composite: cannot calibrate — 2 grade-3 and 0 grade-0 deliveries (need both)" in r.output
