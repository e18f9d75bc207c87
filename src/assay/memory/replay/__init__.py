"""The offline replay harness (issue 18): past sessions replayed through two memory-writing prompts.

Modules: ``models`` (sessions, turns, questions, memories, :class:`ReplaySettings`), ``generate``
(deterministic ``extract`` strategies and the LLM generator), ``metrics`` (dedup, findability
backtest, heuristic cold read, B − A CIs), ``harness`` (:func:`run_replay`, :func:`plan`),
``locomo`` (LoCoMo as replay input). It sits at the top of the memory rooms and uses the judges
(:mod:`assay.judges.pairwise`, :mod:`assay.judges.cold_read`); the judges never import memory.
"""

from assay.memory.replay.generate import EXTRACT_STRATEGIES, ExtractGenerator, LLMGenerator
from assay.memory.replay.harness import REPLAY_CRITERIA, plan, run_replay
from assay.memory.replay.locomo import load_locomo_replay
from assay.memory.replay.metrics import heuristic_cold_read
from assay.memory.replay.models import Memory, Question, ReplaySettings, Session, Turn, load_questions, load_sessions

__all__ = [
    "EXTRACT_STRATEGIES",
    "REPLAY_CRITERIA",
    "ExtractGenerator",
    "LLMGenerator",
    "Memory",
    "Question",
    "ReplaySettings",
    "Session",
    "Turn",
    "heuristic_cold_read",
    "load_locomo_replay",
    "load_questions",
    "load_sessions",
    "plan",
    "run_replay",
]
