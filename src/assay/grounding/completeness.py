"""Completeness: which facts the answer left out, which of those are material, and how much of a
gold reference answer's numbers it states. A signal, never a gate.

- ``cited``: facts cited by a marker or used to back a quantity (directly or as an operand);
- ``omitted``: the other facts of the snapshot; ``material_omitted``: omitted facts whose label
  matches a material label (configurable; default: core financial-statement line items and
  headline ratios, synonyms matched case-insensitively on word boundaries);
- ``reference_recall``: share of the reference answer's numbers that the answer states (at the
  coarser of the two displayed precisions, sign-insensitive, with or without the scale word:
  gold answers often drop the "million" their question asked for).

``score``: ``reference_recall`` when the case has a numeric reference; else the share of
material facts the answer used; else ``None`` (not measurable, dropped from the rubric).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assay.claims import Quantity, extract_quantities, find_citations
from assay.facts import Snapshot, canonical_number
from assay.grounding.concepts import DEFAULT_MATERIAL_LABELS, NOT_MATERIAL_AFTER, NOT_MATERIAL_BEFORE, synonym_pattern
from assay.grounding.gate import GateResult

__all__ = [
    "CompletenessResult",
    "DEFAULT_MATERIAL_LABELS",
    "NOT_MATERIAL_BEFORE",
    "NOT_MATERIAL_AFTER",
    "completeness",
    "is_material",
    "material_pattern",
]


class CompletenessResult(BaseModel):
    """Completeness of one answer (see module docstring)."""

    model_config = ConfigDict(frozen=True)
    cited: tuple[str, ...] = ()
    omitted: tuple[str, ...] = ()
    material_omitted: tuple[str, ...] = ()
    n_material: int = 0
    reference_recall: float | None = None
    n_reference: int = 0
    score: float | None = None
    basis: Literal["reference", "material"] | None = None


def is_material(label: str, material: Iterable[tuple[str, ...]] = DEFAULT_MATERIAL_LABELS) -> bool:
    """True when ``label`` mentions a material concept (case-insensitive, word boundaries)."""
    pattern = _DEFAULT_MATERIAL_RE if material is DEFAULT_MATERIAL_LABELS else material_pattern(material)
    return pattern.search(label) is not None


def material_pattern(material: Iterable[tuple[str, ...]]) -> re.Pattern[str]:
    """One case-insensitive regex matching any synonym of any material concept on word boundaries,
    except right after a word of :data:`NOT_MATERIAL_BEFORE` or right before one of
    :data:`NOT_MATERIAL_AFTER`."""
    return synonym_pattern(syn for concept in material for syn in concept)


def completeness(
    answer: str,
    snapshot: Snapshot,
    gate: GateResult | None = None,
    *,
    reference: str | float | list[str | float] | None = None,
    material: Iterable[tuple[str, ...]] = DEFAULT_MATERIAL_LABELS,
) -> CompletenessResult:
    """Completeness of ``answer`` against ``snapshot`` (and ``reference`` when given).

    ``gate`` (the answer's :class:`GateResult`) supplies the facts used to back quantities; without
    it only citation markers count as use.
    """
    ids = [f.id for f in snapshot.facts]
    used = set(find_citations(answer)) | (gate.used_refs if gate else set())
    cited = tuple(i for i in ids if i in used)
    omitted = tuple(i for i in ids if i not in used)
    pattern = _DEFAULT_MATERIAL_RE if material is DEFAULT_MATERIAL_LABELS else material_pattern(material)
    material_ids = [f.id for f in snapshot.facts if pattern.search(f.label)]
    material_omitted = tuple(i for i in material_ids if i not in used)

    ref_numbers = _reference_numbers(reference)
    recall = None
    if ref_numbers:
        answer_numbers = (gate.quantities if gate is not None else None) or extract_quantities(answer)
        stated = sum(any(_states(a, r) for a in answer_numbers) for r in ref_numbers)
        recall = stated / len(ref_numbers)
    score: float | None
    basis: Literal["reference", "material"] | None
    if recall is not None:
        score, basis = recall, "reference"
    elif material_ids:
        score, basis = 1 - len(material_omitted) / len(material_ids), "material"
    else:
        score, basis = None, None
    return CompletenessResult(
        cited=cited,
        omitted=omitted,
        material_omitted=material_omitted,
        n_material=len(material_ids),
        reference_recall=None if recall is None else round(recall, 4),
        n_reference=len(ref_numbers),
        score=None if score is None else round(score, 4),
        basis=basis,
    )


def _reference_numbers(reference: str | float | list[str | float] | None) -> list[Quantity]:
    if reference is None:
        return []
    items = reference if isinstance(reference, list) else [reference]
    out: list[Quantity] = []
    for item in items:
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            # a number given as a number is a quantity by construction (parsing its text would
            # drop 1950 as a year and 1e-05 as an exponent form)
            text = canonical_number(item)
            decimals = len(text.split(".")[1]) if "." in text else 0
            out.append(Quantity(text, (0, len(text)), float(item), decimals=decimals))
        elif isinstance(item, str):
            out.extend(extract_quantities(item))
    return out


def _states(a: Quantity, r: Quantity) -> bool:
    """Does answer quantity ``a`` state reference number ``r``? (lenient: see module docstring)"""
    decimals = min(a.decimals, r.decimals)
    tol = 0.5 * 10.0 ** (-decimals) * (1 + 1e-9)
    pairs = [(abs(a.value), abs(r.value)), (abs(a.base_value), abs(r.base_value))]
    if a.unit == "%" and r.unit is None and abs(r.value) <= 1:
        pairs.append((abs(a.value), abs(r.value) * 100))
    for x, y in pairs:
        scale = max(a.scale, r.scale) if x > 1e3 and y > 1e3 else 1.0
        if abs(x / scale - y / scale) <= tol:
            return True
    return False


_DEFAULT_MATERIAL_RE = material_pattern(DEFAULT_MATERIAL_LABELS)
