"""The sourcing gate: every quantity in an answer must be backed by the data.

Two modes (``auto`` picks ``cited`` when the answer has citation markers and the snapshot has facts, else ``uncited``):

- ``cited``: every quantity must sit in a sentence carrying a citation marker; every cited id
  must exist; the quantity must match one of the facts cited IN THAT SENTENCE, directly or by a
  one-operation derivation of them.
- ``uncited``: every quantity must match a fact of the snapshot or a number of the source
  passages, directly or by a one-operation derivation within ONE table row / line of a passage,
  or within facts of one period or one row label (``"row | column"`` labels group by row).

Matching rules (units, precision, signs) are in :mod:`assay.grounding.match`. The result is
``pass`` (every quantity matched), ``fail`` (a violation), ``no_claims`` (nothing checkable,
e.g. a refusal: explicit, never a silent pass) or ``unchecked`` (the only numbers are forms the
reader saw but could not interpret: not proven). :data:`GATE_VERSION` names the rules: bump it
whenever a rule changes (the memo cache re-gates on a version change).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

from assay.claims import DEFAULT_CITATION_PATTERN, Claim, Quantity, extract_claims, find_citations
from assay.facts import Snapshot
from assay.grounding.candidates import Candidate, derive
from assay.grounding.display import show_value
from assay.grounding.index import SnapshotIndex
from assay.grounding.match import CandidateSet, MatchResult, best_match, near_value, relative_precision
from assay.grounding.sentence_rules import sentence_reader
from assay.grounding.triggers import claim_triggers

__all__ = [
    "GATE_VERSION",
    "Mode",
    "GateResult",
    "Status",
    "UncheckedSpan",
    "Violation",
    "QuantityCheck",
    "CandidateRef",
    "check_answer",
    "resolve_mode",
]

#: Version of the gate's rules. Bump on any change of extraction or matching behaviour.
#: gate-2: extraction (``$-5``, ``(5)%``, ``$1.2-1.5 billion``, ``(2021)``, Korean dates, "fell to X", "a 2.8% fall"),
#: cells split at plain spaces; gate-3: "3M" is a name, directions follow periods; gate-4: a bare digit needs a fact.
#: gate-5: what a sentence says a number IS (:mod:`assay.grounding.acceptable`): loss/profit
#: wording must agree with the fact's sign, sums need different line items of one period or
#: licensing words, ``period_mismatch`` and ``label_mismatch``; the question licenses a
#: magnitude-only match of a negative figure; markers with no facts are ``unknown_citation``;
#: numbers in words match within their stated tolerance; status ``unchecked``.
#: gate-6: in cited mode a fact matches as displayed only through its ``displayed_value``
#: (``$6.13 [F1]`` no longer matches 6.13 USD millions); such matches say ``scale_from_display``;
#: a stated change ("2.9% higher than", "exceeded … by") matches against either cited base;
#: sign words on derivations, negligible operands, "respectively", partly dated derivations,
#: paragraph numbers judged as the line item they repeat, stricter line-item relation (context doc).
#: gate-7: an abbreviation's or an initial's period ("VMware, Inc.", "U.S.", "incl.", "Richard S. Hill")
#: ends no sentence and no clause, so the wording before it reaches the number; "2.9% higher in FY2022
#: than in FY2023" names its base (either marker order); a change's figures are ordered by an ordinal
#: column ("Third") or a date in the label, and a direction on figures nothing orders is rejected; a
#: stated scale on a unitless passage number needs its page to name it; a loss/profit word on a change
#: of figures of both signs must fit the later one; a paragraph number's own year is the one with no
#: other number between them; an item after "percentage of" followed by "out of/in the total" is the part;
#: a trailing leader dot ("Applications .") ends no line item; naming as a profit the question's loss item
#: ("net operating income carryforwards" for "net operating loss carryforwards") fails on unsigned labels.
#: gate-9 … 21: change amounts, % sources, forms, cents, page currency, prose, negative rows, a change's year, a
#: loss's size, Korean items: docs/gate-versions.md.
GATE_VERSION = "gate-21"

#: In uncited mode a derivation backs a number only when the number is stated to within 5%
#: (half a displayed unit ÷ value): a coarse "7" or "0.3 million" is "derivable" from almost
#: any table row, so such numbers must match a value directly. Measured on TAT-QA (closing
#: note of issue 2): it cuts the false-accept rate of moved answers without touching cited mode.
UNCITED_DERIVATION_MAX_REL_TOL = 0.05

#: In uncited mode a bare integer below 10 (no scale, sign, decimals, or unit but a currency: "1", "$3")
#: is checked against facts only, never against passage numbers, and is not checkable when the snapshot
#: has no facts: every page holds a "1" (a "$ 1"), so such a match is no evidence. Measured on FinanceBench
#: (issue 2; the currency in issue 15): answers whose "0" ("$0") was moved to "1" ("$1") matched any "1".
UNCITED_MIN_BARE_PASSAGE = 10

Mode = Literal["auto", "cited", "uncited"]
_VETO_KINDS = ("period_mismatch", "label_mismatch", "unit_mismatch")  # a veto of another kind: the mode's default
ViolationKind = Literal[
    "uncited", "unknown_citation", "value_mismatch", "unit_mismatch", "unsourced", "period_mismatch", "label_mismatch"
]


class CandidateRef(BaseModel):
    """The nearest candidate shown with a violation (fact id or passage location)."""

    model_config = ConfigDict(frozen=True)
    ref: str
    label: str
    value: float
    dim: str


class Violation(BaseModel):
    """One reason an answer fails the gate."""

    model_config = ConfigDict(frozen=True)
    kind: ViolationKind
    span: tuple[int, int]
    quantity: str
    candidate: CandidateRef | None = None
    reason: str


class QuantityCheck(BaseModel):
    """How one stated quantity was checked."""

    model_config = ConfigDict(frozen=True)
    text: str
    span: tuple[int, int]
    matched: bool
    ref: str | None = None
    derived_from: tuple[str, ...] | None = None
    op: str | None = None
    sign_from_wording: bool = False
    #: Matched through the candidate *as displayed* (its scale taken from the source's display,
    #: not from the answer: "$1,452.4" for a cell of 1,452.4 under "(in millions)").
    scale_from_display: bool = False


class UncheckedSpan(BaseModel):
    """A number-like form the reader saw but could not interpret (never silently passed)."""

    model_config = ConfigDict(frozen=True)
    text: str
    span: tuple[int, int]
    reason: str


Status = Literal["pass", "fail", "no_claims", "unchecked"]


class GateResult(BaseModel):
    """Outcome of the gate on one answer. ``sourcing`` = matched ÷ checkable (None if none).

    ``unchecked`` lists the spans the reader saw but could not interpret; a case whose only
    numbers are unchecked has status ``unchecked`` (not proven), one with checked numbers keeps
    the status they give and still lists them.
    """

    model_config = ConfigDict(frozen=True)
    status: Status
    mode: Literal["cited", "uncited"]
    gate_version: str = GATE_VERSION
    checks: tuple[QuantityCheck, ...] = ()
    violations: tuple[Violation, ...] = ()
    unchecked: tuple[UncheckedSpan, ...] = ()

    _quantities: tuple[Quantity, ...] | None = PrivateAttr(default=None)

    @property
    def quantities(self) -> tuple[Quantity, ...] | None:
        """The quantities read from the answer (None when built outside :func:`check_answer`)."""
        return self._quantities

    @property
    def n_checkable(self) -> int:
        return len(self.checks)

    @property
    def n_matched(self) -> int:
        return sum(c.matched for c in self.checks)

    @property
    def n_scale_from_display(self) -> int:
        """Matched quantities whose scale came from the display rule (``scale_from_display``)."""
        return sum(c.matched and c.scale_from_display for c in self.checks)

    @property
    def sourcing(self) -> float | None:
        return self.n_matched / self.n_checkable if self.checks else None

    @property
    def used_refs(self) -> set[str]:
        """Fact ids / passage refs that backed a quantity (directly or as an operand)."""
        out: set[str] = set()
        for c in self.checks:
            if c.matched:
                out.update(c.derived_from or ((c.ref,) if c.ref else ()))
        return out


def resolve_mode(
    answer: str, snapshot: Snapshot, mode: Mode = "auto", *, citation_pattern: str = DEFAULT_CITATION_PATTERN
) -> Literal["cited", "uncited"]:
    """``auto`` → ``cited`` when the answer has citation markers and the snapshot has facts, or
    has neither facts nor passages (every marker then names an unknown fact: ``unknown_citation``,
    not ``unsourced``)."""
    if mode != "auto":
        return mode
    if snapshot.sources and not snapshot.facts:
        return "uncited"
    return "cited" if find_citations(answer, citation_pattern) else "uncited"


def check_answer(
    answer: str,
    snapshot: Snapshot,
    *,
    mode: Mode = "auto",
    citation_pattern: str = DEFAULT_CITATION_PATTERN,
    index: SnapshotIndex | None = None,
    claims: Sequence[Claim] | None = None,
    question: str | None = None,
) -> GateResult:
    """Run the sourcing gate on ``answer`` against ``snapshot``.

    ``index`` (from :meth:`SnapshotIndex.build`) may be passed to reuse parsed candidates across
    answers of the same snapshot; ``claims`` (``extract_claims(answer,
    citation_pattern=citation_pattern)``, which depends on the text alone) to reuse an answer's
    parsed claims across snapshots — the caller guarantees they are of this ``answer``.
    ``question`` (optional) licenses a magnitude-only match of a negative figure when it names
    a loss, an outflow or a decrease (:func:`~assay.grounding.context.question_carries_sign`),
    and a sum when it asks for one. Returns a :class:`GateResult`; never raises on answer content.
    """
    used_mode = resolve_mode(answer, snapshot, mode, citation_pattern=citation_pattern)
    idx = index or SnapshotIndex.build(snapshot)
    if claims is None:
        claims = extract_claims(answer, citation_pattern=citation_pattern)
    if used_mode == "cited":
        checks, violations = _cited(claims, idx, question)
    else:
        checks, violations = _uncited(claims, idx, question)
    unchecked = tuple(UncheckedSpan(text=u.text, span=u.span, reason=u.reason) for c in claims for u in c.unchecked)
    status: Status
    if violations:
        status = "fail"
    elif not checks:
        status = "unchecked" if unchecked else "no_claims"
    else:
        status = "pass"
    result = GateResult(
        status=status, mode=used_mode, checks=tuple(checks), violations=tuple(violations), unchecked=unchecked
    )
    result._quantities = tuple(q for c in claims for q in c.numbers)
    return result


# --- modes ---------------------------------------------------------------------------------


def _cited(
    claims: Sequence[Claim], idx: SnapshotIndex, question: str | None = None
) -> tuple[list[QuantityCheck], list[Violation]]:
    checks: list[QuantityCheck] = []
    violations: list[Violation] = []
    for claim, may in zip(claims, claim_triggers(claims), strict=True):
        cited = [idx.fact(c) for c in claim.citations if idx.has_fact(c)]
        accept, license_sign = sentence_reader(claim, idx, question, partial(tuple, cited), True, may)
        unknown = [c for c in claim.citations if not idx.has_fact(c)]
        for cid in unknown:
            violations.append(
                Violation(
                    kind="unknown_citation",
                    span=claim.span,
                    quantity=f"[{cid}]",
                    reason=f"cites {cid!r}, which is not a fact of the snapshot",
                )
            )
        derived: list[Candidate] | None = None
        for q in claim.numbers:
            if not claim.citations:
                checks.append(QuantityCheck(text=q.text, span=q.span, matched=False))
                violations.append(
                    Violation(
                        kind="uncited",
                        span=q.span,
                        quantity=q.text,
                        reason="quantity in a sentence without a citation marker",
                    )
                )
                continue
            if derived is None:
                derived = derive(cited)
            r = best_match(license_sign(q), cited, derived, accept)
            checks.append(_check(q, r))
            if not r.matched:
                violations.append(
                    _violation(q, r, cited, "value_mismatch", "matches none of the facts cited in its sentence")
                )
    return checks, violations


def _uncited(
    claims: Sequence[Claim], idx: SnapshotIndex, question: str | None = None
) -> tuple[list[QuantityCheck], list[Violation]]:
    checks: list[QuantityCheck] = []
    violations: list[Violation] = []
    direct = idx.uncited_direct()
    derived: CandidateSet | None = None
    facts_only: CandidateSet | None = None

    def all_facts() -> CandidateSet:
        nonlocal facts_only
        facts_only = facts_only or idx.uncited_facts()  # one per index (an empty set was rebuilt per call)
        return facts_only

    for claim, may in zip(claims, claim_triggers(claims), strict=True):
        if not claim.numbers:
            continue
        accept, license_sign = sentence_reader(claim, idx, question, all_facts, False, may)
        for q in map(license_sign, claim.numbers):
            if _too_coarse_for_passages(q):
                if not idx.snapshot.facts:
                    continue  # not checkable: a lone digit "matches" some number on any page
                r = best_match(q, all_facts(), (), accept)
                checks.append(_check(q, r))
                if not r.matched:
                    violations.append(
                        _violation(q, r, all_facts(), "unsourced", "a bare single-digit number matches no fact")
                    )
                continue
            r = best_match(q, direct, (), accept)
            if not r.matched and relative_precision(q) <= UNCITED_DERIVATION_MAX_REL_TOL:
                if derived is None:  # (built only for a number precise enough to be a derivation's)
                    derived = idx.uncited_derived()
                d = best_match(q, [], derived, accept)
                r = d if d.matched or (d.rejected and not r.rejected) else r
            checks.append(_check(q, r))
            if not r.matched:
                violations.append(
                    _violation(
                        q,
                        r,
                        direct,
                        "unsourced",
                        "matches no fact or source number, nor a one-operation derivation of one row",
                    )
                )
    return checks, violations


def _too_coarse_for_passages(q: Quantity) -> bool:
    """A bare integer below :data:`UNCITED_MIN_BARE_PASSAGE` (no scale, sign, decimals, unit but a currency)."""
    return (
        (q.unit is None or (len(q.unit) == 3 and q.unit.isupper()))  # None or an ISO currency: "3", "$3"
        and q.scale == 1.0
        and q.decimals == 0
        and not q.explicit_sign
        and abs(q.value) < UNCITED_MIN_BARE_PASSAGE
    )


def _check(q: Quantity, r: MatchResult) -> QuantityCheck:
    c = r.candidate if r.matched else None
    return QuantityCheck(
        text=q.text,
        span=q.span,
        matched=r.matched,
        ref=c.ref if c else None,
        derived_from=c.derived_from or None if c else None,
        op=c.op if c else None,
        sign_from_wording=r.sign_from_wording,
        scale_from_display=r.scale_from_display,
    )


def _violation(
    q: Quantity, r: MatchResult, pool: list[Candidate] | CandidateSet, kind: ViolationKind, reason: str
) -> Violation:
    if r.rejected is not None and r.candidate is not None:
        rkind, rreason = r.rejected
        return Violation(
            kind=rkind if rkind in _VETO_KINDS else kind,  # type: ignore[arg-type]
            span=q.span,
            quantity=q.text,
            candidate=_ref(r.candidate),
            reason=rreason,
        )
    if r.unit_mismatch and r.candidate is not None:
        c = r.candidate
        return Violation(
            kind="unit_mismatch",
            span=q.span,
            quantity=q.text,
            candidate=_ref(c),
            reason=f"the value matches {c.ref} but its unit ({c.dim}) does not fit {q.unit or 'a bare number'}",
        )
    near = near_value(q, pool)
    return Violation(
        kind=kind,
        span=q.span,
        quantity=q.text,
        candidate=_ref(near) if near else None,
        reason=reason + (f"; nearest: {near.ref} = {show_value(near)}" if near else ""),
    )


def _ref(c: Candidate) -> CandidateRef:
    return CandidateRef(ref=c.ref, label=c.label, value=c.value, dim=c.dim)
