"""Prefilter: drop self-referential meta-memories before ranking (corrections exempt).

A meta-memory is a note about the memory system itself — "remember to save memories after
each task", "the memory store returned nothing for billing", "saved this to memory". Agents
write them readily; they share vocabulary with every memory-related query and carry no
knowledge of the task domain, so they crowd real memories out of the top k. The rule is a
small set of patterns over the casefolded text (English and Korean), named by
:data:`PREFILTER_VERSION`; a note that mentions memories in the ordinary sense ("fond
memories of her wedding") does not match. Corrections (``is_correction``) are never dropped:
a correction is how a wrong memory is fixed, whatever words it uses.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["PREFILTER_VERSION", "is_meta_memory", "passes_prefilter"]

#: Names the rule below; bump when a pattern changes.
PREFILTER_VERSION = "meta-v1"

_MEM = r"memor(?:y|ies)"
_META_PATTERNS = [
    # the system and its parts: "memory store", "the memory system", "memories database"
    rf"\b{_MEM}\s+(?:system|store|bank|database|db|tool|module|retrieval|search|index|layer|entries|entry|api|server|log)\b",
    # instructions to operate it: "remember to save memories", "note to update the notes"
    rf"\b(?:remember|note|make sure|always|don't forget)\s+to\s+"
    rf"(?:save|store|record|write|update|check|consult|query|use)\s+(?:\w+\s+){{0,2}}(?:{_MEM}|notes?)\b",
    # reports of operating it: "saved this to memory", "stored it in my memory"
    rf"\b(?:saved|stored|recorded|wrote|added|updated|deleted|removed)\s+(?:\w+\s+){{0,2}}(?:to|in|into|from)\s+(?:the\s+|my\s+|our\s+)?{_MEM}\b",
    rf"\b(?:retrieved|injected|delivered|irrelevant)\s+{_MEM}\b",
    rf"\bno\s+(?:relevant\s+|useful\s+)?{_MEM}\s+(?:were\s+|was\s+)?(?:found|retrieved|matched|returned)\b",
    rf"\b{_MEM}\s+(?:id|ids|grade|grades|grading)\b",
    rf"^\s*(?:this|these)\s+{_MEM}\b",
    # Korean: "메모리 시스템", "기억 저장소", "기억을 저장"
    r"(?:메모리|기억)\s*(?:시스템|저장소|검색|도구|데이터베이스)",
    r"(?:메모리|기억)(?:을|를|에|에다)?\s*(?:저장|기록)(?:하|해|했)",
]
_META = re.compile("|".join(f"(?:{p})" for p in _META_PATTERNS))
_CUES = ("memor", "note", "메모리", "기억")


def is_meta_memory(text: str) -> bool:
    """True when ``text`` is a note about the memory system itself (see the module docstring)."""
    t = unicodedata.normalize("NFKC", text).casefold()
    if not any(cue in t for cue in _CUES):  # every pattern needs one of these: skip the regex
        return False
    return _META.search(t) is not None


def passes_prefilter(text: str, *, is_correction: bool = False) -> bool:
    """True when a memory may be ranked: not a meta-memory, or a correction (always exempt)."""
    return is_correction or not is_meta_memory(text)
