"""The backend protocol, its request/response records, errors, and the strict JSON reader.

Every backend — ``stub``, ``openai_compatible``, a test double — implements :class:`LLMBackend`:
a ``name`` and one async ``complete(request) -> LLMResponse``. A backend returns whatever the
model said (a judge validates it and fails closed); it raises :class:`LLMError` only when no
reply came back at all (HTTP errors after the bounded retries, timeouts, refused connections).
Nothing here is specific to one judge: the claims judge and the rationality judge build their
own :class:`LLMRequest` and validate their own replies.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ReplyT = TypeVar("ReplyT", bound=BaseModel)

__all__ = [
    "validate_reply_model",
    "BACKEND_NAMES",
    "LLMRequest",
    "LLMResponse",
    "LLMBackend",
    "LLMError",
    "BudgetExhausted",
    "request_key",
    "estimate_tokens",
    "parse_json_text",
]

BACKEND_NAMES: tuple[str, ...] = ("none", "stub", "heuristic", "openai_compatible")

#: Completion cap used by :func:`estimate_tokens` when a request sets no ``max_tokens``.
DEFAULT_MAX_TOKENS = 1024


class LLMRequest(BaseModel):
    """One chat request.

    ``messages`` are ``{"role", "content"}`` dicts; ``json_schema`` describes the JSON the caller
    expects (sent as ``response_format`` where the endpoint supports it, and used by the stub);
    ``schema_name``/``schema_version`` are part of the cache key, so a prompt or schema change
    never hits old replies. ``params`` are sampling parameters (``temperature``, ``max_tokens``).
    """

    model_config = ConfigDict(frozen=True)
    model: str
    messages: tuple[dict[str, str], ...]
    json_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    schema_version: str = "1"
    params: dict[str, Any] = Field(default_factory=dict)


class LLMResponse(BaseModel):
    """A reply: raw ``text``, the ``parsed`` JSON (``None`` when not strict JSON, see
    :func:`parse_json_text`), ``finish_reason``, token usage, the model and backend that answered,
    and ``cached`` (True when served from the response cache)."""

    model_config = ConfigDict(frozen=True)
    text: str
    parsed: Any = None
    finish_reason: str | None = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    backend: str = ""
    cached: bool = False

    @property
    def tokens(self) -> int:
        """Prompt + completion tokens reported for the call that produced this reply (a cache
        hit keeps the original call's usage; :class:`assay.llm.client.LLMClient` counts it as 0 spent)."""
        return self.prompt_tokens + self.completion_tokens


@runtime_checkable
class LLMBackend(Protocol):
    """What every backend provides: a name and one async call."""

    name: str

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Send ``request``; return the reply. Never raises on bad model output (the caller
        validates); raises :class:`LLMError` when no reply could be obtained."""
        ...


class LLMError(RuntimeError):
    """No reply: HTTP error, timeout or connection failure after the bounded retries.

    The message never holds the API key (backends redact it) and is safe to store as a reason.
    """


class BudgetExhausted(RuntimeError):
    """The token budget cannot cover this call's estimate; the call was not sent."""


def request_key(backend: str, request: LLMRequest) -> str:
    """SHA-256 hex cache key over (backend, model, messages, params, schema name + version).

    The model is in the key, so the cheap and the high-stakes tier never share an entry.
    ``json_schema`` itself is not: ``schema_version`` names it.
    """
    payload = {
        "backend": backend,
        "model": request.model,
        "messages": list(request.messages),
        "params": request.params,
        "schema": [request.schema_name, request.schema_version],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def estimate_tokens(request: LLMRequest) -> int:
    """Upper-leaning estimate of the tokens one call of ``request`` uses (prompt + completion).

    Prompt: ``ceil(utf8_bytes / 3) + 8`` per message (BPE tokenizers average ~4 bytes a token on
    English and fewer on other scripts; /3 leans high on purpose, +8 covers the chat template's
    role markers). Completion: ``params["max_tokens"]`` (or ``max_completion_tokens``), else
    :data:`DEFAULT_MAX_TOKENS` — the reply can never be longer than its cap. The token budget
    reserves this before a call is sent.
    """
    prompt = sum(math.ceil(len(m.get("content", "").encode("utf-8")) / 3) + 8 for m in request.messages)
    cap = request.params.get("max_tokens") or request.params.get("max_completion_tokens") or DEFAULT_MAX_TOKENS
    return int(prompt + int(cap))


def parse_json_text(text: str) -> tuple[Any, str | None]:
    """Strictly parse a model's reply text as JSON; returns ``(value, None)`` or ``(None, reason)``.

    Accepted: the whole text (surrounding whitespace aside) is one JSON value, or exactly one
    Markdown code fence (```` ```json … ``` ````) holding one. Rejected with a reason: prose
    around the JSON, several values, truncated JSON, ``NaN``/``Infinity`` (not JSON), and
    duplicate object keys (``json.loads`` would silently keep the last one).
    """
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and body.count("```") == 2:
        first_nl = body.find("\n")
        head = body[3:first_nl].strip().lower() if first_nl != -1 else "?"
        if head in ("", "json"):
            body = body[first_nl + 1 : -3].strip()
    if not body:
        return None, "empty reply: no text"
    try:
        return json.loads(body, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys), None
    except _DuplicateKey as e:
        return None, f"duplicate JSON key: {str(e)[:40]!r}"
    except ValueError as e:
        msg = str(e)
        if "Extra data" in msg:
            return None, "text around the JSON: prose or several values"
        if body[0] not in '{["-0123456789tfn':
            return None, "not JSON: the reply is prose"
        return None, f"unparseable JSON: {msg[:80]}"


def validate_reply_model(
    model: type[ReplyT], text: str, parsed: Any, finish_reason: str | None
) -> tuple[ReplyT | None, str | None]:
    """A model reply validated as ``model``: ``(instance, None)`` or ``(None, "kind: detail")``.

    The steps every fail-closed judge shares: a ``finish_reason`` of ``length`` is
    ``truncated``, ``content_filter`` is ``refused``; ``parsed`` (the client's strict parse) is
    used when given, else ``text`` goes through :func:`parse_json_text`; then
    ``model.model_validate`` — its first error is the reason (``schema mismatch: loc: msg``).
    The judge checks what only it knows (ids, counts, ranges) on the instance.
    """
    if finish_reason == "length":
        return None, "truncated: finish_reason=length"
    if finish_reason == "content_filter":
        return None, "refused: finish_reason=content_filter"
    if parsed is None:
        parsed, reason = parse_json_text(text)
        if reason:
            return None, reason
    try:
        return model.model_validate(parsed), None
    except ValidationError as exc:
        err = exc.errors()[0]
        return None, f"schema mismatch: {'.'.join(str(p) for p in err['loc']) or '<reply>'}: {err['msg']}"


class _DuplicateKey(ValueError):
    pass


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out
