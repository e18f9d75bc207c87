"""Validity checks of the deterministic gate on public data (TAT-QA, FinanceBench)."""
