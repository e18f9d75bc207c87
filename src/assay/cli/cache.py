"""``assay cache stats [--json]`` and ``assay cache clear [--key PREFIX] [--expired] [--yes]``.

Both use the database of the global ``--db`` option (> ``ASSAY_DB_URL`` > ``$ASSAY_HOME/assay.db``)
and create the cache tables on first use. Output never shows a key or a memo. ``clear`` asks
before deleting unless ``--yes``; without a terminal to ask on it exits 2 and deletes nothing.
"""

from __future__ import annotations

import json
import sys

import typer

from assay.cli.app import cache_app
from assay.cli.common import UsageError, db_errors, db_url, err, out, redact, user_errors

__all__ = ["clear_cmd", "stats_cmd"]


@cache_app.command("stats")
def stats_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="One JSON object.")) -> None:
    """Entries, bytes, and requests by status (hit, miss, stale_*, expired, regate_failed, gate_failed, …)."""
    from assay.cache import MemoCache

    with user_errors(ctx):
        url = db_url(ctx)
        with db_errors(url):
            s = MemoCache(url).stats()
    if as_json:
        out.print(json.dumps(s, indent=2), markup=False)
        return
    from rich.table import Table

    rate = "—" if s["hit_rate"] is None else f"{s['hit_rate']:.1%}"
    out.print(f"memo cache at {redact(url)}", markup=False)
    out.print(
        f"{s['entries']} {'entry' if s['entries'] == 1 else 'entries'} ({s['expired_entries']} expired), "
        f"{_size(s['bytes'])}; "
        f"{s['lookups']} requests: {s['hits']} hits, {s['misses']} not served from cache (hit rate {rate})",
        markup=False,
    )
    t = Table(title="requests by status")
    t.add_column("status")
    t.add_column("n", justify="right")
    for status, n in s["by_status"].items():
        t.add_row(status, str(n))
    out.print(t)


@cache_app.command("clear")
def clear_cmd(
    ctx: typer.Context,
    key: str | None = typer.Option(None, "--key", metavar="PREFIX", help="Only entries whose key starts with PREFIX."),
    expired: bool = typer.Option(False, "--expired", help="Only entries past their TTL."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking (needed off a terminal)."),
) -> None:
    """Delete cache entries (all of them, and the request counts, when no filter is given).
    Asks first unless --yes."""
    from assay.cache import MemoCache

    with user_errors(ctx):
        url = db_url(ctx)
        if not yes:
            _confirm(_what(key, expired), url)
        with db_errors(url):
            r = MemoCache(url).clear(prefix=key, expired=expired)
    what = " and the request counts" if r["counts_reset"] else ""
    out.print(f"removed {r['removed']} entr{'y' if r['removed'] == 1 else 'ies'}{what}", markup=False)


# --- helpers -------------------------------------------------------------------------------


def _what(key: str | None, expired: bool) -> str:
    """The entries a clear removes, in words."""
    if key is None and not expired:
        return "every cache entry and the request counts"
    parts = [f"whose key starts with {key!r}"] if key is not None else []
    parts += ["past their TTL"] if expired else []
    return "the cache entries " + " and ".join(parts)


def _interactive() -> bool:
    return sys.stdin.isatty()


def _confirm(what: str, url: str) -> None:
    """Ask on the terminal; :class:`UsageError` (exit 2, nothing deleted) without one."""
    if not _interactive():
        raise UsageError(f"cache clear would delete {what}: pass --yes to confirm (no terminal to ask on)")
    if not typer.confirm(f"Delete {what} from {redact(url)}?", default=False, err=True):
        err.print("nothing deleted", markup=False)
        raise typer.Exit(0)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB" if n < 1024**2 else f"{n / 1024**2:.1f} MiB"
