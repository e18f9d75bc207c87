"""Impersonal check: deterministic flags for personalised advice in an answer.

A research memo or RAG answer states facts about a company; it must not address the reader with
personal advice ("you should buy", "I recommend you", "your portfolio"). Each rule has a
severity; ``score = max(0, 1 − Σ severity)`` in [0, 1] (1 = impersonal). Rules are patterns,
not a classifier: they are explainable, free and deterministic, and each flag carries its span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

__all__ = ["ImpersonalFlag", "ImpersonalResult", "IMPERSONAL_RULES", "check_impersonal"]


@dataclass(frozen=True)
class Rule:
    """One pattern of personalised advice and how much it costs the score."""

    name: str
    pattern: re.Pattern[str]
    severity: float


_I = re.IGNORECASE
#: The rules, most severe first. Investment directives and recommendations to the reader cost
#: the whole score; addressing the reader's own holdings costs half (it personalises without
#: directing); any other second-person directive ("you should refer to the 10-K") costs a
#: quarter: it addresses the reader but is not advice. A span is flagged by its first rule only.
IMPERSONAL_RULES: tuple[Rule, ...] = (
    Rule(
        "second_person_investment_directive",
        re.compile(
            r"\byou\s+(?:should|must|ought\s+to|need\s+to|have\s+to|had\s+better|might\s+want\s+to|may\s+want\s+to)\s+(?:(?:definitely|probably|seriously|also|not|now)\s+)?(?:buy|sell|hold|short|invest|divest|consider\s+(?:buying|selling|investing)|avoid|allocate|add|trim|increase\s+your|reduce\s+your|diversify|rebalance)\b",
            _I,
        ),
        1.0,
    ),
    Rule(
        "recommendation_to_reader",
        re.compile(r"\b(?:I|we)\s+(?:would\s+|strongly\s+)?(?:recommend|advise|suggest|urge)(?:\s+that)?\s+you\b", _I),
        1.0,
    ),
    Rule(
        "trade_recommendation",
        re.compile(
            r"\b(?:I|we)\s+(?:would\s+|strongly\s+)?(?:recommend|advise|suggest)\s+(?:buying|selling|holding|shorting|investing|adding|accumulating)\b",
            _I,
        ),
        1.0,
    ),
    Rule(
        "imperative_trade",
        re.compile(
            r"(?:^|[.!?]\s+)(?:(?:buy|sell|short|hold)\s+(?:the|this|these|its|their|more|shares|stocks?|now)\b|consider\s+(?:buying|selling|shorting)\b|don't\s+miss\b)",
            _I | re.M,
        ),
        1.0,
    ),
    Rule("korean_directive", re.compile(r"(?:매수|매도|투자)\s*(?:하세요|하십시오|를\s*추천)"), 1.0),
    Rule(
        "second_person_directive",
        re.compile(
            r"\byou\s+(?:should|must|ought\s+to|need\s+to|have\s+to|had\s+better|might\s+want\s+to|may\s+want\s+to)\b",
            _I,
        ),
        0.25,
    ),
    Rule(
        "reader_holdings",
        re.compile(
            r"\byour\s+(?:portfolio|investments?|money|savings|retirement|risk\s+tolerance|situation|goals?|holdings?|position|account)\b",
            _I,
        ),
        0.5,
    ),
)


class ImpersonalFlag(BaseModel):
    """One flagged phrase: rule name, span ``[start, end)`` and the text."""

    model_config = ConfigDict(frozen=True)
    rule: str
    span: tuple[int, int]
    text: str
    severity: float


class ImpersonalResult(BaseModel):
    """Flags found and the score in [0, 1]."""

    model_config = ConfigDict(frozen=True)
    score: float
    flags: tuple[ImpersonalFlag, ...] = ()


def check_impersonal(answer: str, rules: tuple[Rule, ...] = IMPERSONAL_RULES) -> ImpersonalResult:
    """Flag personalised advice in ``answer``; score = max(0, 1 − Σ severity of the flags)."""
    flags: list[ImpersonalFlag] = []
    taken: list[tuple[int, int]] = []
    for rule in rules:
        for m in rule.pattern.finditer(answer):
            s, e = m.span()
            while s < e and not answer[s].isalnum():
                s += 1
            if any(s < te and ts < e for ts, te in taken):
                continue
            taken.append((s, e))
            flags.append(ImpersonalFlag(rule=rule.name, span=(s, e), text=answer[s:e], severity=rule.severity))
    flags.sort(key=lambda f: f.span)
    score = max(0.0, 1.0 - sum(f.severity for f in flags))
    return ImpersonalResult(score=round(score, 4), flags=tuple(flags))
