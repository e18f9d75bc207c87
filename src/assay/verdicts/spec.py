"""Similarity spec: which structured fields of a verdict count, how, and how much.

A spec is a JSON object (``--spec spec.json``)::

    {"fields": {"cost_codes":     {"kind": "set",      "weight": 0.60},
                "measure_type":   {"kind": "category", "weight": 0.25},
                "claimed_saving": {"kind": "bucket",   "weight": 0.15, "allow_negative": false}},
     "embedding": {"weight": 0.0}}

Field kinds and their component similarity in ``[0, 1]``:

- ``set``: Jaccard ``|A ∩ B| / |A ∪ B|`` over lists of strings (duplicates collapse); two empty
  sets score 0 (nothing shared is no evidence of similarity).
- ``category``: 1 when the two strings are equal, else 0.
- ``bucket``: 1 when two numbers fall in the same bucket, else 0. Without ``edges`` the buckets
  are the decades (powers of ten) of the absolute value, ``floor(log10(|x|))``, with 0 in a bucket
  of its own; with ``edges`` (ascending) the bucket is the number of edges ``<= value`` (of the
  absolute value unless ``"absolute": false``). ``allow_negative: false`` rejects negative input.

Weights are non-negative and, with the optional ``embedding`` term (cosine of description
embeddings, clipped at 0; weight 0 by default, so free text is ignored), sum to 1 within 1e-6.
The score of a verdict is ``Σ weight_f · component_f``. The default spec is the reference domain
of issue #7 (cost-saving proposals): code overlap dominates because it says *what* is changed;
the measure type says *how*; the saving's order of magnitude separates a tweak from a programme.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = [
    "FieldSpec",
    "EmbeddingSpec",
    "SimilaritySpec",
    "SpecError",
    "FieldValueError",
    "DEFAULT_SPEC",
    "load_spec",
    "bucket_of",
    "bucket_label",
    "ZERO_BUCKET",
    "WEIGHT_TOLERANCE",
]

#: Tolerance on "weights sum to 1" (JSON decimals such as 0.6 + 0.25 + 0.15 are not exact in binary).
WEIGHT_TOLERANCE = 1e-6

#: Bucket of the value 0 on the decade scale (no power of ten holds it); never equals a decade.
ZERO_BUCKET = -(10**6)
#: Offset of the decades of negative values (``absolute: false``); float decades lie in [-324, 308].
_NEGATIVE_OFFSET = 10**4

FieldKind = Literal["set", "category", "bucket"]


class SpecError(ValueError):
    """A similarity spec is invalid; the message names ``where: field.path: problem``."""


class FieldValueError(ValueError):
    """A verdict's or query's field value does not fit the spec; the message names the field."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class FieldSpec(BaseModel):
    """How one structured field is compared (see the module docstring for each ``kind``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: FieldKind
    weight: float = Field(ge=0.0, allow_inf_nan=False)
    edges: tuple[float, ...] | None = None
    absolute: bool = True
    allow_negative: bool = True

    @field_validator("edges")
    @classmethod
    def _ascending(cls, v: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("must hold at least one edge (omit it for decade buckets)")
        if not all(math.isfinite(e) for e in v):
            raise ValueError("must be finite numbers")
        if any(b <= a for a, b in zip(v, v[1:], strict=False)):  # consecutive pairs: one shorter by design
            raise ValueError("must be strictly ascending")
        return v

    @model_validator(mode="after")
    def _bucket_options_only_for_buckets(self) -> FieldSpec:
        if self.kind != "bucket":
            for opt, default in (("edges", None), ("absolute", True), ("allow_negative", True)):
                if getattr(self, opt) != default:
                    raise ValueError(f"{opt} applies only to kind 'bucket'")
        return self


class EmbeddingSpec(BaseModel):
    """The optional free-text term: cosine similarity of description embeddings, clipped at 0."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    weight: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)


class SimilaritySpec(BaseModel):
    """Fields compared, their kinds and weights; the embedding term. Weights sum to 1."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fields: dict[str, FieldSpec]
    embedding: EmbeddingSpec = EmbeddingSpec()

    @field_validator("fields")
    @classmethod
    def _named(cls, v: dict[str, FieldSpec]) -> dict[str, FieldSpec]:
        if not v:
            raise ValueError("must name at least one field")
        for name in v:
            if not name.strip():
                raise ValueError("field names must be non-empty")
            if name == "embedding":
                raise ValueError("'embedding' is reserved for the embedding term's component")
        return v

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> SimilaritySpec:
        total = sum(f.weight for f in self.fields.values()) + self.embedding.weight
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            parts = " + ".join(f"{n} {f.weight:g}" for n, f in self.fields.items())
            raise ValueError(f"weights must sum to 1, got {total:.6g} ({parts} + embedding {self.embedding.weight:g})")
        return self

    def to_json(self) -> dict[str, Any]:
        """The spec as a JSON object: kind and weight of every field, bucket options only where
        they differ from the defaults, and the embedding weight. ``load_spec`` reads it back."""
        fields = {
            n: f.model_dump(mode="json", exclude_defaults=True) | {"kind": f.kind, "weight": f.weight}
            for n, f in self.fields.items()
        }
        return {"fields": fields, "embedding": {"weight": self.embedding.weight}}

    # -- value validation ---------------------------------------------------------------------

    def validate_fields(self, values: Any, *, partial: bool = False, prefix: str = "fields") -> dict[str, Any]:
        """Check ``values`` against this spec and return them in canonical form.

        Canonical form: a ``set`` → sorted list of unique strings; ``category`` → str; ``bucket``
        → float. ``partial=True`` (queries) lets fields be absent or null; otherwise every spec
        field is required. Raises :class:`FieldValueError` naming ``prefix.field`` for an unknown
        field, a wrong type, a non-finite number or a negative number a field forbids.
        """
        if not isinstance(values, Mapping):
            raise FieldValueError(prefix, f"expected an object, got {_type_name(values)}")
        unknown = sorted(set(values) - set(self.fields))
        if unknown:
            raise FieldValueError(f"{prefix}.{unknown[0]}", f"unknown field (the spec has: {', '.join(self.fields)})")
        out: dict[str, Any] = {}
        for name, fs in self.fields.items():
            path = f"{prefix}.{name}"
            if values.get(name) is None:
                if not partial:
                    raise FieldValueError(
                        path, "required field is missing" if name not in values else "must not be null"
                    )
                continue
            out[name] = _canonical_value(fs, values[name], path)
        return out

    def bucket(self, name: str, value: float) -> int:
        """The bucket of ``value`` for bucket field ``name`` (see :func:`bucket_of`)."""
        return bucket_of(value, self.fields[name])


def bucket_of(value: float, fs: FieldSpec) -> int:
    """Bucket index of a finite number under ``fs`` (an int; equal ints mean "same bucket").

    Decade scale (no ``edges``): ``floor(log10(|value|))`` computed exactly at powers of ten
    (``1000`` → 3, ``999.99`` → 2, ``-5000`` → 3 when ``absolute``), ``0`` → :data:`ZERO_BUCKET`;
    without ``absolute`` a negative value gets a decade of its own sign (``-5000`` ≠ ``5000``).
    With ``edges``: ``bisect_right(edges, v)``, i.e. the count of edges ``<= v``.
    """
    v = abs(value) if fs.absolute else value
    if fs.edges is not None:
        import bisect

        return bisect.bisect_right(fs.edges, v)
    if v == 0:
        return ZERO_BUCKET
    if v < 0:  # only when absolute is False: negative decades get their own range
        return _NEGATIVE_OFFSET + _decade(-v)
    return _decade(v)


def bucket_label(b: int, fs: FieldSpec) -> str:
    """A readable name of bucket ``b`` of ``fs``: ``[1e3, 1e4)`` on decades, ``0``, ``-[1e3, 1e4)``
    for negative decades, ``[lo, hi)`` between configured edges."""
    if fs.edges is not None:
        lo = "-inf" if b == 0 else f"{fs.edges[b - 1]:g}"
        hi = "inf" if b == len(fs.edges) else f"{fs.edges[b]:g}"
        return f"[{lo}, {hi})"
    if b == ZERO_BUCKET:
        return "0"
    if b >= _NEGATIVE_OFFSET // 2:
        d = b - _NEGATIVE_OFFSET
        return f"-[1e{d}, 1e{d + 1})"
    return f"[1e{b}, 1e{b + 1})"


#: The reference domain of issue #7: cost-saving proposals.
DEFAULT_SPEC = SimilaritySpec(
    fields={
        "cost_codes": FieldSpec(kind="set", weight=0.60),
        "measure_type": FieldSpec(kind="category", weight=0.25),
        "claimed_saving": FieldSpec(kind="bucket", weight=0.15, allow_negative=False),
    },
)


def load_spec(source: str | Path | Mapping[str, Any], *, where: str | None = None) -> SimilaritySpec:
    """Load a spec from a JSON file path or a mapping.

    Raises :class:`SpecError` with ``where: field.path: problem`` (``where`` defaults to the file
    name, or ``spec``) for invalid JSON, unknown keys, a bad kind, negative weights, weights not
    summing to 1, or bad edges; ``FileNotFoundError`` for a missing file.
    """
    if isinstance(source, Mapping):
        obj: Any = source
        where = where or "spec"
    else:
        path = Path(source)
        where = where or str(source)
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise SpecError(f"{where}:{e.lineno}: <json>: {e.msg}") from None
        except UnicodeDecodeError as e:
            raise SpecError(f"{where}: <bytes>: not valid UTF-8 ({e.reason})") from None
    if not isinstance(obj, Mapping):
        raise SpecError(f"{where}: <spec>: expected a JSON object, got {_type_name(obj)}")
    try:
        return SimilaritySpec.model_validate(obj)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "<spec>"
        msg = first["msg"].removeprefix("Value error, ")
        if first["type"] == "missing":
            msg = "required field is missing"
        more = f" (+{e.error_count() - 1} more)" if e.error_count() > 1 else ""
        raise SpecError(f"{where}: {loc}: {msg}{more}") from None


# --- helpers -------------------------------------------------------------------------------


def _canonical_value(fs: FieldSpec, value: Any, path: str) -> Any:
    if fs.kind == "set":
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise FieldValueError(path, f"expected a list of strings, got {_type_name(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise FieldValueError(f"{path}[{i}]", f"expected a string, got {_type_name(item)}")
        return sorted(set(value))
    if fs.kind == "category":
        if not isinstance(value, str):
            raise FieldValueError(path, f"expected a string, got {_type_name(value)}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FieldValueError(path, f"expected a number, got {_type_name(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise FieldValueError(path, f"must be finite, got {value!r}")
    if x < 0 and not fs.allow_negative:
        raise FieldValueError(path, f"must not be negative, got {value!r} (the spec sets allow_negative: false)")
    return x


def _decade(v: float) -> int:
    """``floor(log10(v))`` for ``v > 0``, corrected so exact powers of ten land on their own decade."""
    k = math.floor(math.log10(v))
    try:
        if 10.0 ** (k + 1) <= v:
            return k + 1
    except OverflowError:
        pass
    if 10.0**k > v:
        return k - 1
    return k


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, str):
        return f"a string ({v[:40]!r})"
    if isinstance(v, (int, float)):
        return f"a number ({v!r})"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, Mapping):
        return "an object"
    return type(v).__name__
