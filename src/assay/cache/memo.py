"""Memos, cache statuses, keys, request checks, and the gate as the cache runs it.

A :class:`Memo` is what the cache stores and serves: the answer, its citations, the snapshot
fingerprint and synthesis version it was written from, and the gate (and, from
:func:`~assay.cache.guarded_synthesis`, completeness and judge) results at write time.
:func:`gate_answer` gives exactly ``check_answer(answer, snapshot, mode=gate_mode)`` but cheaply
enough for the hit path: the one scoring path (:func:`assay.grounding.score_answer`), gate only,
with the cache's :class:`~assay.grounding.IndexCache`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from assay.cache.config import MAX_KEY_CHARS
from assay.claims import find_citations
from assay.facts import Snapshot
from assay.grounding import GateResult, IndexCache, score_answer
from assay.grounding.completeness import CompletenessResult

__all__ = [
    "CacheStatus",
    "STATUSES",
    "COUNTED_STATUSES",
    "GateMode",
    "GATE_MODES",
    "Memo",
    "make_key",
    "check_request",
    "gate_answer",
    "gate_accepts",
    "gate_summary",
    "failed_detail",
    "build_memo",
]

#: Outcome of one request (see :class:`~assay.cache.MemoCache` for when each occurs).
CacheStatus = Literal[
    "hit",
    "miss",
    "stale_fingerprint",
    "stale_synthesis",
    "stale_gate",
    "expired",
    "regate_failed",
    "gate_failed",
    "judge_failed",
    "bypassed",
]
STATUSES: tuple[str, ...] = get_args(CacheStatus)
#: Statuses counted in ``memo_cache_counts`` (a bypassed request never touches the database).
COUNTED_STATUSES: tuple[str, ...] = tuple(s for s in STATUSES if s != "bypassed")

GateMode = Literal["auto", "cited", "uncited"]
GATE_MODES: tuple[str, ...] = get_args(GateMode)


class Memo(BaseModel):
    """A synthesised answer with its provenance and checks.

    ``fingerprint`` is the :meth:`Snapshot.fingerprint` of the data it was written from;
    ``synthesis_version`` the caller's prompt/model id; ``gate`` the sourcing gate at write time;
    ``completeness`` and ``judge`` (a judge verdict as a dict: ``status``, ``score``, …) are set by
    :func:`~assay.cache.guarded_synthesis`; ``created_at`` is seconds since the Unix epoch.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    answer: str
    citations: tuple[str, ...] = ()
    fingerprint: str
    synthesis_version: str = ""
    gate: GateResult
    completeness: CompletenessResult | None = None
    judge: dict[str, Any] | None = None
    created_at: float


def make_key(product: str, identifier: str, mode: str) -> str:
    """The cache key ``{product}:{identifier}:{mode}`` (e.g. ``memo:AAPL-FY2023:brief``).

    ``product`` and ``mode`` may not contain ``:`` (so a key splits back unambiguously);
    ``identifier`` may. Raises ``ValueError`` naming the empty or malformed part.
    """
    for name, part in (("product", product), ("identifier", identifier), ("mode", mode)):
        if not isinstance(part, str) or not part.strip():
            raise ValueError(f"{name}: must be a non-empty string, got {part!r}")
    for name, part in (("product", product), ("mode", mode)):
        if ":" in part:
            raise ValueError(f"{name}: may not contain ':', got {part!r}")
    return f"{product}:{identifier}:{mode}"


def check_request(key: str, ttl_s: float, gate_mode: str) -> None:
    """Validate a request's key, TTL and gate mode; raises ``ValueError`` naming the problem."""
    if not isinstance(key, str) or not key.strip():
        raise ValueError(f"key: must be a non-empty string, got {key!r}")
    if len(key) > MAX_KEY_CHARS:
        raise ValueError(f"key: {len(key)} characters, at most {MAX_KEY_CHARS}")
    if isinstance(ttl_s, bool) or not isinstance(ttl_s, (int, float)) or not math.isfinite(ttl_s) or ttl_s <= 0:
        raise ValueError(f"ttl_s: must be a positive finite number of seconds, got {ttl_s!r}")
    if gate_mode not in GATE_MODES:
        raise ValueError(f"gate_mode: must be one of {', '.join(GATE_MODES)}, got {gate_mode!r}")


def gate_accepts(gate: GateResult, accept_no_claims: bool = False) -> bool:
    """True when a memo with this gate result may be stored or served: ``pass``, or
    ``no_claims`` when the caller accepts answers with nothing checkable (never by default:
    a refusal is explicit, not a silent pass). Never with unchecked spans (numbers the reader
    could not interpret are not proven)."""
    if gate.unchecked:
        return False
    return gate.status == "pass" or (accept_no_claims and gate.status == "no_claims")


def gate_summary(gate: GateResult) -> str:
    """One line on a gate result for cache details: ``"fail: 2 violation(s): unsourced"``."""
    if gate.status == "no_claims":
        return "no_claims: nothing checkable"
    if gate.unchecked:
        return f"{gate.status}: {len(gate.unchecked)} unchecked span(s)"
    kinds = sorted({v.kind for v in gate.violations})
    return f"{gate.status}: {len(gate.violations)} violation(s): {', '.join(kinds)}" if kinds else gate.status


def failed_detail(gate: GateResult) -> str:
    """The detail of a ``gate_failed`` request (a fresh memo that failed the gate)."""
    return f"fresh memo failed the gate ({gate_summary(gate)}); not stored"


def gate_answer(
    answer: str,
    snapshot: Snapshot,
    gate_mode: GateMode = "auto",
    *,
    fingerprint: str | None = None,
    indexes: IndexCache | None = None,
) -> GateResult:
    """The sourcing gate of ``answer`` against ``snapshot``: the same result as
    ``check_answer(answer, snapshot, mode=gate_mode)``, computed faster.

    With ``indexes`` (keyed by ``fingerprint``, computed when not given) the snapshot's index
    and the answer's claims are reused across requests; without, cited mode still touches only
    the cited facts (the gate's index is lazy). Never raises on answer content.
    """
    return score_answer(answer, snapshot, mode=gate_mode, indexes=indexes, fingerprint=fingerprint, gate_only=True).gate


def build_memo(
    snapshot: Snapshot,
    synthesize: Callable[[Snapshot], str],
    *,
    fingerprint: str,
    synthesis_version: str,
    gate_mode: GateMode,
    indexes: IndexCache | None = None,
    clock: Callable[[], float] = time.time,
) -> Memo:
    """Call ``synthesize(snapshot)`` once and gate its answer; returns the (unstored) :class:`Memo`.

    Raises ``TypeError`` when ``synthesize`` returns something other than ``str``; exceptions
    of ``synthesize`` propagate.
    """
    answer = synthesize(snapshot)
    if not isinstance(answer, str):
        raise TypeError(f"synthesize must return the answer text (str), got {type(answer).__name__}")
    gate = gate_answer(answer, snapshot, gate_mode, fingerprint=fingerprint, indexes=indexes)
    return Memo(
        answer=answer,
        citations=tuple(dict.fromkeys(find_citations(answer))),
        fingerprint=fingerprint,
        synthesis_version=synthesis_version,
        gate=gate,
        created_at=clock(),
    )
