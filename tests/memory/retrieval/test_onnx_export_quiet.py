"""The one-time ONNX export prints none of its known noise, and silences nothing else (slow: one export)."""

from __future__ import annotations

import logging
import os
import warnings

import numpy as np
import pytest

if os.environ.get("CI") != "true":  # under CI the 'onnx' and 'ml' extras are installed: absence must fail
    pytest.importorskip("onnxruntime")
    pytest.importorskip("sentence_transformers")

#: What the first ``assay serve`` printed before: the warnings, onnxruntime's root-logger record and
#: transformers' progress bar.
NOISE = (
    "legacy TorchScript-based ONNX export",
    "The feature will be removed",
    "TracerWarning",
    "Converting a tensor to a Python boolean",
    "Exporting aten::index operator",
    "Please consider to run pre-processing before quantization",
    "Loading weights",
)

TEXTS = ["The user's dog is called Rex.", "When does Project Falcon ship?", "What did Caroline research?"]


def _noise_in(text: str) -> list[str]:
    return [n for n in NOISE if n in text]


@pytest.mark.slow
def test_the_onnx_export_is_quiet_and_its_model_still_embeds(tmp_path, recwarn, capfd, monkeypatch):
    from assay.memory.retrieval.embeddings import MiniLMEmbedder
    from assay.memory.retrieval.onnx_embedder import INT8_FILE, OnnxMiniLMEmbedder, export_int8

    root = logging.getLogger()
    # as under `assay serve`: no handler on the root logger, so a record goes to stderr (lastResort)
    # and onnxruntime's `logging.warning` would call basicConfig() and leave a handler behind
    monkeypatch.setattr(root, "handlers", [])
    filters_before = list(warnings.filters)
    root_filters_before = list(root.filters)
    from transformers.utils import logging as hf_logging

    hook_before = hf_logging.set_tqdm_hook(None)
    hf_logging.set_tqdm_hook(hook_before)

    path = export_int8(tmp_path)

    err = capfd.readouterr().err
    assert not _noise_in(err), err[-2000:]
    assert not [str(w.message)[:120] for w in recwarn if _noise_in(f"{w.category.__name__} {w.message}")]
    # nothing left changed: warning filters, the root logger, transformers' tqdm hook
    assert warnings.filters == filters_before
    assert root.handlers == [] and root.filters == root_filters_before
    assert hf_logging.set_tqdm_hook(hook_before) is hook_before

    assert path == tmp_path / INT8_FILE and path.is_file() and not list(tmp_path.glob(".*"))
    a = OnnxMiniLMEmbedder(cache_dir=tmp_path).embed(TEXTS)
    assert a.shape == (3, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert (a * MiniLMEmbedder(threads=1).embed(TEXTS)).sum(axis=1).min() >= 0.99


def test_the_quiet_export_scopes_pass_everything_else(capfd, monkeypatch):
    """Inside the scopes only the known messages are dropped: another warning, another root record
    and another progress bar pass, an error propagates; all is as before afterwards."""
    pytest.importorskip("transformers")
    from transformers.utils import logging as hf_logging

    from assay.memory.retrieval.onnx_embedder import (
        _QUANTIZE_NOTE,
        _no_loading_bar,
        _quiet_quantize,
        _quiet_torch_export,
    )

    class TracerLike(Warning):
        pass

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with _quiet_torch_export(TracerLike):
            warnings.warn(
                "Exporting aten::index operator of advanced indexing in opset 17 is …", UserWarning, stacklevel=1
            )
            warnings.warn("You are using the legacy TorchScript-based ONNX export.", DeprecationWarning, stacklevel=1)
            warnings.warn("another UserWarning", UserWarning, stacklevel=1)
            warnings.warn(
                "a tracer warning from elsewhere", TracerLike, stacklevel=1
            )  # module: this test, not transformers
        warnings.warn("You are using the legacy TorchScript-based ONNX export.", DeprecationWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == [
        "another UserWarning",
        "a tracer warning from elsewhere",
        "You are using the legacy TorchScript-based ONNX export.",
    ]

    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    capfd.readouterr()
    with pytest.raises(ValueError, match="boom"), _quiet_quantize():
        logging.warning(_QUANTIZE_NOTE + ". Refer to example: …")
        logging.warning("another root warning")
        logging.getLogger("assay.test.other").warning("another logger's warning")
        raise ValueError("boom")
    logging.getLogger("assay.test.other").warning("after")
    err = capfd.readouterr().err
    assert _QUANTIZE_NOTE not in err
    assert "another root warning" in err and "another logger's warning" in err and "after" in err
    assert root.handlers == [] and not root.filters  # no basicConfig() left behind, the filter removed

    before = hf_logging.set_tqdm_hook(None)
    hf_logging.set_tqdm_hook(before)
    capfd.readouterr()
    with _no_loading_bar():
        for _ in hf_logging.tqdm(range(3), desc="Loading weights"):
            pass
        for _ in hf_logging.tqdm(range(3), desc="Another bar"):
            pass
    err = capfd.readouterr().err
    assert "Loading weights" not in err
    assert "Another bar" in err or not hf_logging.is_progress_bar_enabled()
    assert hf_logging.set_tqdm_hook(before) is before
