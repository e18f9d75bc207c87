"""Alembic's command line for assay's store (developers): ``python -m assay.storage``.

``python -m assay.storage [--db URL] COMMAND …`` runs Alembic's ``COMMAND``
(``revision``, ``history``, ``current``, ``upgrade``, ``downgrade``, …) with assay's
configuration (:func:`assay.storage.migrations.config`: no ``alembic.ini``) on one connection to
``URL``, committed when the command succeeds. Without ``--db`` it uses a new SQLite file in a
temporary folder, brought to the newest revision first, which is what ``revision
--autogenerate`` needs to write only the changes since then::

    python -m assay.storage revision --autogenerate --rev-id 0002 -m "experiments tables"

``target_metadata`` is :func:`assay.storage.store_metadata` (every store's tables). It lives here,
above :mod:`~assay.storage.schema` and :mod:`~assay.storage.migrations`, so that the migrations
import nothing of the schema module that runs them.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from alembic.config import CommandLine

from assay.storage.engine import make_engine
from assay.storage.migrations import config
from assay.storage.schema import init_db, store_metadata


def main(argv: list[str] | None = None) -> None:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run the Alembic command (see the module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    db = None
    if args[:1] == ["--db"] and len(args) > 1:
        db, args = args[1], args[2:]
    cli = CommandLine(prog="python -m assay.storage [--db URL]")
    options = cli.parser.parse_args(args)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(db or f"sqlite:///{Path(tmp) / 'assay.db'}")
        try:
            if db is None:
                init_db(engine)
            with engine.begin() as conn:
                cfg = config(conn, target_metadata=store_metadata())
                cfg.cmd_opts = options
                cli.run_cmd(cfg, options)
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
