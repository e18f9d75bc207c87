"""Text rules of the memory: Unicode-aware terms, derived keywords, duplicate keys, context cleaning.

Pure functions, no I/O. One tokenizer serves keyword scoring, lexical engagement and the
hashing embedder, so a term means the same thing everywhere.

Tokenisation (:func:`tokens`): NFKC-normalise and casefold, split into Unicode word runs
(``\\w`` without ``_``), then split each run by script. Hangul, CJK ideographs and kana have no
spaces between words and glue particles onto nouns (``매출은`` = ``매출`` + ``은``), so those
segments become overlapping character bigrams (``매출은`` → ``매출``, ``출은``; a one-character
segment stays a unigram) — the standard segmentation-free indexing for CJK (Lucene's
``CJKBigramFilter``; Kwok, "Comparing representations in Chinese information retrieval",
SIGIR 1997). Every other segment (Latin, digits, Cyrillic, …) is one token. No stemming.

:func:`terms` is the set of tokens minus :data:`STOPWORDS` and one-letter Latin tokens: the
content terms the scorer and engagement compare.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence

__all__ = [
    "tokens",
    "terms",
    "keyword_terms",
    "derive_keywords",
    "distinctive_terms",
    "dedupe_key",
    "clean_context",
    "STOPWORDS",
    "MAX_DERIVED_KEYWORDS",
    "dominant_script",
    "has_cjk",
    "strip_josa",
]

#: At most this many keywords are derived from a memory's text (the first distinct content
#: words in text order): a 1–2 sentence note has 5–15 content words; the cap keeps a long
#: note's keyword list from matching every query.
MAX_DERIVED_KEYWORDS = 16

#: English function words and chat filler (after casefolding; apostrophe fragments included,
#: since ``I'm`` tokenises as ``i`` + ``m``). A short list on purpose: content words such as
#: numbers, names and verbs are kept.
STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each either else ever
few for from further get gets got had has have having he her here hers herself him himself his how
i if in into is it its itself just let like me more most my myself no nor not now of off on once
only or other our ours ourselves out over own really same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up upon
us very was we were what when where which while who whom why will with would yes yet you your yours
yourself yourselves s t d ll m re ve don didn doesn isn wasn aren weren won wouldn shouldn couldn
hasn haven hadn can't oh ok okay hey hi hello yeah wow thanks thank sure well much many one
""".split()
)

#: Korean particles (josa) stripped from the end of a Hangul word when a keyword is derived,
#: longest first; only when at least two syllables remain (``나이`` keeps its ``이``).
_JOSA = (
    "에서는",
    "으로는",
    "에게서",
    "에서",
    "에게",
    "으로",
    "까지",
    "부터",
    "보다",
    "처럼",
    "하고",
    "이랑",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "의",
    "에",
    "로",
    "와",
    "과",
    "도",
    "만",
    "랑",
)

_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(
    r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\U00020000-\U0002ffff]+"
)
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")
_MEMORY_BLOCK = re.compile(r"<(memories|memory)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_SECRET = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}|\bBearer\s+[A-Za-z0-9._\-~+/=]{8,}"
    r"|\b(?:api[_-]?key|access[_-]?token|token|password|passwd|secret)\b\s*[:=]\s*\S+"
    # NAME_TOKEN= / _SECRET= / _KEY= / _PASSWORD= assignments (shell, .env, config):
    # ASSAY_SERVER_TOKEN=…, aws_secret_access_key = …, GITHUB_TOKEN: …
    # (an upper-case environment-style name with any of those suffixes; in lower case only
    # _token/_secret/_password and *_secret_access_key/secret_key/private_key: primary_key = id
    # and sort_key=lambda are code, not secrets)
    r"|(?-i:\b[A-Z0-9]+(?:_[A-Z0-9]+)*_(?:TOKEN|SECRET|KEY|PASSWORD|PASSWD|PAT)\b)\s*[:=]\s*\S+"
    r"|\b[a-z0-9]+(?:_[a-z0-9]+)*_(?:token|secret|password|passwd)\b\s*[:=]\s*\S+"
    r"|\b(?:[a-z0-9]+_)*(?:secret_access|secret|private)_key\b\s*[:=]\s*\S+"
    # known token prefixes: GitHub, Slack, GitLab, AWS access key ids
    r"|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[baprs]-[A-Za-z0-9\-]{10,}"
    r"|glpat-[A-Za-z0-9_\-]{20,}|(?:AKIA|ASIA)[A-Z0-9]{16})\b",
    re.IGNORECASE,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def tokens(text: str) -> list[str]:
    """The tokens of ``text`` in order (see the module docstring); ``[]`` for blank text."""
    out: list[str] = []
    for run in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        pos = 0
        for m in _CJK.finditer(run):
            if m.start() > pos:
                out.append(run[pos : m.start()])
            seg = m.group()
            out.extend([seg] if len(seg) == 1 else [seg[i : i + 2] for i in range(len(seg) - 1)])
            pos = m.end()
        if pos < len(run):
            out.append(run[pos:])
    return out


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Hangul, CJK ideograph or kana character (what :func:`tokens` bigrams)."""
    return _CJK.search(text) is not None


def strip_josa(text: str) -> str:
    """``text`` (NFKC-casefolded) with one trailing Korean particle (:data:`_JOSA`) cut from each
    Hangul word when two or more syllables remain, words joined by newlines (``"지민은 어디에서"``
    → ``"지민\\n어디"``): the particle is grammar, not content, and its bigram (``에서``) would
    otherwise match every memory with a place in it."""
    out = []
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _HANGUL_WORD.fullmatch(word):
            for j in _JOSA:
                if word.endswith(j) and len(word) - len(j) >= 2:
                    word = word[: -len(j)]
                    break
        out.append(word)
    return "\n".join(out)


def terms(text: str) -> set[str]:
    """Content terms of ``text``: :func:`tokens` of :func:`strip_josa` (a Korean word's particle
    cut first) minus stopwords and one-letter non-CJK tokens."""
    src = strip_josa(text) if _HANGUL_WORD.search(text) else text
    return {t for t in tokens(src) if t not in STOPWORDS and (len(t) > 1 or t.isdigit() or _CJK.fullmatch(t))}


def keyword_terms(keywords: Iterable[str]) -> set[str]:
    """The terms of a memory's keywords (a multi-word keyword contributes each of its terms)."""
    return terms("\n".join(keywords))  # a newline never joins two words, nor two CJK characters into a bigram


def derive_keywords(text: str, limit: int = MAX_DERIVED_KEYWORDS) -> list[str]:
    """Keywords of a memory whose writer gave none — derived from the memory's own text only.

    Rule: split the NFKC-casefolded text into word runs; strip one trailing Korean particle
    (:data:`_JOSA`) from a Hangul word when two or more syllables remain; drop stopwords and
    one-letter Latin words; keep the first ``limit`` distinct words in text order. Returns
    ``[]`` when nothing is left. Keywords are never taken from queries.
    """
    out: list[str] = []
    seen: set[str] = set()
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _HANGUL_WORD.fullmatch(word):
            for j in _JOSA:
                if word.endswith(j) and len(word) - len(j) >= 2:
                    word = word[: -len(j)]
                    break
        if word in STOPWORDS or word in seen or not terms(word):
            continue
        seen.add(word)
        out.append(word)
        if len(out) >= limit:
            break
    return out


def distinctive_terms(text: str, keywords: Sequence[str] = ()) -> set[str]:
    """The terms that show a memory was used: content terms of its text plus its keywords' terms."""
    return terms(text) | keyword_terms(keywords)


def dedupe_key(text: str) -> str:
    """SHA-256 hex of the text with NFKC, casefolding and whitespace runs collapsed: two
    memories are duplicates when their keys are equal (within one scope)."""
    norm = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def clean_context(text: str, max_chars: int = 2000) -> str:
    """The recent-context window as logged with a delivery and embedded as the query.

    Steps, in order: (1) drop blocks of previously injected memories, ``<memories>…</memories>``
    and ``<memory …>…</memory>`` (case-insensitive), so a search never matches the memories it
    delivered last turn; (2) replace secrets — ``sk-…``/``pk-…`` keys, ``Bearer`` tokens,
    ``api_key=…``/``token: …``/``password=…`` values, any ``NAME_TOKEN=``/``_SECRET=``/``_KEY=``/
    ``_PASSWORD=`` assignment's value, GitHub (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``,
    ``github_pat_``), Slack (``xox[baprs]-``), GitLab (``glpat-``) tokens and AWS access key ids
    (``AKIA``/``ASIA`` + 16) — with ``[redacted]``; (3) drop control
    characters; (4) collapse whitespace runs to one space and strip; (5) keep the last
    ``max_chars`` characters, starting after the first space of the cut when one is within 40
    characters (no half word). Returns ``""`` when nothing is left. NFC-normalised.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be >= 1, got {max_chars}")
    t = unicodedata.normalize("NFC", text)
    t = _MEMORY_BLOCK.sub(" ", t)
    t = _SECRET.sub("[redacted]", t)
    t = _CONTROL.sub(" ", t)
    t = " ".join(t.split())
    if len(t) > max_chars:
        t = t[-max_chars:]
        cut = t.find(" ", 0, 40)
        if cut != -1:
            t = t[cut + 1 :]
    return t


#: Scripts :func:`dominant_script` tells apart, by the first word of a letter's Unicode name
#: (``HANGUL SYLLABLE GA`` → Hangul; ``CJK UNIFIED IDEOGRAPH-4E00`` → Han).
_SCRIPT_NAMES = {
    "LATIN": "Latin",
    "HANGUL": "Hangul",
    "CJK": "Han",
    "HIRAGANA": "Kana",
    "KATAKANA": "Kana",
    "CYRILLIC": "Cyrillic",
    "GREEK": "Greek",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "THAI": "Thai",
    "DEVANAGARI": "Devanagari",
}


def dominant_script(text: str) -> str | None:
    """The script most of the letters of ``text`` are written in (``"Latin"``, ``"Hangul"``,
    ``"Han"``, ``"Kana"``, ``"Cyrillic"``, …, ``"Other"``), ``None`` for a text without letters.
    Digits, punctuation and symbols are not letters. Ties go to the script seen first."""
    counts: dict[str, int] = {}
    for ch in unicodedata.normalize("NFKC", text):
        if not ch.isalpha():
            continue
        first = unicodedata.name(ch, "OTHER").split(" ", 1)[0]
        script = _SCRIPT_NAMES.get(first, "Other")
        counts[script] = counts.get(script, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else None
