"""The backend protocol and its request/response records."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BACKEND_NAMES", "LLMRequest", "LLMResponse", "LLMBackend", "request_key"]

BACKEND_NAMES: tuple[str, ...] = ("none", "stub", "heuristic", "openai_compatible")


class LLMRequest(BaseModel):
    """One chat request. ``schema_name``/``json_schema`` describe the JSON the caller expects;
    ``schema_version`` is part of the cache key so a prompt/schema change never hits old replies."""

    model_config = ConfigDict(frozen=True)
    model: str
    messages: tuple[dict[str, str], ...]
    json_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    schema_version: str = "1"
    params: dict[str, Any] = Field(default_factory=dict)


class LLMResponse(BaseModel):
    """A reply: raw text, the parsed JSON (None when unparseable), finish reason and token usage."""

    model_config = ConfigDict(frozen=True)
    text: str
    parsed: Any = None
    finish_reason: str | None = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    backend: str = ""
    cached: bool = False


@runtime_checkable
class LLMBackend(Protocol):
    """What every backend provides: a name and one async call."""

    name: str

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Send ``request``; return the reply (never raises on bad model output: the caller validates)."""
        ...


def request_key(backend: str, request: LLMRequest) -> str:
    """SHA-256 cache key over (backend, model, messages, params, schema name + version)."""
    payload = {
        "backend": backend,
        "model": request.model,
        "messages": list(request.messages),
        "params": request.params,
        "schema": [request.schema_name, request.schema_version],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
