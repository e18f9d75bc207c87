"""The MiniLM query embedder on ONNX Runtime with int8 dynamic quantisation: the same weights, faster.

:class:`OnnxMiniLMEmbedder` embeds with the packaged all-MiniLM-L6-v2 (the folder of
:func:`~assay.memory.retrieval.embeddings.minilm_model_dir`) exported to ONNX and quantised to
int8 (``onnxruntime.quantization.quantize_dynamic``: int8 weights of the MatMul/linear layers, per
output channel with the 7-bit reduced range, activations quantised per batch at run time; per
tensor, the cosine to float32 was 0.971–0.978 on four test sentences, per channel 0.991–0.996,
per channel with reduced range 0.993–0.994), tokenised with the model's own ``tokenizer.json``
(the ``tokenizers`` library), mean-pooled over the attention mask and normalised — what
sentence-transformers computes for this model (its ``1_Pooling`` is mean pooling, then the
``Normalize`` module), so its ``model`` is the same weights identity (``MINILM_IDENTITY``): its vectors are
comparable with the stored float32 ones. Measured on LoCoMo (``benchmarks/bench_ann_onnx.py``,
one run, a loaded 2-core host): cosine to float32 over the 1,034 category 1–4 questions mean
0.9932, 1st percentile 0.9894, min 0.9857 (the issue's ≥ 0.99 holds on average, not for the
worst 1 %); composite recall@10 with int8 query vectors 0.7377 vs 0.7335 with float32 (no
drop); one-query embedding p50 22.9 ms vs 144.7 ms (ratio 0.158). Use it for queries; store
memories with the float32 embedder.

The export happens once, on first use, into a cache folder (``$ASSAY_HOME/cache/onnx/``, never
in the repository): ``torch.onnx.export`` of the transformer (the TorchScript exporter, opset
17, dynamic batch and sequence axes), then ``quantize_dynamic`` to ``model.int8.onnx``; both
need the ``ml`` extra (torch, transformers) only then. Serving needs the ``onnx`` extra
(onnxruntime) and ``tokenizers``. sentence-transformers' own ONNX backend
(``backend="onnx"``) needs ``optimum``, whose current release requires transformers < 5 (this
project runs transformers 5): this module does the same export and quantisation without it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.memory.retrieval.embeddings import MINILM_IDENTITY, minilm_model_dir

__all__ = ["OnnxMiniLMEmbedder", "export_int8", "onnx_cache_dir", "ONNX_EXTRA_HINT"]

ONNX_EXTRA_HINT = "the ONNX MiniLM embedder needs the 'onnx' extra: pip install 'assay[onnx]'"

#: sentence-transformers' ``max_seq_length`` for all-MiniLM-L6-v2 (``sentence_bert_config.json``).
MAX_SEQ_LENGTH = 256


def onnx_cache_dir() -> Path:
    """``$ASSAY_HOME/cache/onnx/all-MiniLM-L6-v2`` (``ASSAY_HOME`` defaults to ``~/.assay``)."""
    home = Path(os.environ.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()
    return home / "cache" / "onnx" / "all-MiniLM-L6-v2"


_EXPORT_LOCK = threading.Lock()


def export_int8(folder: Path | None = None) -> Path:
    """Export the packaged MiniLM to ONNX and quantise it to int8 in ``folder`` (default
    :func:`onnx_cache_dir`) unless already there; returns the int8 model's path. Written
    through temporary names and renamed, so a concurrent reader never sees half a file."""
    folder = folder or onnx_cache_dir()
    out = folder / "model.int8.onnx"
    with _EXPORT_LOCK:
        if out.is_file():
            return out
        try:
            import torch
            from onnxruntime.quantization import QuantType, quantize_dynamic
            from transformers import AutoModel
        except ImportError as e:
            raise ModuleNotFoundError(f"{ONNX_EXTRA_HINT} and the 'ml' extra for the one-time export ({e})") from None
        folder.mkdir(parents=True, exist_ok=True)
        bert = AutoModel.from_pretrained(str(minilm_model_dir()), local_files_only=True).eval()

        class _Hidden(torch.nn.Module):  # keyword arguments: BertModel's positional order varies by version
            def __init__(self) -> None:
                super().__init__()
                self.bert = bert

            def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
                out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
                return out.last_hidden_state

        model = _Hidden().eval()
        ids = torch.ones((1, 8), dtype=torch.long)
        fp32 = folder / f".model.{os.getpid()}.onnx"
        tmp = folder / f".model.int8.{os.getpid()}.onnx"
        try:
            with torch.no_grad():
                torch.onnx.export(
                    model,
                    (ids, torch.ones_like(ids), torch.zeros_like(ids)),
                    str(fp32),
                    input_names=["input_ids", "attention_mask", "token_type_ids"],
                    output_names=["last_hidden_state"],
                    dynamic_axes={n: {0: "batch", 1: "seq"} for n in ("input_ids", "attention_mask", "token_type_ids")}
                    | {"last_hidden_state": {0: "batch", 1: "seq"}},
                    opset_version=17,
                    dynamo=False,
                )
            quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
            os.replace(tmp, out)
        finally:
            for p in (fp32, tmp):
                p.unlink(missing_ok=True)
    return out


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime, int8 (see the module docstring); loads on first :meth:`embed`.

    ``threads``: ONNX Runtime intra-op threads (default 1: one query at a time on a shared host;
    ``None`` = one per core). ``cache_dir``: where the exported model lives (default
    :func:`onnx_cache_dir`). Raises ``ModuleNotFoundError`` naming the extra when onnxruntime or
    tokenizers (or, for the export, torch) is missing.
    """

    model = MINILM_IDENTITY
    dim = 384
    runtime = "onnxruntime-int8"

    def __init__(self, *, threads: int | None = 1, cache_dir: Path | None = None, batch_size: int = 64):
        self.threads = threads
        self.cache_dir = cache_dir
        self.batch_size = batch_size
        self._session: Any = None
        self._tok: Any = None

    def load(self) -> OnnxMiniLMEmbedder:
        """Export (first time) and load the model now; returns ``self``."""
        if self._session is None:
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as e:
                raise ModuleNotFoundError(f"{ONNX_EXTRA_HINT} ({e})") from None
            path = export_int8(self.cache_dir)
            opts = ort.SessionOptions()
            if self.threads is not None:
                opts.intra_op_num_threads = self.threads
                opts.inter_op_num_threads = 1
            self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
            tok = Tokenizer.from_file(str(minilm_model_dir() / "tokenizer.json"))
            tok.enable_truncation(MAX_SEQ_LENGTH)
            tok.enable_padding(pad_id=0, pad_token="[PAD]")
            self._tok = tok
        return self

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, shape ``(len(texts), 384)``."""
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        parts = []
        for i in range(0, len(texts), self.batch_size):
            enc = self._tok.encode_batch(list(texts[i : i + self.batch_size]))
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            (hidden,) = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )
            m = mask[..., None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            parts.append(pooled / np.clip(norms, 1e-12, None))
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)
