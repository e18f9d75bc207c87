"""The one memo policy of the gate's reads keyed by a sentence's text (its context, forms, moves, signs).

Those reads are pure functions of a sentence, so a bounded ``functools.lru_cache`` lets an
answer gated again (a retry, a memo re-checked right before shipping) and the rules of one
sentence share them. It must stay SMALL: on answers the gate has never seen (the inline case) it
never hits, and each entry holds container objects (a context's dicts, frozensets and tuples, the
key's quantities) that the cyclic garbage collector walks. With 4,096–8,192 entries each, the
entries outlived the collector's young generation, so every new sentence pushed objects into the
older generations and evicted old ones: on ``benchmarks/bench_gate_memo.py`` (2,000 unseen
400-word memos, one core) the collector ran 203 young-generation passes of up to 28–34 ms, 19
middle ones of up to 26 ms and one full one of 49–53 ms, ~420 ms in all, the source of most of the
p99 beyond host noise. At 256 entries (about eight memos of 30 sentences) an evicted entry
is still young and freed by reference counting: 5 passes of < 0.6 ms and 1 of < 0.8 ms, ~2.5 ms
in all, unseen p50 −5% (2.70 → 2.56 ms), callgrind instructions per memo −3.9% (28.2M → 27.1M),
and a 30-sentence memo re-gated with up to seven other such memos gated in between keeps every read
(the "warm" figure is unchanged; a memo of more than 256 sentences gets no hits when re-gated).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["SENTENCE_MEMO_SIZE", "sentence_memo"]

#: Entries of each sentence-keyed memo (module doc: measured on the unseen-memo benchmark).
SENTENCE_MEMO_SIZE = 256

#: The decorator of every read keyed by a sentence's text: ``lru_cache(maxsize=SENTENCE_MEMO_SIZE)``.
sentence_memo = lru_cache(maxsize=SENTENCE_MEMO_SIZE)
