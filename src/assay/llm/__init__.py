"""LLM backends behind one small protocol: messages in, parsed JSON + usage out.

Backend names, the same in every flag and file: ``none``, ``stub``, ``heuristic`` (where a judge
has one), ``openai_compatible``.
"""

from assay.llm.base import BACKEND_NAMES, LLMBackend, LLMRequest, LLMResponse
from assay.llm.stub import StubBackend

__all__ = ["BACKEND_NAMES", "LLMBackend", "LLMRequest", "LLMResponse", "StubBackend"]
