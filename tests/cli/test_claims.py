"""``assay claims check`` through the command line: exit codes 0 / 1 / 2 / 3, stdin, JSON, Markdown."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from assay.cli import app


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "120")


def local(path, variant_scores: dict[str, list[float | None]], schema=1):
    cases = [
        {"id": f"q{i}", "variant": v, "scores": {"composite": s, "sourcing": 1.0}}
        for v, scores in variant_scores.items()
        for i, s in enumerate(scores)
    ]
    path.write_text(json.dumps({"schema": schema, "kind": "eval", "backend": "none", "cases": cases}))
    return str(path)


@pytest.fixture()
def runs(tmp_path):
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.6, 60).round(3).tolist()
    head = (np.array(base) + 0.05 + rng.normal(0, 0.05, 60)).round(3).tolist()
    return local(tmp_path / "base.local.json", {"v": base}), local(tmp_path / "head.local.json", {"v": head})


def invoke(*args, input=None):
    return CliRunner().invoke(app, ["claims", "check", *args], input=input)


def test_exit_0_when_every_statement_holds(runs, tmp_path):
    claims = tmp_path / "pr.md"
    claims.write_text("## What\n- Claim: composite=+5pp\n- Guard: sourcing >= -1pp\n")
    r = invoke(*runs, "--claims", str(claims), "--md", str(tmp_path / "c.md"))
    assert r.exit_code == 0, r.output
    assert "supported" in r.output and "held" in r.output
    md = (tmp_path / "c.md").read_text()
    assert "2 of 2 hold." in md and "q1" not in md  # aggregates only, no case ids


def test_exit_1_when_a_claim_is_overstated(runs):
    r = invoke(*runs, "--claims", "-", "--json", input="Claim: composite=+25pp\n")
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    assert data["checks"][0]["verdict"] == "overstated" and data["all_hold"] is False
    assert data["checks"][0]["delta"] == pytest.approx(0.25)


def test_exit_2_names_the_dimensions_that_exist(runs):
    r = invoke(*runs, "--claims", "-", input="Claim: compsite=+5pp\n")
    assert r.exit_code == 2
    assert "no dimension 'compsite'" in r.output and "composite, sourcing" in r.output


def test_exit_2_on_a_malformed_line_with_its_line_number(runs, tmp_path):
    claims = tmp_path / "pr.md"
    claims.write_text("intro\nClaim: composite=lots\n")
    r = invoke(*runs, "--claims", str(claims))
    assert r.exit_code == 2 and f"{claims}:2: claim: expected" in r.output


def test_exit_2_without_statements(runs):
    assert invoke(*runs, "--claims", "-", input="just prose\n").exit_code == 2


def test_exit_3_with_zero_pairs(tmp_path):
    a = local(tmp_path / "a.local.json", {"v": [0.5, 0.5]})
    b = tmp_path / "b.local.json"
    b.write_text(
        json.dumps(
            {"schema": 1, "kind": "eval", "cases": [{"id": "other", "variant": "v", "scores": {"composite": 0.9}}]}
        )
    )
    r = invoke(a, str(b), "--claims", "-", input="Claim: composite=+5pp\n")
    assert r.exit_code == 3 and "no_pairs" in r.output


def test_two_variants_of_one_file(tmp_path):
    one = local(tmp_path / "one.local.json", {"a": [0.3] * 20, "b": [0.5] * 20})
    r = invoke(
        one, one, "--claims", "-", "--base-variant", "a", "--head-variant", "b", input="Claim: composite=+20pp\n"
    )
    assert r.exit_code == 0, r.output
    same = invoke(one, one, "--claims", "-", input="Claim: composite=+20pp\n")
    assert same.exit_code == 2 and "--base-variant" in same.output


def test_holm_and_bca_options(runs):
    r = invoke(
        *runs, "--claims", "-", "--family", "holm", "--interval", "bca", "--json", input="Claim: composite=+5pp\n"
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["family"] == "holm" and data["interval"] == "bca" and data["checks"][0]["p_adjusted"] < 0.05
