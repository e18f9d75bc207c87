"""Alembic's environment for assay's store: run by Alembic (``command.upgrade`` and friends), never imported.

assay runs its migrations in process (:func:`assay.storage.migrations.upgrade`): the connection,
already inside a transaction that holds the schema lock (:func:`assay.storage.init_db`), comes in
``config.attributes["connection"]``, and Alembic joins that transaction. ``target_metadata``
(what ``revision --autogenerate`` compares the database with) comes from the developer entry
point ``python -m assay.storage``. Revisions are rendered in batch mode, so an
``ALTER`` that SQLite lacks becomes a copy-and-move there and a plain ``ALTER`` on PostgreSQL.
"""

from alembic import context

config = context.config
connection = config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError(
        "assay's migrations run on a connection: through assay.storage.init_db (assay init-db) or "
        "python -m assay.storage [--db URL] ALEMBIC_COMMAND …; offline (--sql) mode is not supported"
    )

context.configure(
    connection=connection,
    target_metadata=config.attributes.get("target_metadata"),
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
