"""The two runs a statement is checked on: per-case scores by (case id, variant), and how they pair.

A run is any assay ``*.local.json`` (``eval`` or ``rationality``, any schema): records with
``id``, ``variant`` and ``scores`` (dimension → number in [0, 1] or ``null``). What a dimension
means can change with a file's schema: an ``eval`` schema-1 ``composite`` is the answered-only
composite (a ``no_claims`` case is ``null``), which schema 2 calls ``composite_answered`` and
replaces by a headline that scores ``no_claims`` as 0. So ``composite_answered`` reads a schema-1
file's ``composite``, and a ``composite`` claim across the two schemas is refused, saying which
dimension to use instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.effects.statements import StatedEffect

__all__ = ["EffectInputError", "Pairing", "RunScores", "paired_values", "run_scores"]

Key = tuple[str, str]


class EffectInputError(ValueError):
    """Input that cannot be checked: an unknown dimension or variant, runs of two kinds, a
    ``composite`` compared across eval schemas. The message names what exists."""


@dataclass(frozen=True)
class RunScores:
    """One run's scores: ``scores[(case id, variant)][dimension]`` (``None`` = not measured), its
    ``kind`` (``eval`` | ``rationality``), ``schema`` number and a ``name`` for messages."""

    name: str
    kind: str
    schema: int
    scores: Mapping[Key, Mapping[str, float | None]]

    @property
    def variants(self) -> list[str]:
        """The variants the run holds, sorted."""
        return sorted({v for _, v in self.scores})

    def dimensions(self, variant: str | None = None) -> set[str]:
        """Every dimension some case (of ``variant``, if given) has a key for."""
        return {d for (_, v), s in self.scores.items() if variant is None or v == variant for d in s}


def run_scores(data: Mapping[str, Any], name: str) -> RunScores:
    """A :class:`RunScores` from a local file's JSON object.

    Raises:
        EffectInputError: no ``cases`` list, a record without ``id``/``variant``/``scores``, a
            score that is not a number in [0, 1] or ``null``, or a duplicate (id, variant) —
            ``name: cases[i].field: problem``.
    """
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise EffectInputError(f"{name}: cases: not an assay *.local.json (no 'cases' list)")
    scores: dict[Key, dict[str, float | None]] = {}
    for i, r in enumerate(cases):
        if not isinstance(r, Mapping) or not {"id", "variant", "scores"} <= r.keys():
            raise EffectInputError(f"{name}: cases[{i}]: needs id, variant and scores")
        if not isinstance(r["scores"], Mapping):
            raise EffectInputError(f"{name}: cases[{i}].scores: expected an object of dimension → score")
        row: dict[str, float | None] = {}
        for d, v in r["scores"].items():
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or not 0.0 <= v <= 1.0):
                raise EffectInputError(f"{name}: cases[{i}].scores.{d}: expected a number in [0, 1] or null, got {v!r}")
            row[str(d)] = None if v is None else float(v)
        key = (str(r["id"]), str(r["variant"]))
        if key in scores:
            raise EffectInputError(f"{name}: cases[{i}]: duplicate (id, variant) {key!r}")
        scores[key] = row
    schema = data.get("schema")
    return RunScores(
        name=name,
        kind=str(data.get("kind", "eval")),
        schema=schema if isinstance(schema, int) and not isinstance(schema, bool) else 1,
        scores=scores,
    )


@dataclass(frozen=True)
class Pairing:
    """Which records pair: ``base_variant``/``head_variant`` both set (pair on case id within
    those variants), or both ``None`` (pair on (case id, variant))."""

    base_variant: str | None
    head_variant: str | None

    @classmethod
    def for_statement(cls, s: StatedEffect, base_variant: str | None, head_variant: str | None) -> Pairing:
        """The statement's pairing: the flags (one given: the same name on both sides), else its
        ``variant.`` prefix, else pairs on (case id, variant).

        Raises:
            EffectInputError: a statement with a ``variant.`` prefix while the flags name variants.
        """
        if base_variant or head_variant:
            if s.variant is not None:
                raise EffectInputError(
                    f"line {s.line}: {s.label}: a variant prefix and --base-variant/--head-variant "
                    "both name variants; use one"
                )
            return cls(base_variant or head_variant, head_variant or base_variant)
        if s.variant is not None:
            return cls(s.variant, s.variant)
        return cls(None, None)


def paired_values(
    base: RunScores, head: RunScores, dimension: str, pairing: Pairing
) -> tuple[dict[Any, float], dict[Any, float], int]:
    """``(base values, head values, dropped)`` on ``dimension``, keyed by the pairing's key; only
    keys present in both runs with both values not ``None`` are kept; ``dropped`` counts the keys
    present in both with a ``None`` side.

    Raises:
        EffectInputError: runs of different kinds, an unknown variant or dimension (naming the
            ones that exist), or ``composite`` across eval schema 1 and a later schema.
    """
    if base.kind != head.kind:
        raise EffectInputError(f"{base.name} is a {base.kind} run and {head.name} a {head.kind} run: nothing to pair")
    if dimension == "composite" and base.kind == "eval" and (base.schema == 1) != (head.schema == 1):
        raise EffectInputError(
            f"{base.name} is eval schema {base.schema} and {head.name} eval schema {head.schema}: their "
            "`composite` differ (schema 1 = answered-only; schema 2 scores no_claims as 0); "
            "claim `composite_answered` to compare the answered-only composites"
        )
    b = _side(base, dimension, pairing.base_variant)
    h = _side(head, dimension, pairing.head_variant)
    shared = b.keys() & h.keys()
    dropped = sum(1 for k in shared if b[k] is None or h[k] is None)
    keep = {k for k in shared if b[k] is not None and h[k] is not None}
    return (
        {k: v for k, v in b.items() if k in keep and v is not None},
        {k: v for k, v in h.items() if k in keep and v is not None},
        dropped,
    )


def _side(run: RunScores, dimension: str, variant: str | None) -> dict[Any, float | None]:
    if variant is not None and variant not in run.variants:
        raise EffectInputError(f"{run.name}: no variant {variant!r}; it has {', '.join(run.variants) or 'none'}")
    column = dimension
    if run.kind == "eval" and run.schema == 1 and dimension == "composite_answered":
        column = "composite"  # schema 1's composite is the answered-only composite
    present = run.dimensions(variant)
    if column not in present:
        where = f" for variant {variant!r}" if variant else ""
        raise EffectInputError(
            f"{run.name}: no dimension {dimension!r}{where}; it has {', '.join(sorted(present)) or 'none'}"
        )
    out: dict[Any, float | None] = {}
    for (case, v), s in run.scores.items():
        if variant is not None and v != variant:
            continue
        if column in s:
            out[case if variant is not None else (case, v)] = s[column]
    return out
