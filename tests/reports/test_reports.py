"""Report writers: markdown and html from the aggregate alone, atomic writes, privacy."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

import matplotlib
import pytest

from assay import atomic
from assay.atomic import atomic_write_json, atomic_write_text, check_writable_dir
from assay.reports import render_html, render_markdown, write_reports

DIMS = ["composite", "sourcing", "completeness", "impersonal", "faithfulness"]
EDGES = [round(i / 10, 1) for i in range(11)]
SVG_NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def _stat(mean, std=None, ci=None, effective_n=0):
    return {"mean": mean, "std": std, "ci": ci, "effective_n": effective_n}


def _hist(counts):
    return {"edges": EDGES, "counts": counts}


def make_aggregate(*, baseline=True, agreement=True) -> dict:
    """A realistic eval aggregate: 3 variants, some nulls, one variant with n=1 and no CI."""
    agg = {
        "schema": 1,
        "kind": "eval",
        "name": "demo",
        "backend": "stub",
        "model": None,
        "gate_version": "gate-1",
        "n": 41,
        "dims": DIMS,
        "baseline": "single_pass" if baseline else None,
        "weights": {"sourcing": 0.6, "completeness": 0.25, "impersonal": 0.15},
        "notes": ["faithfulness from the stub backend is shown but not in the composite"],
        "variants": {
            "single_pass": {
                "n": 20,
                "no_claims_rate": 0.1,
                "gate_fail_rate": 0.45,
                "dims": {
                    "composite": _stat(0.7612, 0.12, [0.7081, 0.8113], 18),
                    "sourcing": _stat(0.65, 0.2, [0.56, 0.74], 18),
                    "completeness": _stat(0.8, 0.1, [0.75, 0.85], 20),
                    "impersonal": _stat(0.9, 0.05, [0.88, 0.92], 20),
                    "faithfulness": _stat(0.5, 0.3, [0.37, 0.63], 12),
                },
                "hist": {
                    "composite": _hist([0, 0, 0, 0, 1, 2, 3, 6, 4, 2]),
                    "sourcing": _hist([1, 0, 0, 1, 2, 3, 4, 3, 2, 2]),
                    "completeness": _hist([0, 0, 0, 0, 0, 2, 4, 7, 5, 2]),
                    "impersonal": _hist([0, 0, 0, 0, 0, 0, 0, 2, 8, 10]),
                    "faithfulness": _hist([2, 1, 1, 1, 1, 1, 1, 1, 2, 1]),
                },
            },
            "debate": {
                "n": 20,
                "no_claims_rate": 0.05,
                "gate_fail_rate": 0.3,
                "dims": {
                    "composite": _stat(0.81, 0.1, [0.75, 0.86], 19),
                    "sourcing": _stat(0.78, 0.15, [0.7, 0.85], 19),
                    "completeness": _stat(0.83, 0.1, [0.78, 0.88], 20),
                    "impersonal": _stat(0.88, 0.05, [0.86, 0.9], 20),
                    "faithfulness": _stat(None, None, None, 0),
                },
                "hist": {
                    "composite": _hist([0, 0, 0, 0, 0, 1, 3, 5, 7, 3]),
                    "sourcing": _hist([0, 0, 0, 1, 1, 2, 3, 5, 4, 3]),
                    "completeness": _hist([0, 0, 0, 0, 0, 1, 4, 7, 6, 2]),
                    "impersonal": _hist([0, 0, 0, 0, 0, 0, 1, 3, 8, 8]),
                    "faithfulness": _hist([0] * 10),
                },
            },
            "mini_model": {
                "n": 1,
                "no_claims_rate": 0.0,
                "gate_fail_rate": 1.0,
                "dims": {
                    "composite": _stat(0.55, None, None, 1),
                    "sourcing": _stat(0.4, None, None, 1),
                    "completeness": _stat(None, None, None, 0),
                    "impersonal": _stat(1.0, None, None, 1),
                },
                "hist": {"composite": _hist([0, 0, 0, 0, 0, 1, 0, 0, 0, 0])},
            },
        },
        "lift": {
            "debate": {
                "composite": {"diff": 0.0488, "ci": [-0.01, 0.1], "n_pairs": 18},
                "sourcing": {"diff": 0.13, "ci": [0.05, 0.2], "n_pairs": 18},
            },
            "mini_model": {
                "composite": {"diff": -0.2, "ci": None, "n_pairs": 1},
                "sourcing": {"diff": None, "ci": None, "n_pairs": 0},
            },
        },
        "agreement": {
            "label_field": "meta.human_label",
            "positive": "Incorrect Answer",
            "excluded": {"Refusal": 12},
            "no_claims_left_out": 7,
            "n": 100,
            "tp": 30,
            "fp": 10,
            "fn": 15,
            "tn": 45,
            "precision": 0.75,
            "recall": 0.6667,
            "accuracy": 0.75,
            "kappa": 0.4898,
        },
        "bottom": {
            d: [
                {"rank": i + 1, "variant": v, "slice": s, "score": sc}
                for i, (v, s, sc) in enumerate(
                    [("single_pass", "income", 0.12), ("debate", None, 0.2), ("mini_model", "ratios", 0.31)]
                )
            ]
            for d in DIMS[:4]
        },
    }
    if not baseline:
        agg["lift"] = {}
    if not agreement:
        agg["agreement"] = None
    return agg


def _table_lines(md: str, heading: str) -> list[str]:
    section = md.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("|")]


def _external_urls(text: str) -> set[str]:
    return set(re.findall(r"https?://[^\s\"'<>)]+", text)) - SVG_NAMESPACES


# --- markdown ------------------------------------------------------------------------------


def test_markdown_has_title_tables_and_ranks_by_composite():
    md = render_markdown(make_aggregate())
    first = md.splitlines()[0]
    assert first.startswith("# demo") and "backend stub" in first and "gate-1" in first and "n=41" in first
    rows = _table_lines(md, "Variants")
    assert rows[0].split("|")[1].strip() == "variant"
    assert [r.split("|")[1].strip() for r in rows[2:]] == ["debate", "single_pass", "mini_model"]
    assert "0.810 [0.750, 0.860]" in rows[2]
    assert "0.761 [0.708, 0.811] (n=18)" in rows[3]
    mini = rows[4]
    assert "0.550" in mini and "[" not in mini  # n=1: mean, no CI
    assert mini.count("—") >= 2  # completeness and faithfulness not measured
    for heading in ("Lift vs single_pass", "Agreement with meta.human_label", "Bottom 3 per dimension", "Notes"):
        assert f"## {heading}" in md
    lift = _table_lines(md, "Lift vs single_pass")
    assert "+0.049 [-0.010, +0.100]" in lift[2] and "| 18 |" in lift[2]
    assert "-0.200" in lift[3] and "—" in lift[3]
    assert "- faithfulness from the stub backend" in md


def test_markdown_agreement_and_bottom_rows():
    md = render_markdown(make_aggregate())
    agreement = "\n".join(_table_lines(md, "Agreement with meta.human_label"))
    assert "Incorrect Answer" in agreement and "| 30 | 10 |" in agreement and "0.490" in agreement
    assert "Refusal 12" in md and "no claims 7" in md
    bottom = _table_lines(md, "Bottom 3 per dimension (below 1.0)")
    assert bottom[2].split("|")[1:6] == [
        " composite (answered only, schema 1) ",  # a schema-1 composite leaves no_claims out
        " #1 ",
        " single_pass ",
        " income ",
        " 0.120 ",
    ]
    assert bottom[3].split("|")[4].strip() == "—"  # slice None


def test_markdown_without_baseline_or_agreement():
    md = render_markdown(make_aggregate(baseline=False, agreement=False))
    assert "No baseline" in md
    assert "Agreement" not in md
    assert len(md.splitlines()) < 45  # one screen


def test_null_composite_sorts_last_and_minimal_aggregate_renders():
    agg = make_aggregate()
    agg["variants"]["zz_empty"] = {"n": 0, "dims": {}}
    agg["variants"]["aa_nocomp"] = {"n": 3, "dims": {"composite": _stat(None, None, None, 0)}}
    rows = _table_lines(render_markdown(agg), "Variants")
    assert [r.split("|")[1].strip() for r in rows[-2:]] == ["aa_nocomp", "zz_empty"]
    minimal = {
        "schema": 1,
        "kind": "rationality",
        "backend": "stub",
        "n": 2,
        "variants": {"all": {"n": 2, "dims": {"planning": _stat(0.5, 0.1, None, 2)}}},
    }
    assert "| all | 2 | 0.500 |" in render_markdown(minimal)
    assert "<svg" in render_html(minimal)


def test_hostile_names_are_escaped():
    agg = make_aggregate()
    agg["variants"]["<script>x|y</script>"] = agg["variants"].pop("mini_model")
    agg["notes"].append("<img src=x onerror=alert(1)>")
    md = render_markdown(agg)
    row = [r for r in _table_lines(md, "Variants") if "script" in r][0]
    assert row.count(" | ") == _table_lines(md, "Variants")[0].count(" | ")  # the pipe did not add a column
    html = render_html(agg)
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


# --- html ----------------------------------------------------------------------------------


def test_html_is_self_contained_with_three_plots():
    html = render_html(make_aggregate())
    assert html.startswith("<!DOCTYPE html>")
    assert html.count("<svg") >= 3
    assert _external_urls(html) == set()
    assert "<?xml" not in html and "<!DOCTYPE svg" not in html
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # three inline SVGs share one id namespace
    for text in (
        "Variants",
        "Lift vs single_pass",
        "Agreement with meta.human_label",
        "Bottom 3",
        "Notes",
        "0.810 [0.750, 0.860]",
    ):
        assert text in html


def test_html_without_baseline_omits_lift_plot_with_a_note():
    html = render_html(make_aggregate(baseline=False, agreement=False))
    assert html.count("<svg") == 2
    assert "No baseline variant, so there is no lift plot." in html
    assert "Agreement" not in html


def test_html_is_deterministic_and_leaves_matplotlib_settings_alone():
    before = dict(matplotlib.rcParams)
    backend = matplotlib.get_backend()
    assert render_html(make_aggregate()) == render_html(make_aggregate())
    assert dict(matplotlib.rcParams) == before
    assert matplotlib.get_backend() == backend


def test_html_survives_odd_statistics():
    agg = make_aggregate()
    agg["variants"]["debate"]["dims"]["composite"]["ci"] = [0.85, 0.9]  # a CI that excludes the mean
    agg["variants"]["single_pass"]["hist"]["sourcing"] = {"edges": [0.0, 1.0], "counts": []}  # malformed
    agg["lift"]["debate"]["composite"] = {"diff": None, "ci": None, "n_pairs": 0}
    html = render_html(agg)
    assert html.count("<svg") >= 3 and "Not plotted (no pairs): debate." in html


# --- atomic writes -------------------------------------------------------------------------


def test_atomic_writes_leave_no_temp_files(tmp_path):
    atomic_write_text(tmp_path / "a.md", "héllo\n")
    atomic_write_json(tmp_path / "b.json", {"x": "é", "y": [1, 2]})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.json"]
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == "héllo\n"
    text = (tmp_path / "b.json").read_text(encoding="utf-8")
    assert text.endswith("\n") and '"é"' in text and json.loads(text) == {"x": "é", "y": [1, 2]}


def test_failed_json_keeps_the_old_file(tmp_path):
    target = tmp_path / "agg.json"
    atomic_write_json(target, {"ok": 1})
    old = target.read_bytes()
    with pytest.raises(ValueError):
        atomic_write_json(target, {"mean": float("nan")})
    with pytest.raises(TypeError):
        atomic_write_json(target, {"bad": object()})
    assert target.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["agg.json"]


def test_interrupted_write_removes_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "r.md"
    target.write_text("old")

    def boom(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]


def test_check_writable_dir(tmp_path):
    made = check_writable_dir(tmp_path / "a" / "b")
    assert made.is_dir() and made.is_absolute() and list(made.iterdir()) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError, match="cannot create output directory"):
        check_writable_dir(tmp_path / "file")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can write anywhere")
def test_check_writable_dir_rejects_read_only(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OSError, match="not writable"):
            check_writable_dir(ro)
    finally:
        ro.chmod(0o700)


# --- write_reports -------------------------------------------------------------------------


def test_write_reports_writes_four_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    paths = write_reports("out/nested", "demo", {"schema": 1, "kind": "eval", "cases": []}, make_aggregate())
    assert [p.name for p in paths] == ["demo.local.json", "demo.aggregate.json", "demo.md", "demo.html"]
    assert all(p.is_absolute() and p.is_file() for p in paths)
    assert sorted(p.name for p in paths[0].parent.iterdir()) == sorted([".demo.lock", *(p.name for p in paths)])
    assert json.loads(paths[1].read_text(encoding="utf-8")) == make_aggregate()


def test_write_reports_writes_nothing_when_rendering_fails(tmp_path):
    bad = make_aggregate()
    bad["variants"]["debate"]["dims"]["composite"]["std"] = float("nan")
    with pytest.raises(ValueError):
        write_reports(tmp_path, "demo", {"cases": []}, bad)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="plain file name"):
        write_reports(tmp_path, "../escape", {}, make_aggregate())


def test_case_ids_never_reach_shareable_files(tmp_path):
    local = {
        "schema": 1,
        "kind": "eval",
        "backend": "stub",
        "cases": [
            {
                "id": f"case-SECRET-{i}",
                "variant": v,
                "slice": "income",
                "status": "pass",
                "scores": {"composite": 0.5},
                "reasons": {},
            }
            for i in range(3)
            for v in ("single_pass", "debate")
        ],
    }
    agg = make_aggregate()
    paths = write_reports(tmp_path, "demo", local, copy.deepcopy(agg))
    assert "case-SECRET-1" in paths[0].read_text(encoding="utf-8")
    for path in paths[1:]:
        assert "SECRET" not in path.read_text(encoding="utf-8"), path.name


def test_renderers_take_only_the_aggregate():
    import inspect

    for fn in (render_markdown, render_html):
        assert list(inspect.signature(fn).parameters) == ["aggregate"]


def render_fixture(out_dir: str | Path) -> list[Path]:
    """Write the fixture's four files (used for a manual look at the html)."""
    return write_reports(out_dir, "x", {"schema": 1, "kind": "eval", "cases": []}, make_aggregate())


# --- issue 16: schema-2 sections ------------------------------------------------------------


def _schema2_aggregate() -> dict:
    from assay.cases import Case
    from assay.evaluate import EvalConfig, run_eval
    from eval_cases import REFUSAL, case, two_variant_rows

    rows = two_variant_rows() + [case(f"r{i}", "cand", REFUSAL, slice="other") for i in range(3)]
    rows += [case(f"r{i}", "base", rows[0]["answer"], slice="other") for i in range(3)]
    _, agg = run_eval([Case.model_validate(r) for r in rows], EvalConfig(baseline="base", n_resamples=200, run_id="R1"))
    return agg


def test_schema2_report_has_run_id_coverage_flag_breakdown_and_a_lift_plot_per_dimension():
    agg = _schema2_aggregate()
    md, html = render_markdown(agg), render_html(agg)
    assert md.startswith("<!-- run_id: R1 -->\n") and '<meta name="run_id" content="R1">' in html
    assert [f["variant"] for f in agg["coverage_flags"]] == ["cand"]
    for text in (md, html):
        assert "Coverage differs from base" in text
        assert "Cases with a violation, per kind" in text and "value_mismatch" in text
        assert "Per slice" in text and "margins" in text
    violations = _table_lines(md, "Cases with a violation, per kind")
    assert violations[0].split("|")[1:4] == [" variant ", " n ", " value_mismatch "]
    lifted = [d for d in agg["dims"] if any(d in per_dim for per_dim in agg["lift"].values())]
    for d in lifted:
        assert f"{d} lift vs base (paired diff, 95% CI)" in html
    assert len(lifted) >= 6
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))  # one id namespace per lift plot
    bottom = _table_lines(md, "Bottom 3 per dimension (below 1.0)")
    assert bottom[0].split("|")[1:4] == [" dimension ", " rank ", " key "]
    assert "| 1.000 |" not in "\n".join(bottom)
