"""The int8 ONNX MiniLM query embedder: same weights identity, agreement with float32 (slow: one export)."""

from __future__ import annotations

import os

import numpy as np
import pytest

if os.environ.get("CI") != "true":  # under CI the 'onnx' and 'ml' extras are installed: absence must fail
    pytest.importorskip("onnxruntime")
    pytest.importorskip("sentence_transformers")

TEXTS = [
    "The user's dog is called Rex.",
    "When does Project Falcon ship?",
    "Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted.",
    "Melanie painted a sunrise by the lake last summer with her kids.",
    "What did Caroline research for her career?",
]


@pytest.mark.slow
def test_int8_agrees_with_float32_and_counts_as_the_same_embedder(tmp_path_factory):
    from assay.memory.retrieval.embeddings import MiniLMEmbedder
    from assay.memory.retrieval.onnx_embedder import INT8_FILE, OnnxMiniLMEmbedder

    cache = tmp_path_factory.mktemp("onnx")
    (cache / "model.int8.onnx").write_bytes(b"an export of the v1 recipe")  # another recipe's file: never read
    int8 = OnnxMiniLMEmbedder(cache_dir=cache)
    fp32 = MiniLMEmbedder(threads=1)
    assert int8.model == fp32.model and int8.dim == fp32.dim == 384
    a, b = int8.embed(TEXTS), fp32.embed(TEXTS)
    assert a.shape == (5, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() >= 0.99
    assert (cache / INT8_FILE).is_file() and not list(cache.glob(".*"))  # no temporary left
    assert OnnxMiniLMEmbedder(cache_dir=cache).embed(TEXTS[:1]).shape == (1, 384)  # reuses the export
    assert int8.embed([]).shape == (0, 384)
    # one text (a query) takes the unpadded path: the batch path's vector bit for bit, truncation included
    for text in [*TEXTS, "", "naïve café — 東京 🙂", "word " * 400]:
        one = int8.embed([text])
        assert one.shape == (1, 384) and one.dtype == np.float32 and one.flags.c_contiguous
        assert np.array_equal(one, int8._embed_batch([text]))


def test_an_export_without_the_float32_matmul_is_refused(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from assay.memory.retrieval.onnx_embedder import FP32_MATMULS, INT8_FILE, _check_nodes

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="/some/other/MatMul")
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(helper.make_graph([node], "g", [x], [y], [w])), str(path))
    with pytest.raises(RuntimeError, match="FP32_MATMULS"):
        _check_nodes(path)
    renamed = helper.make_node("MatMul", ["x", "w"], ["y"], name=FP32_MATMULS[0])
    onnx.save(helper.make_model(helper.make_graph([renamed], "g", [x], [y], [w])), str(path))
    _check_nodes(path)  # present: accepted
    assert INT8_FILE not in ("model.int8.onnx", "model.int8.v2.onnx")  # older recipes' file names are never reused


def test_an_export_the_bert_fusion_cannot_fuse_is_refused(tmp_path):
    """A graph without BERT's blocks (another exporter's, or not BERT): no partly fused model is quantised."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper

    from assay.memory.retrieval.onnx_embedder import _fuse

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="/bert/encoder/layer.0/output/dense/MatMul")
    src, dst = tmp_path / "m.onnx", tmp_path / "fused.onnx"
    onnx.save(helper.make_model(helper.make_graph([node], "g", [x], [y], [w])), str(src))
    with pytest.raises(RuntimeError, match="BERT fusion"):
        _fuse(src, dst, hidden_size=384, num_heads=12, layers=6)
    assert not dst.exists()
