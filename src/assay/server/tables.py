"""The server's table, on :data:`assay.storage.metadata`: idempotency records of write requests.

- ``server_requests``: one row per idempotency key a client sent with a write (``POST``) —
  the route, the SHA-256 of the request body, the HTTP status and the JSON response replayed to
  a retry with the same key and body. The writes themselves are idempotent by construction
  (a search's ``search_id`` and delivery ids derive from the key, memories from their ids,
  grades and engagement overwrite), so the record is written after the work: a server killed
  in between leaves work that a retry redoes without duplicating anything.

Only portable SQLAlchemy Core types.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Integer, String, Table

from assay.storage import metadata

__all__ = ["server_requests"]

server_requests = Table(
    "server_requests",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("route", String(64), nullable=False),
    Column("body_sha256", String(64), nullable=False),
    Column("status", Integer, nullable=False),
    Column("response", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
