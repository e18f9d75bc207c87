"""The ``assay`` command line: thin — parses, calls the library, prints.

Errors the user can fix (bad input files, an unusable output directory, unknown options) exit 2
with one readable line on stderr; ``--debug`` shows the traceback instead.

Layout (after inspect_ai's ``_cli/``): :mod:`assay.cli.app` holds the Typer app, its global
options, its command groups, ``init-db`` and :func:`main`; :mod:`assay.cli.common` what the
commands share; every other module is one command group and adds its commands to the app when
imported here, so :data:`app` is complete on ``import assay.cli``. No command module imports
another; a command whose optional extra is missing still registers and says which extra to
install when it runs.
"""

# isort: off
# The order below is the order of the top-level commands in `assay --help` (init-db comes with the
# app); app.py fixes the order of the groups, and within a group its first module comes first.
from assay.cli.app import app, main
from assay.cli import gate, eval, imports  # noqa: F401  (gate, eval, compare, import)
from assay.cli import verdicts, judge, judge_rationality, cache, memory, memory_learn  # noqa: F401  (the groups)
from assay.cli import memory_ab, memory_models, claims  # noqa: F401  (memory ab, retrain, models; claims)
from assay.cli import report  # noqa: F401  (report check, report open)
from assay.cli import memory_reembed  # noqa: F401  (memory reembed)
from assay.cli import serve, hook  # noqa: F401  (serve, mcp; hook install)
from assay.cli import judge_pairwise, memory_replay  # noqa: F401  (judge pairwise, memory replay)

# isort: on

__all__ = ["app", "main"]
