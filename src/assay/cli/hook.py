"""``assay hook install --claude-code``: merge assay's memory hooks into a project's Claude Code settings.

Thin: :func:`assay.server.claude_settings.install` does the merge (idempotent, the user's other
hooks kept, no token written).
"""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli.app import hook_app
from assay.cli.common import UsageError, out, user_errors

__all__ = ["install_cmd"]


@hook_app.command("install")
def install_cmd(
    ctx: typer.Context,
    claude_code: bool = typer.Option(
        False, "--claude-code", help="Install the Claude Code hooks (the one target today)."
    ),
    project: Path = typer.Option(Path("."), "--project", help="Project folder (its .claude/settings.json is merged)."),
    http: bool = typer.Option(
        False, "--http", help="type: http hooks (Claude Code posts to the server) instead of the assay-hook command."
    ),
    url: str = typer.Option(
        "http://127.0.0.1:8377",
        "--url",
        help="Server address (the http hook posts to it; the command hook gets it as ASSAY_SERVER_URL).",
    ),
) -> None:
    """Merge the UserPromptSubmit and Stop hooks into PROJECT/.claude/settings.json (run again: no change)."""
    with user_errors(ctx):
        if not claude_code:
            raise UsageError("say which agent: --claude-code")
        if not project.is_dir():
            raise UsageError(f"--project {project}: not a directory")
        from assay.server.claude_settings import check_url, install

        try:
            check_url(url)
        except ValueError as e:
            raise UsageError(str(e)) from None
        path, changed = install(project, "http" if http else "command", url)
        out.print(f"{path}: {'hooks installed' if changed else 'hooks already installed, unchanged'}", markup=False)
