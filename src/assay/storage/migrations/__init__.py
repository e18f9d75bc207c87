"""The store's schema migrations: Alembic revisions shipped in the package, run in process.

``versions/`` holds one file per revision, ``NNNN_slug.py`` with revision id ``NNNN`` (``0001``
is the whole schema as it was when assay adopted Alembic); the schema version that
``assay init-db`` prints is that number. Users need no ``alembic.ini``: :func:`config` builds
Alembic's configuration in code, with ``script_location`` this folder.
:func:`assay.storage.init_db` decides whether a database needs migrating and holds the schema
lock while :func:`upgrade` runs; how to add a revision: ``README.md`` beside this file.

Alembic is imported here only: it adds about half a second of imports, so
:mod:`assay.storage.schema` imports this module only when a database is new or older than the
code.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

__all__ = ["SCRIPT_LOCATION", "config", "upgrade", "known_revisions", "head_revision"]

#: The folder of ``env.py``, ``script.py.mako`` and ``versions/`` (inside the installed package).
SCRIPT_LOCATION = str(Path(__file__).resolve().parent)


def config(connection: Connection | None = None, **attributes: Any) -> Config:
    """Alembic's ``Config`` for assay's migrations, without an ini file.

    ``connection``: the connection (inside its transaction) that ``env.py`` runs the migrations
    on; Alembic joins that transaction and commits nothing itself. ``attributes``: more entries
    for ``env.py`` (``target_metadata`` for ``revision --autogenerate``). New revision files are
    named ``<rev>_<slug>.py``.
    """
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    cfg.set_main_option("file_template", "%%(rev)s_%%(slug)s")  # ConfigParser syntax: %% is one %
    cfg.attributes["connection"] = connection
    cfg.attributes.update(attributes)
    return cfg


def upgrade(connection: Connection, target: str = "head") -> None:
    """Run the revisions from the database's current one (none: a new or pre-Alembic database)
    up to ``target`` on ``connection``, inside the caller's transaction; Alembic records the
    revision in ``alembic_version``. One run at a time per process (see :data:`_RUN_LOCK`)."""
    with _RUN_LOCK:
        command.upgrade(config(connection), target)


@cache
def known_revisions() -> frozenset[str]:
    """Every revision id this code ships (a database at another one was migrated by newer code)."""
    return frozenset(s.revision for s in _scripts().walk_revisions())


def head_revision() -> str:
    """The newest revision id (one head: the history is linear)."""
    head = _scripts().get_current_head()
    if head is None:  # pragma: no cover - versions/ ships 0001
        raise RuntimeError(f"no Alembic revisions in {SCRIPT_LOCATION}/versions")
    return head


#: Alembic's ``op`` and ``context`` are module-level proxies bound for the duration of a run, so
#: two threads migrating two databases at once would share them. (Runs on one database are
#: serialised by its schema lock, taken before this one: no lock order can cross.)
_RUN_LOCK = threading.Lock()


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())
