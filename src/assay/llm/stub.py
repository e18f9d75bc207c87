"""The deterministic ``stub`` backend: a valid reply derived from SHA-256 of the request.

It exists so pipelines, caches and reports can be exercised for free and byte-identically on
every platform. It is NOT a quality signal: every output it feeds is labelled ``stub``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from assay.llm.base import LLMRequest, LLMResponse, request_key

__all__ = ["StubBackend", "stub_value"]


class StubBackend:
    """Answers any request with JSON of the requested schema, derived from the request hash."""

    name = "stub"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        seed = request_key("stub", request)
        parsed = stub_value(request.json_schema or {"type": "object"}, seed)
        text = json.dumps(parsed, ensure_ascii=False, sort_keys=True)
        prompt_tokens = sum(len(m.get("content", "")) for m in request.messages) // 4
        return LLMResponse(
            text=text,
            parsed=parsed,
            finish_reason="stop",
            prompt_tokens=prompt_tokens,
            completion_tokens=len(text) // 4,
            model=request.model,
            backend="stub",
        )


def stub_value(schema: dict[str, Any], seed: str, path: str = "") -> Any:
    """A deterministic value of JSON ``schema`` (object/array/string/number/integer/boolean/enum).

    Arrays take their length from ``x-stub-items`` when the caller sets it (e.g. one entry per
    claim), else 1; ``x-stub-values`` lists the values to cycle through for array items' string
    fields named in it (claim ids). A nullable type (``["string", "null"]``) gives ``null``: an
    optional reference (a citation) can then never point outside the caller's data; so does a
    union (``anyOf``) with a ``null`` branch.
    """
    h = int(hashlib.sha256(f"{seed}:{path}".encode()).hexdigest()[:8], 16)
    t = schema.get("type")
    if "enum" in schema:
        return schema["enum"][h % len(schema["enum"])]
    if "anyOf" in schema:  # a union: null when allowed (as a nullable type), else its first branch
        branches = schema["anyOf"]
        if any(b.get("type") == "null" for b in branches):
            return None
        return stub_value(branches[0], seed, path)
    if t == "object":
        props = schema.get("properties", {})
        return {k: stub_value(v, seed, f"{path}.{k}") for k, v in props.items()}
    if t == "array":
        n = int(schema.get("x-stub-items", 1))
        items = schema.get("items", {})
        fixed = schema.get("x-stub-values", {})
        out = []
        for i in range(n):
            v = stub_value(items, seed, f"{path}[{i}]")
            if isinstance(v, dict):
                for k, vals in fixed.items():
                    v[k] = vals[i]
            out.append(v)
        return out
    if t == "boolean":
        return bool(h & 1)
    if t == "integer":
        lo, hi = schema.get("minimum", 0), schema.get("maximum", 100)
        return lo + h % (hi - lo + 1)
    if t == "number":
        lo, hi = schema.get("minimum", 0.0), schema.get("maximum", 1.0)
        return round(lo + (hi - lo) * h / 0xFFFFFFFF, 4)
    if t == "string" or t is None:
        return f"stub-{h:08x}"
    if isinstance(t, list):  # e.g. ["string", "null"]
        return None if "null" in t else stub_value({**schema, "type": t[0]}, seed, path)
    return None
