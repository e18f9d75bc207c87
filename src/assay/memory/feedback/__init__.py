"""Feedback: the delivery log and its labels.

:mod:`.deliveries` (writing and reading the log), :mod:`.grades` (the agent's own grades),
:mod:`.engagement` (did the response use the memory), :mod:`.backfill` (the semantic second
chance for old labels), :mod:`.stats` (grouped rates with bootstrap CIs) and :mod:`.export`
(training labels as JSONL).

Feedback imports only the top-level memory modules (models, tables, config, text) and the
layers below memory (storage, stats, jsonl, atomic).
"""
