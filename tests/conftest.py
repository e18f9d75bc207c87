"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared benchmark data folder (``../shared/data`` next to the repo).

    Skips the test when it is absent, except under ``CI=true``, where a missing folder fails.
    """
    path = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    if not path.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared data folder not found at {path} (required when CI=true)")
        pytest.skip(f"shared data folder not found at {path}")
    return path
