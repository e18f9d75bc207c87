"""``assay memory reembed``: convert a store to another embedder, on purpose (a search never does).

Registered by :mod:`assay.cli.memory` (imported at its end). Exit 0 when done (or nothing to do), 2 on bad input
or an unavailable embedder (nothing written).
"""

from __future__ import annotations

import json

import typer

from assay.cli.app import memory_app
from assay.cli.common import db_errors, out, user_errors
from assay.cli.memory import _JSON_OPT, EmbedderName, _open
from assay.cli.memory_progress import QUIET_OPT, is_quiet, memory_progress

__all__ = ["reembed_cmd"]


@memory_app.command("reembed")
def reembed_cmd(
    ctx: typer.Context,
    embedder: EmbedderName = typer.Option(
        ..., "--embedder", help="The embedder to convert the store to: minilm (needs the 'ml' extra) or hashing."
    ),
    force: bool = typer.Option(False, "--force", help="Re-encode every memory, even those already of this embedder."),
    as_json: bool = _JSON_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Re-embed the store with another embedder, on purpose (a search never does): one transaction."""
    with user_errors(ctx), db_errors():
        store = _open(ctx, embedder)
        with memory_progress("re-embedding memories", quiet=is_quiet(ctx, quiet)) as update:
            rep = store.reembed(on_progress=update, force=force)
    if as_json:
        out.print(json.dumps(rep.to_dict(), indent=2), markup=False)
        return
    was = ", ".join(f"{ident} {n:,}" for ident, n in rep.before.items()) or "no vectors"
    if rep.reembedded:
        out.print(
            f"re-embedded {rep.reembedded:,} memories as {rep.identity} in {rep.seconds:.1f} s "
            f"(before: {was}; {rep.total:,} memories in all)",
            markup=False,
        )
    else:
        out.print(f"nothing to re-embed: all {rep.total:,} memories are embedded with {rep.identity}", markup=False)
