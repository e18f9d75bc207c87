"""Issue 16 item 4: 1 <= k <= 1,000 by default, a setting raises it; a huge k delivers and logs nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from assay.memory import MemorySettings, MemoryStore
from assay.memory.config import default_settings
from assay.memory.retrieval.evaluate import Query, evaluate_retrieval
from assay.memory.tables import memory_deliveries

HASHING = MemorySettings(embedder="hashing")


@pytest.fixture()
def store(tmp_path) -> MemoryStore:
    s = MemoryStore(f"sqlite:///{tmp_path / 'k.db'}", settings=HASHING)
    s.add([{"id": f"m{i}", "text": f"budget note {i}"} for i in range(12)])
    return s


def _deliveries(s: MemoryStore) -> int:
    with s.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(memory_deliveries)).scalar_one())


@pytest.mark.parametrize("k", [0, -3, 1001, 99999999999999999999999])
def test_k_outside_the_bound_is_one_line_and_logs_nothing(store, k):
    with pytest.raises(ValueError) as e:
        store.search("budget", k)
    assert "k must be between 1 and 1,000" in str(e.value) and "\n" not in str(e.value)
    if k > 10**12:
        assert "a 23-digit number" in str(e.value)  # not the number itself
    with pytest.raises(ValueError, match="k must be between"):
        store.rank("budget", k)
    assert _deliveries(store) == 0


def test_the_bound_itself_is_allowed_and_a_setting_raises_it(store, tmp_path):
    assert len(store.search("budget", 1000)) == 12
    wide = MemoryStore(store.engine, settings=HASHING.with_(max_k=5000))
    assert len(wide.search("budget", 5000)) == 12
    with pytest.raises(ValueError, match="between 1 and 5,000"):
        wide.search("budget", 5001)
    q = [Query(id="q", query="budget note 3", relevant=("m3",))]
    with pytest.raises(ValueError, match="k must be between"):
        evaluate_retrieval(store, q, k=1001)
    seen: list[tuple[int, int]] = []
    assert evaluate_retrieval(store, q, k=10, on_progress=lambda d, t: seen.append((d, t)))["n"] == 1
    assert seen == [(1, 1)]


def test_max_k_setting_and_environment(monkeypatch):
    with pytest.raises(ValueError, match="max_k must be an integer >= 1"):
        MemorySettings(max_k=0)
    monkeypatch.setenv("ASSAY_MEMORY_MAX_K", "20000")
    assert default_settings().max_k == 20000
    monkeypatch.setenv("ASSAY_MEMORY_MAX_K", "lots")
    with pytest.raises(ValueError, match="ASSAY_MEMORY_MAX_K='lots'"):
        default_settings()
