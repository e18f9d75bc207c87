"""Engines and URLs: where the store is, how to connect to it, and what to say when that fails.

Location precedence (DESIGN.md): the global CLI option ``assay --db URL`` > ``ASSAY_DB_URL`` >
``$ASSAY_HOME/assay.db`` (``ASSAY_HOME`` defaults to ``~/.assay``). SQLite is the embedded
default (WAL journal, foreign keys on, a busy timeout so concurrent writers wait instead of
failing); a ``postgresql+psycopg://`` URL moves the same schema to PostgreSQL. Every engine of
:func:`make_engine` turns a lost or refused connection into one readable line
(:class:`DatabaseUnavailableError`), and every message shows a URL with its password hidden
(:func:`safe_url`, :func:`describe_db_error`).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event

__all__ = [
    "check_db_folder",
    "resolve_db_url",
    "make_engine",
    "describe_db_error",
    "safe_url",
    "StorageError",
    "SchemaVersionError",
    "DatabaseUnavailableError",
    "PG_CONNECT_ARGS",
]

#: libpq settings of every PostgreSQL connection unless the URL sets them: fail an unreachable
#: server after 10 s (libpq's default waits for the OS, minutes) and name assay in
#: ``pg_stat_activity`` so an operator can tell its sessions apart.
PG_CONNECT_ARGS: dict[str, Any] = {"connect_timeout": 10, "application_name": "assay"}


class StorageError(ValueError):
    """The database cannot be used: a malformed URL, a file that is not a database, a server
    that refuses the connection. The message names the URL with its password hidden."""


class SchemaVersionError(StorageError, RuntimeError):
    """The database holds a schema this code cannot use: migrated by a newer assay, or a table
    of assay's name that lacks columns (made by something else). Raised by
    :func:`assay.storage.init_db`; defined here, beside :class:`StorageError`, so that the
    migrations can raise it without importing the schema module that runs them."""


class DatabaseUnavailableError(StorageError):
    """The database server cannot be reached, or the connection to it was lost mid-run.

    Raised in place of the driver's error by every engine of :func:`make_engine` (one line: the
    URL with its password hidden, and the driver's first line). Work committed before it is
    kept; a rerun once the server is back continues.
    """


def resolve_db_url(cli_url: str | None = None) -> str:
    """The database URL by precedence: ``cli_url`` > ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``."""
    if cli_url:
        return cli_url
    env = os.environ.get("ASSAY_DB_URL")
    if env:
        return env
    return _home_db_url()


def _home_db_url() -> str:
    """The default URL, ``$ASSAY_HOME/assay.db`` (the one location assay creates folders for)."""
    home = Path(os.environ.get("ASSAY_HOME") or Path.home() / ".assay").expanduser()
    return f"sqlite:///{home / 'assay.db'}"


def check_db_folder(cli_url: str | None = None) -> None:
    """Raise :class:`StorageError` when the database the user named (``cli_url``, the ``--db``
    option, else ``ASSAY_DB_URL``) is a SQLite file in a folder that does not exist.

    A typo there must not leave a new folder tree behind (``sqlite:////nonexistent/dir/x.db``
    created ``/nonexistent/dir``): the CLI checks a named database first, so only the default
    ``$ASSAY_HOME`` folder is ever created for it. The default location and other databases
    (PostgreSQL) pass unchecked.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    url = resolve_db_url(cli_url)
    if url == _home_db_url():
        return
    flag = "--db" if cli_url else "ASSAY_DB_URL"
    try:
        folder = _sqlite_folder(make_url(url))
    except (ArgumentError, ValueError):
        return  # make_engine says what is wrong with the URL
    if folder is not None and not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise StorageError(
            f"{flag} {safe_url(url)}: the folder {folder} {what}; create it first, or choose another path "
            "(assay creates only the default $ASSAY_HOME folder)"
        )


def make_engine(url: str | None = None, *, sqlite_synchronous: str | None = None) -> Engine:
    """An engine for ``url`` (resolved by :func:`resolve_db_url`); creates the SQLite folder.

    ``sqlite_synchronous`` (SQLite only, per connection of this engine): ``None`` keeps SQLite's
    default ``FULL`` (an fsync per commit); ``"NORMAL"`` is SQLite's recommended setting for
    WAL — never corrupts the database, but a power loss (not an application crash) may roll back
    the last commits (https://www.sqlite.org/pragma.html#pragma_synchronous). Meant for stores
    whose rows can be recomputed (caches). Raises ``ValueError`` for another value,
    :class:`StorageError` for a string that is not a database URL, and
    ``ModuleNotFoundError`` with the extra to install when a PostgreSQL driver is missing.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if sqlite_synchronous not in (None, "NORMAL", "FULL"):
        raise ValueError(f"sqlite_synchronous must be None, 'NORMAL' or 'FULL', got {sqlite_synchronous!r}")
    url = resolve_db_url(url)
    try:
        parsed = make_url(url)
        where = safe_url(parsed)
    except ArgumentError:
        raise StorageError(
            "database URL (--db / ASSAY_DB_URL) is not a URL: expected sqlite:///PATH or "
            "postgresql+psycopg://USER@HOST/DB"
        ) from None
    except ValueError:  # SQLAlchemy's int() of a non-numeric port
        raise StorageError(f"database {safe_url(url)}: the port is not a number") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StorageError(
            f"database {where}: unsupported database {parsed.get_backend_name()!r}: "
            "use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB"
        )
    if parsed.get_backend_name() == "sqlite" and (
        not parsed.database or parsed.database == ":memory:" or parsed.query.get("mode") == "memory"
    ):
        raise StorageError(
            f"database {where}: an in-memory SQLite database is not supported (each connection would "
            "see an empty one, and everything written is lost): give a file, sqlite:///PATH"
        )
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() not in ("psycopg", "psycopg2"):
        raise StorageError(
            f"database {where}: driver {parsed.get_driver_name()!r} is not supported: use postgresql+psycopg://"
        )
    try:
        return _create_engine(url, sqlite_synchronous)
    except ArgumentError as e:  # SQLAlchemy's message shows a URL's password as ***
        raise StorageError(f"database {where}: {str(e).splitlines()[0]}") from None


def describe_db_error(exc: BaseException, url: Any) -> str:
    """One readable line for a database error: ``database URL: reason``.

    ``url``: a URL string, a SQLAlchemy ``URL`` or an ``Engine``; its password is shown as
    ``***`` (and scrubbed from the reason should the driver echo it). ``reason`` is the
    driver's first non-empty line (``exc.orig`` for SQLAlchemy's wrapped errors).
    """
    from sqlalchemy.engine import make_url

    u = url.url if isinstance(url, Engine) else url
    try:
        u = make_url(u)
        where, secrets = safe_url(u), _secrets(u)
    except Exception:  # noqa: BLE001 - not a URL: describe the error without one
        where, secrets = "(unparseable URL)", []
    orig = getattr(exc, "orig", None) or exc
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()]
    reason = lines[0] if lines else type(orig).__name__
    for secret in secrets:
        reason = reason.replace(secret, "***")
    folder = _sqlite_folder(u) if ("unable to open" in reason or "readonly" in reason) else None
    if folder is not None and not os.access(folder, os.W_OK):
        reason += f" (SQLite must be able to write in {folder}: the database, its -wal and -shm files)"
    return f"database {where}: {reason}"


def safe_url(url: Any) -> str:
    """A database URL (string or SQLAlchemy ``URL``) fit to print: the password of ``user:password@``
    and of a ``password=`` / ``sslpassword=`` query parameter shown as ``***``. A string that is
    not a URL is returned with anything between ``:`` and ``@`` after the scheme masked."""
    from sqlalchemy.engine import make_url

    try:
        u = make_url(url)
    except Exception:  # noqa: BLE001 - not a URL: mask what looks like userinfo
        return re.sub(r"(://[^:/@]+:)[^@]+@", r"\1***@", str(url))
    query = {k: ("***" if _SECRET_PARAM.search(k) else v) for k, v in u.query.items()}
    return u.set(query=query).render_as_string(hide_password=True).replace("%2A%2A%2A", "***")


#: Query parameters of a database URL that hold a secret (libpq's ``password``, ``sslpassword``).
_SECRET_PARAM = re.compile(r"pass(word|wd)?$", re.I)


def _secrets(u: Any) -> list[str]:
    """Every secret in a parsed URL (to scrub from driver messages)."""
    out = [str(u.password)] if u.password else []
    for k, v in u.query.items():
        if _SECRET_PARAM.search(k):
            out.extend([v] if isinstance(v, str) else list(v))
    return [x for x in out if x]


def _sqlite_folder(u: Any) -> Path | None:
    """The folder of a SQLite URL's database file (``None`` for another dialect or in-memory)."""
    try:
        if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
            return None
    except AttributeError:
        return None
    return Path(u.database).expanduser().absolute().parent


#: SQLSTATEs that mean the server went away: admin/crash shutdown, cannot connect now.
_SERVER_GONE = {"57P01", "57P02", "57P03"}


def _unavailable(ctx) -> None:
    """``handle_error`` hook of every engine: connection failures → :class:`DatabaseUnavailableError`.

    Only errors connecting (no connection yet) and disconnects are translated; a pre-ping's
    failure is left to the pool, which reconnects (so a server restarted between two
    transactions is survived transparently). Every other database error passes unchanged.
    """
    if getattr(ctx, "is_pre_ping", False):
        return
    orig = ctx.original_exception
    state = getattr(getattr(orig, "diag", None), "sqlstate", None) or getattr(orig, "sqlstate", None)
    connecting = ctx.connection is None
    if not (connecting or ctx.is_disconnect or state in _SERVER_GONE or str(state or "").startswith("08")):
        return
    from sqlalchemy.exc import InterfaceError, OperationalError

    if not isinstance(ctx.sqlalchemy_exception, (OperationalError, InterfaceError)):
        return
    line = describe_db_error(orig, ctx.engine if ctx.engine is not None else "")
    if connecting:
        raise DatabaseUnavailableError(f"cannot {'open' if ctx.dialect.name == 'sqlite' else 'connect'}: {line}")
    raise DatabaseUnavailableError(
        f"lost the connection: {line}; work committed before is kept, rerun once the server is back"
    )


def _sqlite_pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - exercised via engines
    """Busy timeout first, then WAL. Switching a fresh file to WAL takes an exclusive lock for
    which SQLite does not always call the busy handler, so two processes opening a new database
    at once may see "database is locked" here: retry that, with backoff, for up to ~10 s."""
    import sqlite3

    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    for attempt in range(40):
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or attempt == 39:
                raise
            time.sleep(min(0.025 * (attempt + 1), 0.5))
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _make_folder(folder: Path, *, from_home: bool) -> None:
    """Create a SQLite database's folder (with parents); an OS error → :class:`StorageError`
    naming where the folder came from (``ASSAY_HOME`` for the default location)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        why = e.strerror or type(e).__name__
        if from_home:
            raise StorageError(
                f"ASSAY_HOME={os.environ.get('ASSAY_HOME') or '~/.assay'}: cannot create the database folder "
                f"{folder} ({why}); set ASSAY_HOME to a writable folder, or give --db / ASSAY_DB_URL"
            ) from None
        raise StorageError(f"database folder {folder}: cannot be created ({why})") from None


def _create_engine(url: str, sqlite_synchronous: str | None) -> Engine:
    """The engine of :func:`make_engine` for a parsed ``url``."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            _make_folder(Path(path).expanduser().parent, from_home=url == _home_db_url())
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        if sqlite_synchronous:
            event.listen(
                engine, "connect", lambda dbapi_conn, _r: dbapi_conn.execute(f"PRAGMA synchronous={sqlite_synchronous}")
            )
    elif url.startswith("postgresql"):
        from sqlalchemy.engine import make_url

        query = make_url(url).query  # settings written in the URL win over these defaults
        args = {k: v for k, v in PG_CONNECT_ARGS.items() if k not in query}
        try:
            engine = create_engine(url, pool_pre_ping=True, connect_args=args)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(
                f"PostgreSQL needs the 'postgres' extra: pip install 'assay[postgres]' ({e})"
            ) from None
    else:
        engine = create_engine(url)
    event.listen(engine, "handle_error", _unavailable)
    return engine
