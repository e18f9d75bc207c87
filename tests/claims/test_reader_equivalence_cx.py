"""The answer reader's speed work (branch cx) reads exactly what it read at commit 0f5c384.

``src/assay/claims`` at 0f5c384 is written from git into a temp package and run beside today's
reader on bench-style memos (``benchmarks/bench_gate_memo.py``'s sentences), the string
literals of the claims tests, and (slow, with the shared data) every TAT-QA paragraph and
FinanceBench answer: the ``repr`` of every claim (its quantities and unchecked spans), of the
quantities in answer and passage mode and of the sentence spans must be equal. Skipped without
that commit in the checkout's history.
"""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from types import ModuleType

import pytest

import assay.claims as now
from claims_at_commit import READER_CHANGES_SINCE, SENTENCE_ENDS_SINCE, claims_at_commit

_COMMIT = "0f5c384"
_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return claims_at_commit(_COMMIT, tmp_path_factory.mktemp("claims_before"))


def _read(mod: ModuleType, text: str) -> list[str]:
    return [
        repr(mod.extract_claims(text)),
        repr(mod.extract_quantities(text, words=True)),
        repr(mod.extract_quantities(text, space_thousands=False)),
        repr(mod.split_sentences(text)),
        repr(mod.find_unchecked(text)),
    ]


_LABELS = ["revenue", "capital expenditure", "net loss", "dividends paid", "r&d expense", "share repurchases"]
_FILLER = "the company reported that in the period under review its growth fell rose and a few million".split()


def _memo(rng: random.Random) -> str:
    sentences = []
    for _ in range(30):
        filler = " ".join(rng.choice(_FILLER) for _ in range(5))
        value = round(rng.uniform(100, 99_999), 1)
        fid = rng.randrange(200)
        sentences.append(
            f"In FY{rng.randrange(2014, 2024)} {rng.choice(_LABELS)} was ${value:,.1f} million [F{fid}] and {filler}."
        )
    return " ".join(sentences)


def test_bench_memos_and_test_strings_read_as_at_0f5c384(before):
    rng = random.Random(15)
    texts = [_memo(rng) for _ in range(60)]
    for path in sorted((_ROOT / "tests" / "claims").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        texts += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    for text in texts:
        if "보다" in text or SENTENCE_ENDS_SINCE.search(text) or READER_CHANGES_SINCE.search(text):
            continue  # deliberate changes since: a Korean comparison with 보다 names its base; sentence ends; suffixes
        assert _read(now, text) == _read(before, text), text[:200]


@pytest.mark.slow
def test_real_answers_and_passages_read_as_at_0f5c384(before, shared_data):
    texts = []
    for path in sorted((shared_data / "tatqa").glob("*.json")):
        for ctx in json.loads(path.read_text(encoding="utf-8")):
            texts += [str(p["text"]) for p in ctx["paragraphs"]]
            texts += [f"The answer is {q['answer']}." for q in ctx["questions"]]
    bench = shared_data / "financebench" / "financebench_open_source.jsonl"
    for line in bench.read_text(encoding="utf-8").splitlines() if bench.is_file() else []:
        row = json.loads(line)
        texts.append(str(row.get("answer") or ""))
        texts += [str(e.get("evidence_text") or "") for e in row.get("evidence") or [] if isinstance(e, dict)]
    assert len(texts) > 4000
    kept = [t for t in texts if not SENTENCE_ENDS_SINCE.search(t) and not READER_CHANGES_SINCE.search(t)]
    assert len(kept) > 0.85 * len(texts)  # (4,359 of 4,789 at gate-13)
    for text in kept:
        assert _read(now, text) == _read(before, text), text[:200]
