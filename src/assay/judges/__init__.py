"""Judges: every judge has the one contract of DESIGN.md (inputs in → local records + aggregate)."""
