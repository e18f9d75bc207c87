"""The pure parts of ``benchmarks/bench_memory_mem0.py`` (``benchmarks/_mem0_peer.py``): mem0 hits → assay ids,
recall means per category, percentiles, the offline mem0 configuration and the network guard. None needs mem0."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest
from benchmarks._mem0_peer import (
    ID_KEY,
    NoNetwork,
    is_loopback,
    mean_by_category,
    mem0_config,
    mem0_hit_ids,
    p50_p95,
    paired_differences,
)
from hypothesis import given
from hypothesis import strategies as st

from assay.memory.retrieval.evaluate import recall_at


def test_hits_map_through_metadata_then_the_add_uuids_and_drop_the_unknown():
    answer = {
        "results": [
            {"id": "u1", "metadata": {ID_KEY: "conv-1:s1:o2"}},
            {"id": "u2", "metadata": None},  # no metadata: the uuid recorded at add
            {"id": "u3"},  # neither: cannot be relevant, dropped
            {"id": "u4", "metadata": {ID_KEY: "conv-1:s1:o2"}},  # the same memory again: first rank kept
            {"id": "u5", "metadata": {"other": 1}},
        ]
    }
    by_uuid = {"u2": "conv-1:s2:o1", "u5": "conv-1:s3:o4"}
    ids = mem0_hit_ids(answer, by_uuid)
    assert ids == ["conv-1:s1:o2", "conv-1:s2:o1", "conv-1:s3:o4"]
    assert mem0_hit_ids(answer["results"], by_uuid) == ids  # the list itself is accepted too
    assert mem0_hit_ids({"results": []}, by_uuid) == [] and mem0_hit_ids({}, by_uuid) == []
    # recall against the relevant set, as the benchmark scores it
    assert recall_at(ids, {"conv-1:s2:o1", "conv-1:s9:o9"}, 10) == 0.5


def test_mean_by_category():
    rows = [("1", 1.0), ("1", 0.0), ("4", 0.5), ("2", 1.0)]
    out = mean_by_category(rows)
    assert out["mean"] == 0.625 and out["n"] == 4
    assert out["per_category"] == {"1": {"mean": 0.5, "n": 2}, "2": {"mean": 1.0, "n": 1}, "4": {"mean": 0.5, "n": 1}}
    assert list(out["per_category"]) == ["1", "2", "4"]
    assert mean_by_category([]) == {"mean": None, "n": 0, "per_category": {}}


@given(st.lists(st.floats(min_value=0, max_value=1e4, allow_nan=False), min_size=1, max_size=200))
def test_percentiles_match_numpy(xs):
    p50, p95 = p50_p95(xs)
    assert p50 == pytest.approx(float(np.percentile(xs, 50)), rel=1e-9, abs=1e-9)
    assert p95 == pytest.approx(float(np.percentile(xs, 95)), rel=1e-9, abs=1e-9)


def test_percentiles_of_nothing_raise():
    with pytest.raises(ValueError):
        p50_p95([])


def test_mem0_config_keeps_everything_local(tmp_path: Path):
    cfg = mem0_config(Path("/models/minilm"), tmp_path)
    assert cfg["embedder"] == {
        "provider": "huggingface",
        "config": {
            "model": "/models/minilm",
            "embedding_dims": 384,
            "model_kwargs": {"device": "cpu", "local_files_only": True},
        },
    }
    vs = cfg["vector_store"]["config"]
    assert cfg["vector_store"]["provider"] == "qdrant" and vs["path"] == str(tmp_path / "qdrant")
    assert vs["embedding_model_dims"] == 384 and "host" not in vs and "url" not in vs
    assert cfg["history_db_path"] == str(tmp_path / "history.db")
    assert cfg["llm"]["config"]["openai_base_url"].startswith("http://127.0.0.1:")
    faiss = mem0_config(Path("/models/minilm"), tmp_path, vector_store="faiss")["vector_store"]
    assert faiss["provider"] == "faiss" and faiss["config"]["distance_strategy"] == "cosine"
    assert faiss["config"]["path"] == str(tmp_path / "faiss")
    with pytest.raises(ValueError, match="unknown vector store 'chroma'"):
        mem0_config(Path("/models/minilm"), tmp_path, vector_store="chroma")


def test_paired_differences_skip_failed_calls_and_refuse_unpaired_lists():
    assert paired_differences([10.0, None, 7.5, 3.0], [4.0, 2.0, None, 1.0]) == [6.0, 2.0]
    with pytest.raises(ValueError, match="unpaired"):
        paired_differences([1.0], [1.0, 2.0])


@pytest.mark.parametrize(
    ("host", "local"),
    [("127.0.0.1", True), ("127.8.9.1", True), ("::1", True), ("localhost", True), (None, True), ("", True)]
    + [("203.0.113.7", False), ("2001:db8::1", False), ("example.com", False), ("10.0.0.1", False)],
)
def test_is_loopback(host, local):
    assert is_loopback(host) is local


def test_the_guard_refuses_leaving_the_machine_and_lets_loopback_through():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    original = socket.socket.connect
    try:
        with NoNetwork() as guard:
            with (
                socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s,
                pytest.raises(OSError, match="network disabled"),
            ):
                s.connect(("203.0.113.7", 80))  # TEST-NET-3: refused before any packet
            with (
                socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s,
                pytest.raises(OSError, match="network disabled"),
            ):
                s.connect_ex(("198.51.100.1", 443))
            with pytest.raises(socket.gaierror):
                socket.getaddrinfo("example.com", 443)
            with socket.create_connection(server.getsockname(), timeout=5):  # loopback passes
                pass
            assert socket.getaddrinfo("127.0.0.1", 80)
        assert guard.attempts == ["203.0.113.7:80", "198.51.100.1:443", "example.com:443 (name lookup)"]
        assert socket.socket.connect is original  # restored on exit
    finally:
        server.close()


def test_the_benchmark_skips_with_one_line_and_exit_3_without_mem0(tmp_path: Path):
    """mem0ai is no assay dependency: without it the script says so in one line and exits 3 (incomplete)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    code = (
        "import runpy, sys; sys.modules['mem0'] = None; sys.path.insert(0, 'benchmarks'); "
        f"sys.argv = ['bench_memory_mem0.py', '--data', {str(tmp_path)!r}]; "
        "runpy.run_path('benchmarks/bench_memory_mem0.py', run_name='__main__')"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines() == [
        "SKIP: mem0ai is not installed (pip install mem0ai): the peer figure was not measured"
    ]
