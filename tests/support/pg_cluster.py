"""A throwaway PostgreSQL cluster owned by one test or benchmark run (issue 10).

``start_cluster(bin_dir)`` runs ``initdb`` into a fresh temporary folder, starts ``postgres`` on
a free loopback port with its unix socket in that folder, and returns a :class:`PgCluster`
whose :meth:`~PgCluster.destroy` stops the server and removes the folder — nothing outlives
the run. As root (CI, this machine) the server runs as the ``postgres`` user (``nobody`` when
there is none), because PostgreSQL refuses to run as root.

Binaries: :func:`system_bin_dir` finds the system's PostgreSQL (Debian's
``/usr/lib/postgresql/N/bin``, ``pg_config --bindir``, or ``initdb`` on PATH; ``ASSAY_PG_BIN``
overrides); :func:`pgserver_bin_dir` finds the PostgreSQL + pgvector build bundled by the PyPI
package ``pgserver`` (used for the pgvector path; Debian's PostgreSQL 15 has no pgvector).

Logins: superuser ``postgres`` with a random password over TCP (``scram-sha-256``), so URLs
carry a real password and tests can check it never shows in a message.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: Server settings for tests: no fsync (a throwaway cluster; the data need not survive a power
#: loss), small memory. ``durable=True`` (benchmarks) keeps PostgreSQL's defaults instead.
FAST_SETTINGS = {"fsync": "off", "full_page_writes": "off", "shared_buffers": "32MB", "max_connections": "60"}


class ClusterError(RuntimeError):
    """initdb or the server failed; the message holds the tail of its log."""


@dataclass
class PgCluster:
    """A running throwaway cluster. ``base``: its folder (``data/``, the socket, ``server.log``)."""

    bin_dir: Path
    base: Path
    port: int
    password: str
    run_as: str | None
    settings: dict[str, str]

    def url(self, database: str = "postgres") -> str:
        """``postgresql+psycopg://postgres:PASSWORD@127.0.0.1:PORT/DATABASE``."""
        return f"postgresql+psycopg://postgres:{self.password}@127.0.0.1:{self.port}/{database}"

    @property
    def version(self) -> str:
        return (self.base / "data" / "PG_VERSION").read_text().strip()

    def create_database(self, name: str) -> str:
        """Create database ``name`` (letters, digits, ``_``) and return its URL."""
        self._admin(f'CREATE DATABASE "{_ident(name)}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name``, closing any session still on it (``WITH (FORCE)``, PostgreSQL 13+)."""
        self._admin(f'DROP DATABASE IF EXISTS "{_ident(name)}" WITH (FORCE)')

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: ends every session, as an operator's restart does)."""
        self._pg_ctl("stop", "-m", mode)

    def start(self) -> None:
        """Start the (stopped) server again on the same port."""
        opts = " ".join(f"-c {k}={v}" for k, v in {**self.settings, "listen_addresses": "127.0.0.1"}.items())
        self._pg_ctl("start", "-l", str(self.base / "server.log"), "-o", f"-p {self.port} -k {self.base} {opts}")

    def running(self) -> bool:
        return (self.base / "data" / "postmaster.pid").exists()

    def destroy(self) -> None:
        """Stop the server if it runs and remove the cluster's folder."""
        try:
            if self.running():
                self._pg_ctl("stop", "-m", "immediate")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user="postgres",
            password=self.password,
            dbname="postgres",
            autocommit=True,
            connect_timeout=10,
        ) as conn:
            conn.execute(sql)

    def _pg_ctl(self, *args: str) -> None:
        _run(
            [str(self.bin_dir / "pg_ctl"), "-D", str(self.base / "data"), "-w", "-t", "60", *args],
            self.run_as,
            log=self.base / "server.log",
        )


def system_bin_dir() -> Path | None:
    """The system PostgreSQL's ``bin`` folder (with ``initdb``, ``pg_ctl``, ``postgres``), or ``None``.

    Order: ``$ASSAY_PG_BIN``; the newest ``/usr/lib/postgresql/N/bin`` (Debian, Ubuntu);
    ``pg_config --bindir``; the folder of ``initdb`` on PATH."""
    candidates: list[str] = []
    if os.environ.get("ASSAY_PG_BIN"):
        candidates.append(os.environ["ASSAY_PG_BIN"])
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(re.sub(r"\D", "", p) or 0), reverse=True
    )
    if shutil.which("pg_config"):
        try:
            candidates.append(
                subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10).stdout.strip()
            )
        except (OSError, subprocess.SubprocessError):
            pass
    if shutil.which("initdb"):
        candidates.append(str(Path(shutil.which("initdb")).resolve().parent))  # type: ignore[arg-type]
    for c in candidates:
        if c and all((Path(c) / exe).is_file() for exe in ("initdb", "pg_ctl", "postgres")):
            return Path(c)
    return None


def pgserver_bin_dir() -> Path | None:
    """The ``bin`` folder of the PostgreSQL + pgvector build inside the PyPI package ``pgserver``
    (found without importing it), or ``None`` when the package is not installed."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    b = Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"
    return b if (b / "initdb").is_file() and (b / "postgres").is_file() else None


def start_cluster(bin_dir: Path, *, durable: bool = False, tries: int = 3) -> PgCluster:
    """initdb + start a cluster of ``bin_dir``'s PostgreSQL on a free loopback port.

    ``durable``: keep PostgreSQL's default fsync/WAL settings (for throughput figures); else
    :data:`FAST_SETTINGS`. Raises :class:`ClusterError` (with the log's tail) when it cannot.
    """
    run_as = _server_user()
    base = Path(tempfile.mkdtemp(prefix="assay-pg-"))
    try:
        password = secrets.token_urlsafe(12)
        (base / "pw").write_text(password)
        if run_as:
            ids = pwd.getpwnam(run_as)
            for p in (base, base / "pw"):
                os.chown(p, ids.pw_uid, ids.pw_gid)
        _run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(base / "data"),
                "-U",
                "postgres",
                f"--pwfile={base / 'pw'}",
                "-E",
                "UTF8",
                "--locale=C",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--no-sync",
            ],
            run_as,
            log=base / "initdb.log",
        )
        (base / "pw").unlink()
        settings = {} if durable else dict(FAST_SETTINGS)
        for attempt in range(1, tries + 1):
            cluster = PgCluster(
                bin_dir=bin_dir, base=base, port=_free_port(), password=password, run_as=run_as, settings=settings
            )
            try:
                cluster.start()
                _watch(cluster)
                return cluster
            except ClusterError:
                if attempt == tries:  # another process took the port between probe and bind, or worse
                    raise
                time.sleep(0.2)
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    raise AssertionError("unreachable")


#: The watchdog: once the owning process is gone (killed before its teardown ran), stop the
#: server and remove its folder; exits by itself when the folder was removed normally.
_WATCHDOG = """
import os, shutil, subprocess, sys, time
owner, pg_ctl, base, run_as = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] or None
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
while os.path.isdir(base) and alive(owner):
    time.sleep(1)
if os.path.isdir(base):
    subprocess.run(
        [pg_ctl, "-D", os.path.join(base, "data"), "-m", "immediate", "stop"], user=run_as, capture_output=True, cwd="/"
    )
    shutil.rmtree(base, ignore_errors=True)
"""


def _watch(cluster: PgCluster) -> None:
    """Start the watchdog of ``cluster`` (a detached Python process owned by nobody's teardown)."""
    import sys

    subprocess.Popen(
        [
            sys.executable,
            "-c",
            _WATCHDOG,
            str(os.getpid()),
            str(cluster.bin_dir / "pg_ctl"),
            str(cluster.base),
            cluster.run_as or "",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd="/",
    )


def _server_user() -> str | None:
    """As root: the user the server runs as (``postgres``, else ``nobody``); otherwise ``None``."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise ClusterError("running as root and neither a 'postgres' nor a 'nobody' user exists to run the server")


def _run(cmd: list[str], run_as: str | None, *, log: Path) -> None:
    r = subprocess.run(cmd, user=run_as, capture_output=True, text=True, timeout=120, cwd="/")
    if r.returncode != 0:
        tail = (log.read_text(errors="replace") if log.exists() else "")[-1500:]
        raise ClusterError(
            f"{Path(cmd[0]).name} {cmd[1:4]} failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-800:]}\n{tail}"
        )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ident(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name):
        raise ValueError(f"database name must be letters, digits and _ (≤ 63), got {name!r}")
    return name
