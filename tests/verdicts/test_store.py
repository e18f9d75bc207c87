"""VerdictStore persistence: reopening, several writers, all-or-nothing inserts, spec fixed per store,
the hybrid embedding term, stats."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest
from sqlalchemy import select

from assay.verdicts import DuplicateVerdictError, SimilaritySpec, SpecError, VerdictFileError, VerdictStore, load_spec
from assay.verdicts.spec import FieldSpec
from assay.verdicts.tables import verdicts_table
from verdict_fixtures import FIXTURE, QUERY, TRUE_MATCH


def _url(tmp_path, name="v.db"):
    return f"sqlite:///{tmp_path / name}"


def test_verdicts_survive_reopening_with_all_their_fields(tmp_path):
    a = VerdictStore(_url(tmp_path))
    first = dict(FIXTURE[6], created_at="2024-03-01T09:30:00+02:00", source="board-2024-03")
    a.add([first, *FIXTURE[:6]])
    b = VerdictStore(_url(tmp_path))
    v = b.get(TRUE_MATCH)
    assert v.fields == {
        "cost_codes": ["FAC-ENERGY", "FAC-HVAC", "UTIL-ELEC"],
        "measure_type": "renegotiation",
        "claimed_saving": 38000.0,
    }
    assert v.created_at.isoformat() == "2024-03-01T07:30:00+00:00"  # normalised to UTC
    assert v.source == "board-2024-03" and v.decision == "approve"
    assert b.count() == 7 == len(b)
    assert b.get("nope") is None


def test_a_second_writer_is_seen_by_an_open_reader(tmp_path):
    reader = VerdictStore(_url(tmp_path))
    writer = VerdictStore(_url(tmp_path))
    writer.add(FIXTURE[:3])
    assert [h.verdict.id for h in reader.retrieve(QUERY, k=10)] != []
    assert len(reader.retrieve(QUERY, k=50)) == 3
    writer.add(FIXTURE[3:])
    hits = reader.retrieve(QUERY, k=50)
    assert len(hits) == len(FIXTURE) and hits[0].verdict.id == TRUE_MATCH


def test_rows_missing_from_the_index_trigger_a_full_reload(tmp_path):
    s = VerdictStore(_url(tmp_path))
    s.add(FIXTURE)
    assert len(s.retrieve(QUERY, k=50)) == len(FIXTURE)
    with s.engine.begin() as conn:  # someone deletes a row and bumps the revision
        conn.execute(verdicts_table.delete().where(verdicts_table.c.id == TRUE_MATCH))
    s.add([dict(FIXTURE[0], id="late")])
    ids = [h.verdict.id for h in s.retrieve(QUERY, k=50)]
    assert TRUE_MATCH not in ids and "late" in ids and len(ids) == len(FIXTURE)


def test_duplicate_ids_insert_nothing(tmp_path):
    s = VerdictStore(_url(tmp_path))
    s.add(FIXTURE[:2])
    changed = dict(FIXTURE[0], decision="reject")
    with pytest.raises(
        DuplicateVerdictError,
        match="'v-01-led' is already in store 'default' with another decision \\(stored 'approve', given 'reject'\\)",
    ):
        s.add([FIXTURE[5], changed])
    with pytest.raises(DuplicateVerdictError, match="duplicate id 'v-05-fleet'; first at line 1"):
        s.add([FIXTURE[4], FIXTURE[4]])
    assert s.count() == 2


def test_adding_an_identical_verdict_again_changes_nothing(tmp_path):
    """``verdicts add`` twice on one file failed while ``memory add`` merges (issue 16)."""
    s = VerdictStore(_url(tmp_path))
    from sqlalchemy import select

    from assay.verdicts.tables import verdict_stores

    def revision() -> int:
        with s.engine.connect() as conn:
            return conn.execute(select(verdict_stores.c.revision)).scalar_one()

    assert s.add(FIXTURE[:2]) == 2
    assert s.add(FIXTURE[:3]) == 1  # the two stored ones are identical: only the third is new
    before = revision()
    assert s.add(FIXTURE[:3]) == 0 and s.count() == 3 and revision() == before  # no write at all
    two = dict(FIXTURE[1], rationale="other words", source="elsewhere")
    with pytest.raises(DuplicateVerdictError, match="with another rationale, source; give it a new id"):
        s.add([two])
    assert s.get(FIXTURE[1]["id"]).rationale == FIXTURE[1]["rationale"] and s.count() == 3


def test_store_sizes_and_exists(tmp_path):
    from assay.verdicts import store_sizes

    url = _url(tmp_path)
    assert store_sizes(url) == {}
    VerdictStore(url, name="b").add(FIXTURE[:2])
    VerdictStore(url, name="a").add(FIXTURE[:1])
    assert store_sizes(url) == {"a": 1, "b": 2}
    assert VerdictStore(url, name="a").exists() and not VerdictStore(url, name="typo").exists()


def test_a_bad_line_in_a_file_inserts_nothing_and_names_every_bad_line(tmp_path):
    import json

    p = tmp_path / "verdicts.jsonl"
    lines = [json.dumps(v) for v in FIXTURE[:4]]
    lines[1] = lines[1].replace('"FOOD-CATER", "FOOD-VEND"]', '"FOOD-CATER", 7]')
    lines.insert(3, "{not json")
    p.write_text("\n".join(lines) + "\n")
    s = VerdictStore(_url(tmp_path))
    with pytest.raises(VerdictFileError) as e:
        s.add_file(p)
    msg = str(e.value)
    assert f"{p}:2: fields.cost_codes[1]: expected a string" in msg
    assert re.search(rf"{re.escape(str(p))}:4: <json>: ", msg)
    assert s.count() == 0


def test_stores_are_named_and_their_spec_is_fixed_at_creation(tmp_path):
    url = _url(tmp_path)
    spec = load_spec(
        {"fields": {"cost_codes": {"kind": "set", "weight": 0.5}, "measure_type": {"kind": "category", "weight": 0.5}}}
    )
    other = VerdictStore(url, name="two-field", spec=spec)
    other.add([{**FIXTURE[6], "fields": {k: FIXTURE[6]["fields"][k] for k in ("cost_codes", "measure_type")}}])
    VerdictStore(url).add(FIXTURE[:3])
    assert VerdictStore(url, name="two-field").spec == spec  # stored with the store
    assert VerdictStore(url, name="two-field").count() == 1 and VerdictStore(url).count() == 3
    with pytest.raises(SpecError, match="store 'two-field' was created with another spec"):
        VerdictStore(
            url, name="two-field", spec=SimilaritySpec(fields={"cost_codes": FieldSpec(kind="set", weight=1.0)})
        )
    hits = VerdictStore(url, name="two-field").retrieve({"fields": {"cost_codes": ["FAC-HVAC"]}}, k=3)
    assert hits[0].components == {"cost_codes": 1 / 3, "measure_type": 0.0}


def test_stats_are_aggregate(tmp_path):
    s = VerdictStore(_url(tmp_path))
    s.add([dict(FIXTURE[0], created_at="2023-01-01", source="q1"), *FIXTURE[1:]])
    st = s.stats()
    assert st["n"] == len(FIXTURE)
    assert st["decisions"] == {"approve": 11, "reject": 3}
    assert st["sources"] == {"(none)": 13, "q1": 1}
    assert st["created_at"] == {"min": "2023-01-01T00:00:00+00:00", "max": "2023-01-01T00:00:00+00:00"}
    assert st["fields"]["cost_codes"]["distinct"] == 17 and st["fields"]["cost_codes"]["max_items"] == 4
    assert st["fields"]["measure_type"]["counts"]["renegotiation"] == 5
    assert st["fields"]["claimed_saving"]["counts"] == {
        "[1e2, 1e3)": 1,
        "[1e3, 1e4)": 2,
        "[1e4, 1e5)": 7,
        "[1e5, 1e6)": 3,
        "[1e6, 1e7)": 1,
    }
    assert not any(v["id"] in repr(st) for v in FIXTURE)


# --- hybrid score with an embedding term --------------------------------------------------


class HashingEmbedder:
    """Test double: a deterministic bag-of-words embedder (token → SHA-256 bucket of 64 dims)."""

    def __init__(self, model="hash-64"):
        self.model = model
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for tok in re.findall(r"[a-z0-9]+", t.lower()):
                out[i, hashlib.sha256(tok.encode()).digest()[0] % 64] += 1.0
        return out


HYBRID = {
    "fields": {
        "cost_codes": {"kind": "set", "weight": 0.5},
        "measure_type": {"kind": "category", "weight": 0.2},
        "claimed_saving": {"kind": "bucket", "weight": 0.1},
    },
    "embedding": {"weight": 0.2},
}


def test_hybrid_score_adds_the_embedding_term(tmp_path):
    s = VerdictStore(_url(tmp_path), spec=load_spec(HYBRID), embedder=HashingEmbedder())
    s.add(FIXTURE)
    hits = {h.verdict.id: h for h in s.retrieve(QUERY, k=20)}
    decoy = hits["v-02-catering"]  # same wording, no shared structure: only the embedding term scores
    assert decoy.components["cost_codes"] == 0 and decoy.components["embedding"] > 0.8
    assert decoy.score == pytest.approx(0.2 * decoy.components["embedding"], rel=1e-6)
    best = s.retrieve(QUERY, k=1)[0]
    assert best.verdict.id == TRUE_MATCH  # structure (weight 0.8) still dominates
    assert set(best.components) == {"cost_codes", "measure_type", "claimed_saving", "embedding"}


def test_embeddings_of_another_model_are_recomputed_and_saved(tmp_path):
    spec = load_spec(HYBRID)
    VerdictStore(_url(tmp_path), spec=spec, embedder=HashingEmbedder("old")).add(FIXTURE)
    fresh = HashingEmbedder("new")
    s = VerdictStore(_url(tmp_path), embedder=fresh)
    s.retrieve(QUERY, k=3)
    with s.engine.connect() as conn:
        models = set(conn.execute(select(verdicts_table.c.embedding_model)).scalars())
    assert models == {"new"}
    calls = fresh.calls
    VerdictStore(_url(tmp_path), embedder=fresh).retrieve(QUERY, k=3)
    assert fresh.calls == calls + 1  # only the query is embedded now


def test_embedding_spec_without_an_embedder_is_a_clear_error(tmp_path):
    s = VerdictStore(_url(tmp_path), spec=load_spec(HYBRID))
    with pytest.raises(ValueError, match="pass an embedder"):
        s.add(FIXTURE[:1])
    assert s.stats()["n"] == 0


_WRITER = """
import sys
from assay.verdicts import VerdictStore
url, tag = sys.argv[1], sys.argv[2]
s = VerdictStore(url)
for batch in range(10):
    s.add([{"id": f"{tag}-{batch}-{i}",
            "fields": {"cost_codes": [f"C{i % 7}"], "measure_type": tag, "claimed_saving": 10.0 ** (i % 5)},
            "decision": "approve", "rationale": "r", "description": "d"} for i in range(20)])
    s.retrieve({"fields": {"cost_codes": ["C1"]}}, k=3)
"""


def test_two_processes_adding_to_one_new_store_at_once(tmp_path):
    import subprocess
    import sys

    url = _url(tmp_path, "shared.db")
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, url, tag], stderr=subprocess.PIPE, text=True)
        for tag in ("a", "b")
    ]
    errs = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    s = VerdictStore(url)
    assert s.count() == 400
    st = s.stats()
    assert st["fields"]["measure_type"]["counts"] == {"a": 200, "b": 200}
    hits = s.retrieve({"fields": {"cost_codes": ["C1"], "measure_type": "a", "claimed_saving": 10}}, k=400)
    assert len(hits) == 400 and hits[0].verdict.id == "a-0-1"


def test_the_readme_verdict_example_is_a_valid_verdict(tmp_path):
    """README "Remember" documents the verdict fields with an example: it must load as written."""
    import re
    from pathlib import Path

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = re.search(r'```json\n(\{"id": "v-01-led".*?)```', readme, re.S)
    assert block, "README lacks the verdict example"
    s = VerdictStore(_url(tmp_path))
    (tmp_path / "v.jsonl").write_text(" ".join(block.group(1).split()) + "\n", encoding="utf-8")
    assert s.add_file(tmp_path / "v.jsonl") == 1
    v = s.get("v-01-led")
    assert v.fields["claimed_saving"] == 120000 and v.source == "capex-board" and v.created_at.year == 2024
