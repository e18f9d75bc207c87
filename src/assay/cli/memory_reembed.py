"""``assay memory reembed``: convert a store to another embedder, on purpose (a search never does).

Exit 0 when done (or nothing to do), 2 on bad input or an unavailable embedder (nothing written).
"""

from __future__ import annotations

import json
from enum import Enum

import typer

from assay.cli.app import memory_app
from assay.cli.common import db_errors, err, open_memory_store, out, progress_bar, user_errors

__all__ = ["reembed_cmd"]


class Target(str, Enum):
    minilm = "minilm"
    hashing = "hashing"


@memory_app.command("reembed")
def reembed_cmd(
    ctx: typer.Context,
    embedder: Target = typer.Option(
        ..., "--embedder", help="The embedder to convert the store to: minilm (needs the 'ml' extra) or hashing."
    ),
    force: bool = typer.Option(False, "--force", help="Re-encode every memory, even those already of this embedder."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or progress lines on stderr."),
) -> None:
    """Re-embed the store with another embedder, on purpose (a search never does): one transaction."""
    with user_errors(ctx), db_errors():
        from assay.memory.retrieval.progress import memory_progress

        store = open_memory_store(ctx, embedder.value)
        root = ctx.find_root().obj
        quiet = quiet or (isinstance(root, dict) and bool(root.get("quiet")))
        with memory_progress("re-embedding memories", quiet=quiet, console=err, bar=progress_bar) as update:
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
