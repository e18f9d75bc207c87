"""The ``heuristic`` backend of the rationality judge: deterministic rules whose validity beyond
trajectory length is not established (on unseen tau-bench tasks their AUC against reward did not
beat trajectory length; issue 16). Do not tune them further on tau-bench tasks 0–39: that would
only fit those tasks.

Each axis starts at 1 and loses ``exp``-shaped credit per finding: ``score = exp(-Σ w_k · n_k)``
(4 decimals), so one finding costs a fixed share of what is left and no count of findings drives
a score below 0. The findings per axis (each with its weight in :class:`RuleParams`):

``planner_decomposition`` (``planner.query_type``, ``planner.stage_sequence``; ``steps`` for the
confirmation rule):
  - ``off_type``: a state-changing stage whose verb does not fit the query type (a ``cancel``
    query that books, a ``book`` query that cancels; :data:`QUERY_FIT`);
  - ``redo``: a state-changing stage run again (the first run had to be corrected);
  - ``unconfirmed``: a state-changing call made when no user turn since the agent last spoke
    agreed to it (only in traces with user turns);
  - ``overlong``: stages beyond ``max_stages``, per extra ``max_stages`` stages;
  - ``state_change``: every state-changing call that took effect (its result is not an error),
    the first one included: each irreversible action is a risk the plan has to justify, and the
    same goal reached with fewer is the better plan (a failed call changed nothing: it counts
    as an ``error`` on the recalls axis instead).
``retrieval_recalls`` (``planner.attempts[*]``; ``steps`` to see whether an error was reacted to):
  - ``no_new_reason``: a re-call with the same arguments and nothing changed since (no
    ``after_state_change``), or a retry whose reasons repeat an earlier retry of that stage;
  - ``ignored_error``: a tool error that is neither retried nor acknowledged in the agent's next
    message;
  - ``error``: every tool error (small: errors happen, but each one is a detour);
  - ``ungrounded_argument``: a value in the arguments of a state-changing call that no earlier
    user turn or tool output contained (acting on a value nobody retrieved or gave).
``answer_reasoning`` (``synthesis_llm_call``; ``steps`` for the turns before it):
  - ``unseen_value``: a value (amount, number ≥ 10, date, time, code) an agent message states that
    no earlier step (user turn, tool output, other message) or the prompt contained;
  - ``unbacked_claim``: a message claiming a completed action ("has been cancelled") with no
    successful state-changing call of that kind before it (only in traces with tool calls).

User, human and system turns and tool outputs are evidence; every other actor's message is a
claim to check (the values compared are found by :mod:`assay.judges.rationality_values`).
Thresholds and weights were fitted on tau-bench airline tasks 0–19 only (:class:`RuleParams`)
and are reported on tasks 20–39 (``benchmarks/bench_rationality_validity.py``): composite AUC
against ``reward`` 0.818 [0.650, 0.944] there, against 0.741 for trajectory length alone (paired
difference +0.077, 95% CI [−0.074, +0.238] over 20 tasks: the margin is not significant at this
size). On the fit split 0.659 vs length 0.599. Rule names and counts are in each case's
``details``.

The scores rank runs; they are not absolute grades. ``state_change`` is a prior for caution, not
a flaw: a correct run that changes state once scores ``exp(-state_change)`` (0.37 with the
defaults) on the planner axis, and a read-only run with no finding 1. It was the one rule that
separated runs of the same kind on the fit split (counting the first change took the fit-split
AUC from 0.603 to 0.659; rules-1 counted changes after the first only). Callers that judge
write-heavy agents against each other can lower it in :class:`RuleParams`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from assay.judges.rationality_values import evidence_values, extract_values, memo_evidence_values
from assay.traces import Step, Trace, has_axis_input, is_state_changing, stage_verb

__all__ = [
    "RULES_VERSION",
    "RuleParams",
    "DEFAULT_PARAMS",
    "START_PARAMS",
    "WEIGHT_GRID",
    "STAGE_GRID",
    "QUERY_FIT",
    "heuristic_scores",
    "findings",
    "axis_scores",
]

RULES_VERSION = "rationality-rules-2"

#: Query type → the state-changing verbs that fit it; a type not listed is not checked.
#: ``account`` (a balance question) fits no state change at all.
QUERY_FIT: dict[str, frozenset[str]] = {
    "cancel": frozenset({"cancel", "refund"}),
    "book": frozenset({"book", "create"}),
    "modify": frozenset({"update", "modify", "set", "add", "remove", "exchange"}),
    "baggage": frozenset({"update", "add", "modify"}),
    "complaint": frozenset({"send", "issue", "refund", "cancel"}),
    "account": frozenset(),
}


@dataclass(frozen=True)
class RuleParams:
    """Weights (credit lost per finding, in ``exp(-w·n)``) and thresholds of the rules.

    The defaults are the fit on tau-bench airline tasks 0–19 (coordinate ascent of the
    composite's AUC against ``reward`` over the grid :data:`WEIGHT_GRID` / :data:`STAGE_GRID`,
    3 rounds, from :data:`START_PARAMS`; :func:`assay.judges.rationality_validity.fit_rule_params`).
    The grid has no 0, so the fit tunes how much a rule counts but cannot switch a rule off.
    """

    off_type: float = 0.05
    redo: float = 0.05
    unconfirmed: float = 0.05
    overlong: float = 0.5
    max_stages: int = 12
    state_change: float = 1.0
    no_new_reason: float = 0.5
    ignored_error: float = 0.5
    error: float = 0.05
    ungrounded_argument: float = 0.25
    unseen_value: float = 0.05
    unbacked_claim: float = 0.05


#: Where the fit starts: a priori weights (a rule that is clearly irrational costs 0.5, a detour 0.1).
START_PARAMS = RuleParams(
    off_type=0.5,
    redo=0.3,
    unconfirmed=0.3,
    overlong=0.5,
    max_stages=12,
    state_change=0.1,
    no_new_reason=0.5,
    ignored_error=0.5,
    error=0.1,
    ungrounded_argument=0.2,
    unseen_value=0.05,
    unbacked_claim=0.5,
)
#: Weight values the fit may choose (no 0: a rule cannot be switched off by the fit).
WEIGHT_GRID: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 1.0)
#: ``max_stages`` values the fit may choose.
STAGE_GRID: tuple[int, ...] = (6, 8, 10, 12, 16, 20, 30)
DEFAULT_PARAMS = RuleParams()

_AFFIRM = re.compile(
    r"\b(yes|yeah|yep|confirm\w*|proceed|go ahead|sure|please do|correct|sounds good|ok|okay|do it"
    r"|that works|perfect|great)\b",
    re.I,
)
_ACK = re.compile(
    r"\b(error|fail\w*|unable|unfortunately|cannot|can't|could not|couldn't|issue|problem"
    r"|not (available|enough|found|possible)|sorry|apolog\w*)\b",
    re.I,
)
_CLAIM = re.compile(r"\b(?:has|have) been (?:successfully )?(\w+ed)\b|\bsuccessfully (\w+ed)\b", re.I)
_CLAIM_VERB = {
    "updated": "update",
    "added": "add",
    "changed": "update",
    "modified": "modify",
    "upgraded": "update",
    "downgraded": "update",
    "removed": "remove",
    "cancelled": "cancel",
    "canceled": "cancel",
    "booked": "book",
    "issued": "send",
    "sent": "send",
    "refunded": "refund",
    "created": "create",
    "deleted": "delete",
}
_CLAIM_FAMILY = {
    "update": {"update", "modify", "add", "remove", "set"},
    "add": {"add", "update"},
    "modify": {"update", "modify"},
    "remove": {"remove", "update", "delete"},
    "cancel": {"cancel"},
    "book": {"book", "create"},
    "send": {"send", "issue"},
    "refund": {"refund", "cancel", "send"},
    "create": {"create", "book"},
    "delete": {"delete", "remove", "cancel"},
}
#: Actors whose messages are evidence (the person, the system policy), never claims to check.
_HUMAN = {"user", "human", "system"}
#: Actors who can agree to an action.
_PEOPLE = {"user", "human"}


def heuristic_scores(
    trace: Trace, params: RuleParams = DEFAULT_PARAMS, *, memo: dict[str, frozenset[str]] | None = None
) -> tuple[dict[str, float | None], dict[str, str], dict[str, Any]]:
    """Score ``trace`` on the three axes; returns ``(scores, reasons, details)``.

    ``scores[axis]`` in [0, 1] (4 decimals), ``answer_reasoning`` ``None`` without a synthesis
    call; ``reasons[axis]`` names the findings; ``details`` holds the finding counts per axis.
    ``memo``: a dict the caller keeps for one run, holding the evidence values of long texts that
    recur across traces (a system prompt repeated in every trace is scanned once).
    """
    found = findings(trace, params, memo=memo)
    reasons: dict[str, str] = {}
    for axis, counts in found.items():
        if counts is not None:
            hits = [f"{k}×{n:g}" for k, n in counts.items() if n]
            reasons[axis] = ", ".join(hits) if hits else "no finding"
    return (
        axis_scores(found, params),
        reasons,
        {"rules": RULES_VERSION, "findings": {a: c for a, c in found.items() if c is not None}},
    )


def findings(
    trace: Trace, params: RuleParams = DEFAULT_PARAMS, *, memo: dict[str, frozenset[str]] | None = None
) -> dict[str, dict[str, float] | None]:
    """Finding counts per axis (``None`` for an axis without input); see the module docstring."""
    evidence = [memo_evidence_values(s.content, memo) for s in trace.steps]  # once per step
    return {  # the axes measured are those with an input (assay.traces.has_axis_input)
        "planner_decomposition": _planner(trace, params) if has_axis_input(trace, "planner_decomposition") else None,
        "retrieval_recalls": _recalls(trace, evidence) if has_axis_input(trace, "retrieval_recalls") else None,
        "answer_reasoning": _answer(trace, evidence) if has_axis_input(trace, "answer_reasoning") else None,
    }


def axis_scores(
    found: dict[str, dict[str, float] | None], params: RuleParams = DEFAULT_PARAMS
) -> dict[str, float | None]:
    """Scores of :func:`findings` counts: ``exp(-Σ w_k · n_k)`` per axis, 4 decimals (``None`` stays ``None``)."""
    weights = params.__dict__
    return {
        axis: None if counts is None else round(math.exp(-math.fsum(weights[k] * n for k, n in counts.items())), 4)
        for axis, counts in found.items()
    }


# --- rules ---------------------------------------------------------------------------------


def _planner(trace: Trace, p: RuleParams) -> dict[str, float]:
    stages = list(trace.planner.stage_sequence)
    changing = [s for s in stages if is_state_changing(s)]
    fit = QUERY_FIT.get((trace.planner.query_type or "").lower())
    off = sum(1 for s in changing if fit is not None and stage_verb(s) not in fit)
    redo = len(changing) - len(set(changing))
    overlong = max(0, len(stages) - p.max_stages) / p.max_stages
    return {
        "off_type": off,
        "redo": redo,
        "unconfirmed": _unconfirmed(trace.steps),
        "overlong": round(overlong, 4),
        "state_change": _completed_changes(trace.steps) if trace.steps else len(changing),
    }


def _completed_changes(steps: tuple[Step, ...]) -> int:
    """State-changing calls whose result (the next step) is not a tool error; a call with no
    recorded result counts (nothing says it failed)."""
    n = 0
    for k, s in enumerate(steps):
        if s.kind == "tool_call" and s.name and is_state_changing(s.name):
            nxt = steps[k + 1] if k + 1 < len(steps) else None
            n += nxt is None or nxt.kind != "tool_result" or not nxt.error
    return n


def _unconfirmed(steps: tuple[Step, ...]) -> int:
    if not any(s.actor in _PEOPLE for s in steps):
        return 0
    n, agreed = 0, False
    for s in steps:
        if s.kind == "message" and s.actor == "system":
            continue
        if s.kind == "message" and s.actor in _PEOPLE:
            agreed = agreed or bool(_AFFIRM.search(s.content))
        elif s.kind == "message":
            agreed = False  # the agent spoke again: a new proposal needs a new yes
        elif s.kind == "tool_call" and s.name and is_state_changing(s.name):
            n += not agreed
    return n


def _recalls(trace: Trace, evidence: list[Any]) -> dict[str, float]:
    attempts = trace.planner.attempts
    no_reason = ignored = errors = 0
    seen: set[tuple[str | None, tuple[str, ...]]] = set()
    for i, a in enumerate(attempts):
        why = tuple(r for r in a.verification_reasons if not r.startswith("tool_error"))
        same = "same_arguments" in why and "after_state_change" not in why
        repeat = bool(why) and (a.stage, why) in seen and not any(r.startswith("new_arguments") for r in why)
        no_reason += same or repeat or any(r.startswith("same_content_as_step") for r in why)
        seen.add((a.stage, why))
        if a.outcome == "error" or any(r.startswith("tool_error") for r in a.verification_reasons):
            errors += 1
            retried = any(
                b.stage == a.stage and "after_tool_error" in b.verification_reasons for b in attempts[i + 1 :]
            )
            ignored += not retried and not _acknowledged(trace.steps, a.step)
    return {
        "no_new_reason": no_reason,
        "ignored_error": ignored,
        "error": errors,
        "ungrounded_argument": _ungrounded_arguments(trace.steps, evidence),
    }


def _ungrounded_arguments(steps: tuple[Step, ...], step_evidence: list[Any]) -> int:
    """Values in the arguments of state-changing calls that no earlier user/system turn or tool
    output contained (acting on a value nobody retrieved or gave)."""
    known: set[str] = set()
    n = 0
    for s, ev in zip(steps, step_evidence, strict=True):
        if s.kind == "tool_call" and s.name and is_state_changing(s.name):
            n += len(extract_values(" ".join(_leaves(s.arguments))) - known)
        elif s.kind == "tool_result" or s.actor in _HUMAN:
            known |= ev
    return n


def _leaves(x: Any) -> list[str]:
    if isinstance(x, dict):
        return [v for item in x.values() for v in _leaves(item)]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _leaves(item)]
    return [] if x is None or isinstance(x, bool) else [str(x)]


def _acknowledged(steps: tuple[Step, ...], at: int | None) -> bool:
    """True when the first agent message after step ``at`` mentions a problem (or unknown)."""
    if at is None or not steps:
        return True
    for s in steps:
        if s.index > at and s.kind == "message" and s.actor not in _HUMAN:
            return bool(_ACK.search(s.content))
    return False


def _answer(trace: Trace, step_evidence: list[Any]) -> dict[str, float]:
    call = trace.synthesis_llm_call
    assert call is not None
    steps = trace.steps
    if not steps:
        return {
            "unseen_value": len(extract_values(call.completion_text) - evidence_values(call.user_prompt_text)),
            "unbacked_claim": 0,
        }
    known = evidence_values(call.user_prompt_text) if steps[0].index > 0 else set()
    has_tools = any(s.kind == "tool_call" for s in steps)
    unseen = unbacked = 0
    done: set[str] = set()
    for k, (s, ev) in enumerate(zip(steps, step_evidence, strict=True)):
        if s.kind == "message" and s.actor not in _HUMAN:
            unseen += len(extract_values(s.content) - known)
            if has_tools:
                unbacked += sum(1 for verb in _claims(s.content) if not (_CLAIM_FAMILY.get(verb, {verb}) & done))
        elif s.kind == "tool_call" and s.name and is_state_changing(s.name):
            nxt = steps[k + 1] if k + 1 < len(steps) else None
            if nxt is None or nxt.kind != "tool_result" or not nxt.error:
                done.add(stage_verb(s.name))
        known |= ev
    return {"unseen_value": unseen, "unbacked_claim": unbacked}


def _claims(text: str) -> list[str]:
    out = []
    for m in _CLAIM.finditer(text):
        verb = _CLAIM_VERB.get((m.group(1) or m.group(2) or "").lower())
        if verb:
            out.append(verb)
    return out
