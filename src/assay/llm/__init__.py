"""LLM backends behind one small protocol: messages in, parsed JSON + usage out.

Backend names, the same in every flag and file: ``none``, ``stub``, ``heuristic`` (where a judge
has one), ``openai_compatible``. The layer is judge-agnostic; a judge uses it like this::

    from assay.llm import LLMRequest, make_client, LLMNotConfigured, BudgetExhausted, LLMError

    try:
        client = make_client(backend, cache_dir=cache_dir, token_budget=budget)  # stub | openai_compatible
    except LLMNotConfigured as e:
        ...  # mark every case skipped with str(e), once
    request = LLMRequest(model=client.model_for(high_stakes), messages=(...), json_schema=schema,
                         schema_name="my_judge", schema_version="my-judge-1",
                         params={"temperature": 0, "max_tokens": 512})
    reply = await client.complete(request)  # BudgetExhausted → "skipped: budget"; LLMError → no reply
    reply.parsed  # strict JSON or None (see parse_json_text); the judge validates and fails closed
    await client.aclose(); client.usage()

Modules: ``base`` (protocol, records, errors, request key, token estimate, strict JSON reader),
``stub`` (deterministic), ``settings`` (env settings of ``openai_compatible``),
``openai_compatible`` (the ``openai`` SDK; needs the ``llm`` extra, imported lazily),
``cache`` (table ``llm_cache``), ``budget`` (token budget), ``client`` (all of it together).
"""

from assay.llm.base import (
    BACKEND_NAMES,
    BudgetExhausted,
    LLMBackend,
    LLMError,
    LLMRequest,
    LLMResponse,
    estimate_tokens,
    parse_json_text,
    request_key,
)
from assay.llm.budget import TokenBudget
from assay.llm.client import LLMClient, LLMNotConfigured, make_client
from assay.llm.settings import LLMSettings
from assay.llm.stub import StubBackend

__all__ = [
    "BACKEND_NAMES",
    "BudgetExhausted",
    "LLMBackend",
    "LLMClient",
    "LLMError",
    "LLMNotConfigured",
    "LLMRequest",
    "LLMResponse",
    "LLMSettings",
    "StubBackend",
    "TokenBudget",
    "estimate_tokens",
    "make_client",
    "parse_json_text",
    "request_key",
]
