"""Strict JSON schemas generated from a judge's pydantic reply model, and the ``response_format`` forms.

A judge validates its model's reply with a pydantic model; the schema it sends (so that a server
can constrain decoding to it) is generated from that same model by :func:`strict_schema`, so the
two cannot drift. :func:`pin_entries` then fixes what the model class cannot know: the ids a
list must hold (an ``enum`` of them) and its length (``minItems`` = ``maxItems`` = the number of
ids), so a constrained decoder cannot emit a missing, extra or invented id.

The forms of ``response_format`` (setting ``ASSAY_LLM_RESPONSE_FORMAT``,
:func:`response_format`):

- ``json_object``: ``{"type": "json_object"}`` — valid JSON, any shape (OpenAI, vLLM,
  llama.cpp, Ollama all accept it).
- ``json_schema``: OpenAI's structured outputs, ``{"type": "json_schema", "json_schema":
  {"name", "schema"}}`` (OpenAI, vLLM; llama-cpp-python's server answers HTTP 500).
- ``json_object_schema``: ``{"type": "json_object", "schema": …}`` — the form llama-cpp-python's
  server compiles to a grammar (``llama_chat_format._grammar_for_response_format``), so even a
  small local model's reply has the schema's shape.
- ``none``: no ``response_format`` (Ollama's native ``format`` and other endpoints).

Sources: JSON Schema 2020-12 (``enum``, ``minItems``/``maxItems``, ``additionalProperties``);
OpenAI, "Structured Outputs" guide (strict mode wants every property required and
``additionalProperties: false``); llama-cpp-python 0.3 ``llama_chat_format.py``.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

__all__ = ["RESPONSE_FORMATS", "strict_schema", "pin_entries", "response_format", "strip_extensions"]

#: Values of ``ASSAY_LLM_RESPONSE_FORMAT``, in the order the README documents them.
RESPONSE_FORMATS: tuple[str, ...] = ("json_object", "json_schema", "json_object_schema", "none")


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of ``model`` in strict form: ``$ref``/``$defs`` inlined, ``title`` keys
    dropped, every object ``additionalProperties: false`` with all its properties ``required``.
    A fresh copy each call (the generation, ~30 ms in pydantic, is done once per model).

    Raises ``ValueError`` for a recursive model (a strict schema must be finite)."""
    return copy.deepcopy(_strict_cached(model))


@functools.lru_cache(maxsize=64)
def _strict_cached(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    result: dict[str, Any] = _strict(raw, defs, ())
    return result


def pin_entries(schema: dict[str, Any], key: str, id_field: str, ids: Sequence[str]) -> dict[str, Any]:
    """A copy of ``schema`` whose array property ``key`` holds exactly ``len(ids)`` objects whose
    ``id_field`` is one of ``ids``: ``minItems`` = ``maxItems`` = ``len(ids)``, ``enum`` = ids. Also
    sets the stub's hints (``x-stub-items``, ``x-stub-values``; stripped before sending).

    Raises ``KeyError`` when ``key`` is not an array-of-objects property with ``id_field``."""
    out = copy.deepcopy(schema)
    arr = out["properties"][key]
    item = arr["items"]["properties"]
    if id_field not in item:
        raise KeyError(f"{key}[].{id_field} is not in the schema")
    item[id_field] = {"type": "string", "enum": list(ids)}
    arr.update({"minItems": len(ids), "maxItems": len(ids), "x-stub-items": len(ids)})
    arr["x-stub-values"] = {id_field: list(ids)}
    return out


def response_format(mode: str, schema: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    """The ``response_format`` request field for ``mode`` (one of :data:`RESPONSE_FORMATS`); ``None``
    means send none. Without a ``schema`` the schema modes fall back to ``json_object``
    (``json_schema``: the historical behaviour was to send nothing; kept).

    Raises ``ValueError`` for an unknown mode."""
    if mode not in RESPONSE_FORMATS:
        raise ValueError(f"unknown response format {mode!r}: use one of {', '.join(RESPONSE_FORMATS)}")
    if mode == "none":
        return None
    if mode == "json_object" or (mode == "json_object_schema" and schema is None):
        return {"type": "json_object"}
    if schema is None:
        return None
    clean = strip_extensions(schema)
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": clean}}
    return {"type": "json_object", "schema": clean}


def strip_extensions(schema: Any) -> Any:
    """The schema without assay's ``x-`` hint keys (stub hints mean nothing to a server)."""
    if isinstance(schema, dict):
        return {k: strip_extensions(v) for k, v in schema.items() if not k.startswith("x-")}
    if isinstance(schema, list):
        return [strip_extensions(v) for v in schema]
    return schema


def _strict(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_strict(v, defs, seen) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"recursive model {name}: a strict schema must be finite")
        return _strict(defs[name], defs, (*seen, name))
    out = {k: _strict(v, defs, seen) for k, v in node.items() if k not in ("title", "default")}
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    return out
