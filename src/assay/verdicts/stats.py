"""Statistics of a verdict store: counts per decision, source and field value — never a verdict id.

:func:`store_stats` is what ``VerdictStore.stats()`` and ``assay verdicts stats`` report: safe
to share (aggregates only). Set fields: distinct codes and items per verdict; category fields:
counts per value; bucket fields: counts per :func:`~assay.verdicts.spec.bucket_label`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Text, func, select, type_coerce

from assay.jsonl import as_utc
from assay.storage import decode_json_texts
from assay.verdicts.spec import FieldSpec, SimilaritySpec, bucket_label, bucket_of
from assay.verdicts.tables import verdicts_table

__all__ = ["store_stats"]


def store_stats(engine: Engine, name: str, spec: SimilaritySpec) -> dict[str, Any]:
    """Aggregate description of the verdict store ``name`` (no verdict ids): ``{"store", "n", "spec",
    "decisions": {decision: count}, "sources": {source: count}, "created_at": {"min", "max"},
    "fields": {field: per-kind summary}}``. Set fields: distinct codes, mean/min/max items;
    category: counts per value; bucket: counts per :func:`~assay.verdicts.spec.bucket_label`."""
    c = verdicts_table.c
    with engine.connect() as conn:
        decisions: dict[str, int] = dict(
            conn.execute(
                select(c.decision, func.count()).where(c.store == name).group_by(c.decision).order_by(c.decision)
            ).all()
        )
        sources: dict[str | None, int] = dict(
            conn.execute(
                select(c.source, func.count()).where(c.store == name).group_by(c.source).order_by(c.source)
            ).all()
        )
        lo, hi = conn.execute(select(func.min(c.created_at), func.max(c.created_at)).where(c.store == name)).one()
        rows = decode_json_texts(
            list(conn.execute(select(type_coerce(c.fields, Text)).where(c.store == name)).scalars().all())
        )
    return {
        "store": name,
        "n": len(rows),
        "spec": spec.to_json(),
        "decisions": decisions,
        "sources": {("(none)" if k is None else k): v for k, v in sources.items()},
        "created_at": {"min": _iso(lo), "max": _iso(hi)},
        "fields": {f: _field_summary(f, fs, rows) for f, fs in spec.fields.items()},
    }


def _iso(v: datetime | None) -> str | None:
    v = as_utc(v)
    return None if v is None else v.isoformat()


def _field_summary(name: str, fs: FieldSpec, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    values = [v for r in rows if (v := r.get(name)) is not None]
    if fs.kind == "set":
        sizes = [len(v) for v in values]
        return {
            "kind": "set",
            "distinct": len({x for v in values for x in v}),
            "mean_items": (sum(sizes) / len(sizes)) if sizes else None,
            "min_items": min(sizes, default=None),
            "max_items": max(sizes, default=None),
        }
    if fs.kind == "category":
        return {"kind": "category", "counts": dict(sorted(Counter(values).items()))}
    counts = Counter(bucket_of(v, fs) for v in values)
    return {"kind": "bucket", "counts": {bucket_label(b, fs): counts[b] for b in sorted(counts)}}
