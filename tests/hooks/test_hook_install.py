"""``assay hook install --claude-code``: an idempotent merge of .claude/settings.json, no token written."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from assay.cli import app
from assay.server.claude_settings import merge_hooks

USER = {
    "model": "opus",
    "hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}],
    },
}


def test_install_merges_keeps_the_users_hooks_and_is_idempotent(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_SERVER_TOKEN", "secret-token-value")
    (tmp_path / ".claude").mkdir()
    path = tmp_path / ".claude" / "settings.json"
    path.write_text(json.dumps(USER))
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path)])
    assert r.exit_code == 0 and "hooks installed" in r.output
    first = path.read_text()
    s = json.loads(first)
    assert s["model"] == "opus" and s["hooks"]["PreToolUse"] == USER["hooks"]["PreToolUse"]
    ups = s["hooks"]["UserPromptSubmit"]
    assert ups[0] == USER["hooks"]["UserPromptSubmit"][0] and ups[1]["hooks"][0]["command"] == "assay-hook"
    assert s["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "assay-hook", "timeout": 5}]}]
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path)])
    assert r.exit_code == 0 and "unchanged" in r.output and path.read_text() == first
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--http", "--project", str(tmp_path)])
    s = json.loads(path.read_text())
    ours = [h for g in s["hooks"]["UserPromptSubmit"] for h in g["hooks"] if h.get("type") == "http"]
    assert len(s["hooks"]["UserPromptSubmit"]) == 2 and len(ours) == 1  # replaced, not added
    assert ours[0]["headers"] == {"Authorization": "Bearer $ASSAY_SERVER_TOKEN"}
    assert ours[0]["allowedEnvVars"] == ["ASSAY_SERVER_TOKEN"]
    assert "secret-token-value" not in path.read_text()


def test_install_creates_the_file_and_refuses_bad_json_with_one_line(tmp_path):
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path)])
    assert r.exit_code == 0 and (tmp_path / ".claude" / "settings.json").exists()
    (tmp_path / ".claude" / "settings.json").write_text("{oops")
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path)])
    assert r.exit_code == 2 and "settings.json:1" in r.output
    assert CliRunner().invoke(app, ["hook", "install", "--project", str(tmp_path)]).exit_code == 2


def test_merge_is_a_fixed_point():
    once = merge_hooks(USER, "command", "http://127.0.0.1:8377")
    assert merge_hooks(once, "command", "http://127.0.0.1:8377") == once
    assert USER["hooks"]["UserPromptSubmit"] == [{"hooks": [{"type": "command", "command": "echo mine"}]}]


def test_an_existing_entry_with_a_path_or_an_env_prefix_is_replaced_not_doubled():
    # failing inputs: these entries were not recognised and a second assay-hook was added
    for cmd in ("/x/.venv/bin/assay-hook", "ASSAY_SERVER_URL=http://127.0.0.1:9999 assay-hook", "env A=1 assay-hook"):
        group = {"hooks": [{"type": "command", "command": cmd}]}
        settings = {"hooks": {e: [dict(group)] for e in ("UserPromptSubmit", "Stop")}}
        out = merge_hooks(settings, "command", "http://127.0.0.1:8377")
        for event in ("UserPromptSubmit", "Stop"):
            cmds = [h.get("command") for g in out["hooks"][event] for h in g["hooks"]]
            assert cmds == ["assay-hook"], (cmd, cmds)
    other = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-assay-hook-wrapper --x"}]}]}}
    cmds = [
        h.get("command")
        for g in merge_hooks(other, "command", "http://127.0.0.1:8377")["hooks"]["Stop"]
        for h in g["hooks"]
    ]
    assert cmds == ["my-assay-hook-wrapper --x", "assay-hook"]


def test_install_url_reaches_the_command_hook_and_a_bad_url_exits_2(tmp_path):
    # failing inputs: --url without --http was silently ignored; --http --url 'ftp:/x y' accepted
    r = CliRunner().invoke(
        app, ["hook", "install", "--claude-code", "--project", str(tmp_path), "--url", "http://127.0.0.1:9999"]
    )
    assert r.exit_code == 0, r.output
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    cmds = [h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]]
    assert cmds == ["ASSAY_SERVER_URL=http://127.0.0.1:9999 assay-hook"]
    for bad in ("ftp:/x y", "http://", "http://a b:1"):
        r = CliRunner().invoke(
            app, ["hook", "install", "--claude-code", "--project", str(tmp_path), "--http", "--url", bad]
        )
        assert r.exit_code == 2 and "--url" in r.output and "Traceback" not in r.output, (bad, r.output)


def test_install_writes_through_a_symlinked_settings_file(tmp_path):
    """Audit: a settings.json that links into a dotfiles repo was replaced by a regular file (the
    link lost, the repo's copy left without the hooks). Now the link's target is replaced
    atomically and the link kept — also through a relative link and a chain of two."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude-settings.json"
    target.write_text(json.dumps(USER))
    target.chmod(0o640)
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    middle = tmp_path / "proj" / ".claude" / "shared.json"
    middle.symlink_to(target)
    link = tmp_path / "proj" / ".claude" / "settings.json"
    link.symlink_to("shared.json")  # relative, and onto another link
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path / "proj")])
    assert r.exit_code == 0 and "hooks installed" in r.output, r.output
    assert link.is_symlink() and middle.is_symlink() and str(link.readlink()) == "shared.json"
    s = json.loads(target.read_text())
    assert s["model"] == "opus" and s["hooks"]["Stop"][0]["hooks"][0]["command"] == "assay-hook"
    assert target.stat().st_mode & 0o777 == 0o640  # the target's mode kept
    assert sorted(p.name for p in dotfiles.iterdir()) == ["claude-settings.json"]  # no temporary left
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path / "proj")])
    assert "unchanged" in r.output and link.is_symlink()


def test_install_through_a_dangling_link_creates_its_target(tmp_path):
    """A link to a settings file not written yet: the file is created where the link points."""
    (tmp_path / "dot").mkdir()
    (tmp_path / ".claude").mkdir()
    link = tmp_path / ".claude" / "settings.json"
    link.symlink_to(tmp_path / "dot" / "settings.json")
    r = CliRunner().invoke(app, ["hook", "install", "--claude-code", "--project", str(tmp_path)])
    assert r.exit_code == 0 and link.is_symlink() and (tmp_path / "dot" / "settings.json").is_file()
