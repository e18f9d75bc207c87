"""The ``openai_compatible`` backend: the official ``openai`` SDK pointed at any ``base_url``.

OpenAI, Anthropic's OpenAI-compatibility endpoint, vLLM, llama.cpp's server and Ollama all speak
this wire format. Endpoint quirks are settings (:class:`assay.llm.settings.LLMSettings`), not
code forks: the ``response_format`` sent (``json_object`` | ``json_schema`` |
``json_object_schema`` | none, see :mod:`assay.llm.schema`), whether
``temperature`` is sent, and the name of the completion-cap parameter.

Retries: the SDK's own retries are off (``max_retries=0``) so the policy is assay's and the same
for every endpoint: HTTP 408/409/429/5xx, timeouts and connection errors are retried up to
``max_retries`` times with exponential backoff (``backoff_s · 2^k``, ±25 % jitter, capped at
8 s; a server's ``Retry-After`` of at most 30 s is used instead); other HTTP errors (400, 401,
404, …) fail at once. When no reply is obtained :class:`assay.llm.base.LLMError` is raised with a
one-line reason from which the API key is redacted.

Requires the ``llm`` extra (``pip install 'assay[llm]'``); importing this module without it
raises ``ModuleNotFoundError`` naming the extra.
"""

from __future__ import annotations

import asyncio
import random
import weakref
from typing import Any

from assay.llm.base import LLMError, LLMRequest, LLMResponse, parse_json_text
from assay.llm.schema import response_format
from assay.llm.settings import LLMSettings

try:
    import openai
except ModuleNotFoundError as e:  # pragma: no cover - exercised only without the extra
    raise ModuleNotFoundError(
        f"the openai_compatible backend needs the 'llm' extra: pip install 'assay[llm]' ({e})"
    ) from None

__all__ = ["OpenAICompatibleBackend", "RETRY_STATUS", "MAX_BACKOFF_S", "MAX_RETRY_AFTER_S"]

#: HTTP statuses retried (request timeout, conflict, rate limit, server errors ≥ 500).
RETRY_STATUS = frozenset({408, 409, 429})
#: Cap of one exponential backoff sleep, seconds.
MAX_BACKOFF_S = 8.0
#: Longest server ``Retry-After`` honoured, seconds (longer ones fall back to the backoff).
MAX_RETRY_AFTER_S = 30.0
#: Placeholder key sent to servers that need none (the SDK insists on some key).
_NO_KEY = "no-key"


class OpenAICompatibleBackend:
    """An :class:`assay.llm.base.LLMBackend` over ``openai.AsyncOpenAI``.

    One SDK client per running event loop (an ``httpx`` connection pool cannot cross loops);
    :meth:`aclose` closes the current loop's client. ``attempts`` counts HTTP attempts made
    (retries included), for tests and usage reports.
    """

    name = "openai_compatible"

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.attempts = 0
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._rng = random.Random()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Send ``request``; returns the reply as the model gave it (``parsed`` is ``None`` when
        the text is not strict JSON). Raises :class:`LLMError` when no reply came back."""
        kwargs = self._kwargs(request)
        client = self._client()
        s = self.settings
        last = "no attempt made"
        for attempt in range(s.max_retries + 1):
            delay: float | None = None
            self.attempts += 1
            try:
                resp = await client.chat.completions.create(**kwargs)
                return self._response(request, resp)
            except openai.APIStatusError as e:
                status = e.status_code
                last = f"HTTP {status}: {_first_line(e.message)}"
                if (
                    "response_format" in kwargs
                    and kwargs["response_format"]["type"] == "json_schema"
                    and status in (400, 422, 500)
                ):
                    last += (
                        " (the endpoint may not support response_format=json_schema:"
                        " set ASSAY_LLM_RESPONSE_FORMAT=json_object_schema for llama.cpp's server,"
                        " else json_object)"
                    )
                if status not in RETRY_STATUS and status < 500:
                    raise LLMError(self._redact(last)) from None
                delay = _retry_after(e)
            except openai.APITimeoutError:
                last = f"timeout after {s.timeout_s:g}s"
            except openai.APIConnectionError as e:
                last = f"connection error: {_first_line(str(e.__cause__ or e))}"
            except openai.OpenAIError as e:  # malformed response body and the like: not retried
                raise LLMError(self._redact(f"{type(e).__name__}: {_first_line(str(e))}")) from None
            if attempt == s.max_retries:
                break
            await asyncio.sleep(delay if delay is not None else self._backoff(attempt))
        raise LLMError(self._redact(f"{last} (after {s.max_retries + 1} attempt(s))"))

    @property
    def cache_namespace(self) -> str:
        """What besides the request shapes a reply: the endpoint and its quirk settings. It joins
        the response-cache key, so changing ``ASSAY_LLM_RESPONSE_FORMAT`` or the server never
        serves a reply obtained under the old setting."""
        s = self.settings
        return "|".join(
            [
                self.name,
                s.base_url or "default",
                s.response_format,
                "no-temperature" if s.omit_temperature else "temperature",
                s.max_tokens_param,
            ]
        )

    async def aclose(self) -> None:
        """Close the SDK client of the running loop, if one was opened."""
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.close()

    # --- helpers ---------------------------------------------------------------------------

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            s = self.settings
            client = openai.AsyncOpenAI(
                api_key=s.api_key.get_secret_value() if s.api_key else _NO_KEY,
                base_url=s.base_url,
                timeout=s.timeout_s,
                max_retries=0,
            )
            self._clients[loop] = client
        return client

    def _kwargs(self, request: LLMRequest) -> dict[str, Any]:
        s = self.settings
        params = dict(request.params)
        kwargs: dict[str, Any] = {"model": request.model, "messages": [dict(m) for m in request.messages]}
        cap = params.pop("max_tokens", None) or params.pop("max_completion_tokens", None)
        if cap is not None:
            kwargs[s.max_tokens_param] = int(cap)
        if s.omit_temperature:
            params.pop("temperature", None)
        kwargs.update(params)
        rf = response_format(s.response_format, request.json_schema, request.schema_name)
        if rf is not None:
            kwargs["response_format"] = rf
        return kwargs

    def _response(self, request: LLMRequest, resp: Any) -> LLMResponse:
        choices = getattr(resp, "choices", None) or []
        text, finish = "", None
        if choices:
            msg = choices[0].message
            text = (getattr(msg, "content", None) or "") if msg is not None else ""
            finish = choices[0].finish_reason
        parsed, _ = parse_json_text(text)
        usage = getattr(resp, "usage", None)
        return LLMResponse(
            text=text,
            parsed=parsed,
            finish_reason=finish,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            model=request.model,
            backend=self.name,
        )

    def _backoff(self, attempt: int) -> float:
        base = min(self.settings.backoff_s * (2**attempt), MAX_BACKOFF_S)
        return base * self._rng.uniform(0.75, 1.25)

    def _redact(self, text: str) -> str:
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else None
        return text.replace(key, "***") if key else text


def _retry_after(e: Any) -> float | None:
    headers = getattr(getattr(e, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            return None
        return seconds if 0 <= seconds <= MAX_RETRY_AFTER_S else None
    return None


def _first_line(text: str) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line[:200]
