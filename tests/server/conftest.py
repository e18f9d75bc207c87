"""Fixtures of the memory-server tests: a served store (hashing embedder, SQLite) and its test client."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from assay.memory import MemoryStore, default_settings
from assay.server.app import create_app
from assay.server.config import ServerSettings
from assay.server.service import MemoryService
from memory_server import TOKEN


@pytest.fixture
def settings(tmp_path) -> ServerSettings:
    roots = tmp_path / "projects"
    roots.mkdir()
    return ServerSettings(token_file=tmp_path / "server.token", project_roots=(roots,), max_body_bytes=20_000)


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    return MemoryStore(
        f"sqlite:///{tmp_path / 'm.db'}", settings=default_settings(embedder="hashing", semantic_engagement=False)
    )


@pytest.fixture
def service(store) -> MemoryService:
    return MemoryService(store)


@pytest.fixture
def client(service, settings) -> TestClient:
    return TestClient(create_app(service, settings, token=TOKEN), headers={"Authorization": f"Bearer {TOKEN}"})
