"""Settings of the ``openai_compatible`` backend, read from the environment in one place.

Each variable, its default, and why:

- ``ASSAY_LLM_BASE_URL`` (else ``OPENAI_BASE_URL``); default none → the SDK's OpenAI URL. Any
  OpenAI-compatible endpoint: vLLM, llama.cpp server, Ollama, Anthropic's compatibility endpoint.
- ``ASSAY_LLM_API_KEY`` (else ``OPENAI_API_KEY``); default none. A local server needs no key; a
  base URL alone is a valid configuration.
- ``ASSAY_JUDGE_MODEL``; default ``gpt-4o-mini``: a cheap model for the default tier.
- ``ASSAY_JUDGE_HIGH_STAKES_MODEL``; default ``gpt-4o``: the stronger model for ``--high-stakes``
  and escalation.
- ``ASSAY_LLM_RESPONSE_FORMAT``; default ``json_object``, the widest-supported JSON mode (OpenAI,
  vLLM, llama.cpp, Ollama); ``json_schema`` where the endpoint supports OpenAI's structured
  outputs (OpenAI, vLLM; llama-cpp-python's server answers it with HTTP 500);
  ``json_object_schema`` sends the judge's schema as ``{"type": "json_object", "schema": …}``,
  the form llama.cpp's server enforces by grammar (the choice for a small local model);
  ``none`` sends no ``response_format`` (see :mod:`assay.llm.schema`).
- ``ASSAY_LLM_OMIT_TEMPERATURE``; default ``0``; ``1`` for models that refuse ``temperature=0``
  (reasoning models): the parameter is then not sent.
- ``ASSAY_LLM_MAX_TOKENS_PARAM``; default ``max_tokens``; ``max_completion_tokens`` for endpoints
  that renamed it.
- ``ASSAY_LLM_TIMEOUT``; default ``60`` s per attempt (must be > 0): a judge reply of a few hundred
  tokens takes seconds.
- ``ASSAY_LLM_MAX_RETRIES``; default ``3`` retries after the first attempt on
  429/5xx/timeout/connection errors (0–10; 0 = one attempt only).
- ``ASSAY_LLM_BACKOFF``; default ``0.5`` s first backoff; doubles each retry (with ±25 % jitter),
  capped at 8 s; a ``Retry-After`` of at most 30 s is honoured.
- ``ASSAY_LLM_CONCURRENCY``; default ``4`` calls in flight at once (1–256): enough to hide the
  latency of a remote endpoint without tripping its rate limit; a local server on one GPU serves
  few requests at once anyway.

The README's "Configuration" table lists these with every other ``ASSAY_*`` variable.

With neither a base URL nor an API key configured, :meth:`LLMSettings.not_configured_reason`
says so, and the judges mark every case ``skipped`` with that reason (never a score of 0).
The API key is a :class:`pydantic.SecretStr`: it is not shown by ``repr``/``str``/``model_dump``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

__all__ = ["LLMSettings", "ResponseFormat"]

ResponseFormat = Literal["json_object", "json_schema", "json_object_schema", "none"]


class LLMSettings(BaseModel):
    """Connection, model and quirk settings of an OpenAI-compatible endpoint (table above)."""

    model_config = ConfigDict(frozen=True)
    base_url: str | None = None
    api_key: SecretStr | None = None
    judge_model: str = "gpt-4o-mini"
    high_stakes_model: str = "gpt-4o"
    response_format: ResponseFormat = "json_object"
    omit_temperature: bool = False
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)
    backoff_s: float = Field(0.5, ge=0)
    concurrency: int = Field(4, ge=1, le=256)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMSettings:
        """Read the settings from ``env`` (default ``os.environ``); empty values count as unset.

        Raises ``ValueError`` naming the variable when a value is invalid (e.g.
        ``ASSAY_LLM_RESPONSE_FORMAT=xml``) — never echoing the API key.
        """
        env = os.environ if env is None else env

        def get(*names: str) -> str | None:
            for n in names:
                v = env.get(n, "").strip()
                if v:
                    return v
            return None

        raw: dict[str, object] = {}
        fields = {
            "base_url": ("ASSAY_LLM_BASE_URL", "OPENAI_BASE_URL"),
            "api_key": ("ASSAY_LLM_API_KEY", "OPENAI_API_KEY"),
            "judge_model": ("ASSAY_JUDGE_MODEL",),
            "high_stakes_model": ("ASSAY_JUDGE_HIGH_STAKES_MODEL",),
            "response_format": ("ASSAY_LLM_RESPONSE_FORMAT",),
            "omit_temperature": ("ASSAY_LLM_OMIT_TEMPERATURE",),
            "max_tokens_param": ("ASSAY_LLM_MAX_TOKENS_PARAM",),
            "timeout_s": ("ASSAY_LLM_TIMEOUT",),
            "max_retries": ("ASSAY_LLM_MAX_RETRIES",),
            "backoff_s": ("ASSAY_LLM_BACKOFF",),
            "concurrency": ("ASSAY_LLM_CONCURRENCY",),
        }
        names = {}
        for field, variables in fields.items():
            v = get(*variables)
            if v is not None:
                raw[field] = v
                names[field] = variables[0]
        try:
            return cls.model_validate(raw)
        except ValidationError as e:
            err = e.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else "?"
            raise ValueError(f"{names.get(field, field)}: {err['msg']}") from None

    @property
    def configured(self) -> bool:
        """True when a base URL or an API key is set."""
        return self.base_url is not None or self.api_key is not None

    def not_configured_reason(self) -> str | None:
        """``None`` when configured, else the one-line reason the LLM judges are skipped."""
        if self.configured:
            return None
        return (
            "not configured: set ASSAY_LLM_BASE_URL (a local server needs no key) or ASSAY_LLM_API_KEY / "
            "OPENAI_API_KEY for the openai_compatible backend"
        )

    def model_for(self, high_stakes: bool) -> str:
        """The model name of the tier: ``high_stakes_model`` when ``high_stakes`` else ``judge_model``."""
        return self.high_stakes_model if high_stakes else self.judge_model
