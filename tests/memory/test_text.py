"""Memory text rules: Unicode-aware terms (Korean/CJK bigrams), derived keywords, context cleaning,
the meta-memory prefilter, duplicate keys."""

from __future__ import annotations

import pytest

from assay.memory.retrieval.prefilter import is_meta_memory, passes_prefilter
from assay.memory.text import (
    clean_context,
    dedupe_key,
    derive_keywords,
    distinctive_terms,
    keyword_terms,
    terms,
    tokens,
)


def test_tokens_split_scripts_and_bigram_cjk():
    assert tokens("Caroline's LGBTQ support_group") == ["caroline", "s", "lgbtq", "support", "group"]
    assert tokens("매출은 증가") == ["매출", "출은", "증가"]
    assert tokens("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert tokens("2023년") == ["2023", "년"]
    assert tokens("   ") == []


def test_korean_inflected_and_bare_forms_overlap():
    assert terms("매출은") & terms("매출") == {"매출"}
    assert "매출" in terms("회사의 매출이 늘었다")


def test_terms_drop_stopwords_and_single_latin_letters():
    assert terms("I am at the park with a dog") == {"park", "dog"}
    assert terms("7 cats") == {"7", "cats"}


def test_fullwidth_and_case_are_normalised():
    assert terms("ＡＰＰＬＥ Revenue") == {"apple", "revenue"}


def test_derive_keywords_english_in_text_order_without_stopwords():
    kws = derive_keywords("Caroline attended an LGBTQ support group and found the stories inspiring.")
    assert kws == ["caroline", "attended", "lgbtq", "support", "group", "found", "stories", "inspiring"]


def test_derive_keywords_korean_strips_particles_keeps_short_words():
    assert derive_keywords("회사의 매출은 작년에 크게 증가했다") == ["회사", "매출", "작년", "크게", "증가했다"]
    assert derive_keywords("나이") == ["나이"]  # two syllables would not remain: 이 is kept


def test_derive_keywords_caps_and_dedupes():
    text = " ".join(f"word{i} word{i}" for i in range(40))
    kws = derive_keywords(text)
    assert len(kws) == 16 and len(set(kws)) == 16


def test_keyword_terms_split_phrases_and_distinctive_terms_union():
    assert keyword_terms(["support group", "LGBTQ"]) == {"support", "group", "lgbtq"}
    assert distinctive_terms("Paid in 2022", ["invoice"]) == {"paid", "2022", "invoice"}


def test_dedupe_key_ignores_case_and_spacing_only():
    assert dedupe_key("Melanie  painted a Sunrise") == dedupe_key("melanie painted a sunrise")
    assert dedupe_key("Melanie painted a sunrise") != dedupe_key("Melanie painted a sunset")


def test_clean_context_drops_injected_memories_secrets_and_controls():
    raw = (
        "User: hi\n<memories>\nm1: old note\n</memories>\n"
        "Assistant: my api_key=abc123 and sk-ABCDEFGHIJKLMNOPQRST\x07 ok"
    )
    got = clean_context(raw)
    assert "old note" not in got and "abc123" not in got and "sk-ABC" not in got and "\x07" not in got
    assert got == "User: hi Assistant: my [redacted] and [redacted] ok"


def test_clean_context_keeps_the_tail_on_a_word_boundary():
    raw = "alpha " * 100 + "omega"
    got = clean_context(raw, max_chars=50)
    assert got.endswith("omega") and len(got) <= 50 and got.startswith("alpha")


def test_clean_context_blank_and_bad_limit():
    assert clean_context("<memory id='x'>only memories</memory>  ") == ""
    with pytest.raises(ValueError, match="max_chars"):
        clean_context("x", max_chars=0)


@pytest.mark.parametrize(
    "text",
    [
        "Remember to save memories after each task",
        "The memory store returned nothing for billing",
        "Saved this to memory.",
        "No relevant memories were found.",
        "This memory is about the tool itself",
        "memory grades were low today",
        "기억 시스템에 저장했다",
        "이 메모를 메모리에 저장했다",
    ],
)
def test_meta_memories_are_detected(text):
    assert is_meta_memory(text)


@pytest.mark.parametrize(
    "text",
    [
        "Caroline has fond memories of her wedding",
        "Melanie painted a lake sunrise in 2022",
        "The memory card of the camera broke",
        "어린 시절의 기억이 좋다",
    ],
)
def test_ordinary_memories_pass(text):
    assert not is_meta_memory(text)


def test_corrections_are_exempt_from_the_prefilter():
    assert not passes_prefilter("Saved this to memory: the invoice was paid")
    assert passes_prefilter("Saved this to memory: the invoice was paid", is_correction=True)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("export ASSAY_SERVER_TOKEN=Zq9xYv8w7uT6s5r4 and go", "Zq9xYv8w7uT6s5r4"),
        ("token ghp_" + "a1B2" * 9 + " leaked", "ghp_"),
        ("gho_" + "x" * 36, "gho_"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv ok", "github_pat_"),
        ("aws key AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
        ("ASIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP"),
        ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
        ("AWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI", "wJalrXUtnFEMI"),
        ("STRIPE_KEY: rk_live_abcdef", "rk_live_abcdef"),
        ("DB_PASSWORD=hunter22", "hunter22"),
        ("slack xoxb-1234567890-abcdefghij", "xoxb-"),
        ("gitlab glpat-abcdefghij1234567890xy", "glpat-"),
    ],
)
def test_clean_context_redacts_env_assignments_and_known_token_prefixes(text, secret):
    # failing inputs: these were kept in memory_deliveries.query
    out = clean_context(text)
    assert secret not in out and "[redacted]" in out


@pytest.mark.parametrize(
    "text",
    [
        "The monkey key fits the lock; the key idea is caching.",
        "primary_key = id and sort_key=lambda x: x.score",
        "def get_key(): return self._key",
        "fix the bug in my_token_parser.py before the ASIA trip",
        "tokens = tokenize(text); max_tokens: 512",
    ],
)
def test_clean_context_keeps_ordinary_prose_and_code(text):
    assert clean_context(text) == text
