"""CLI command modules of assay capabilities; each has ``register(app: typer.Typer)`` (see ``assay.cli._COMMAND_MODULES``)."""
