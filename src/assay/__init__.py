"""assay: prove, measure and remember the quality of what LLM pipelines produce.

The core (facts, claims, the sourcing gate, completeness, rubric, eval, reports) imports without
torch or the ``openai`` SDK, so a service can call the gate inline with a small install.
"""

__version__ = "0.1.0"
