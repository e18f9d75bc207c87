"""The gate's reads keyed by a sentence stay small memos (assay.grounding.sentence_memo).

Failing input (issue 15, the unseen-memo p99): the sentence-keyed memos held 4,096–8,192 entries
each, so the unseen sentences of every new memo pushed their contexts into the garbage collector's
older generations (203 young passes of up to 34 ms per 2,000 memos). These tests pin the policy: every
memo of a sentence's text is :func:`sentence_memo`'s size, and gating many unseen sentences keeps each
at that size.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import assay.grounding
from apple import apple
from assay.grounding.gate import check_answer
from assay.grounding.sentence_memo import SENTENCE_MEMO_SIZE

#: Memos whose first argument is a text but not an answer's sentence: a fact's or passage's own
#: context (keyed per snapshot, read again for every answer against it).
NOT_SENTENCE_KEYED = {"assay.grounding.label_signs.own_clause"}


def _memos() -> dict[str, object]:
    out = {}
    for info in pkgutil.iter_modules(assay.grounding.__path__, "assay.grounding."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if callable(getattr(obj, "cache_info", None)) and getattr(obj, "__module__", None) == info.name:
                out[f"{info.name}.{name}"] = obj
    return out


def _sentence_keyed() -> dict[str, object]:
    out = {}
    for qual, fn in _memos().items():
        params = list(inspect.signature(fn).parameters)  # type: ignore[arg-type]
        if params and params[0] in ("text", "sentence") and qual not in NOT_SENTENCE_KEYED:
            out[qual] = fn
    return out


def test_every_sentence_keyed_memo_has_the_sentence_memo_size() -> None:
    keyed = _sentence_keyed()
    assert "assay.grounding.sentence_rules.read_context" in keyed  # the context: the largest entries
    assert len(keyed) >= 8, sorted(keyed)
    sizes = {qual: fn.cache_info().maxsize for qual, fn in keyed.items()}  # type: ignore[attr-defined]
    assert sizes == dict.fromkeys(keyed, SENTENCE_MEMO_SIZE)


def test_unseen_sentences_keep_each_memo_at_its_size() -> None:
    snap = apple("F1", "F2", "F7", "F8")
    for i in range(SENTENCE_MEMO_SIZE + 40):  # more distinct sentences than a memo holds
        tag = "".join("abcdefghij"[int(d)] for d in str(i))  # distinct, and no number of its own
        answer = f"In FY2023 total net sales were $383.3 billion [F1], as note {tag} said."
        assert check_answer(answer, snap).status == "pass"
    for qual, fn in _sentence_keyed().items():
        info = fn.cache_info()  # type: ignore[attr-defined]
        assert info.currsize <= SENTENCE_MEMO_SIZE, qual


def test_a_memo_gated_again_reads_its_sentences_from_the_memo() -> None:
    from assay.grounding.sentence_rules import read_context

    snap = apple("F1", "F7")
    answer = "Total net sales were $383.3 billion [F1]. Net income was $97.0 billion [F7]."
    first = check_answer(answer, snap)
    hits = read_context.cache_info().hits
    assert check_answer(answer, snap) == first
    assert read_context.cache_info().hits == hits + 2
