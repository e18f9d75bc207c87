"""assay.results models: chosen by kind and schema, lenient on read, exact on write."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from assay.atomic import dumps_json
from assay.results import (
    AGGREGATE_SCHEMAS,
    LOCAL_SCHEMAS,
    DimensionStats,
    EvalAggregateV1,
    EvalAggregateV2,
    EvalCaseRecord,
    EvalLocalV2,
    RationalityAggregateV1,
    load_aggregate,
    load_local,
)


def _stat(mean: float | None = 0.5) -> dict:
    return {"mean": mean, "std": None, "ci": None, "effective_n": 1 if mean is not None else 0}


def _eval_record(**extra) -> dict:
    return {"id": "q1", "variant": "a", "slice": None, "status": "pass", "scores": {"composite": 1}, **extra}


def test_the_model_is_chosen_by_kind_and_schema():
    assert AGGREGATE_SCHEMAS == LOCAL_SCHEMAS == ("eval/2", "eval/1", "rationality/1")
    assert type(load_aggregate({"schema": 1, "kind": "eval"})) is EvalAggregateV1
    assert type(load_aggregate({"schema": 2, "kind": "eval"})) is EvalAggregateV2
    assert type(load_aggregate({"schema": 1, "kind": "rationality"})) is RationalityAggregateV1
    assert type(load_local({"schema": 2, "kind": "eval", "cases": []})) is EvalLocalV2
    for bad in ({"schema": 3, "kind": "eval"}, {"schema": 1, "kind": "pairwise"}, {"kind": "eval"}, {}):
        with pytest.raises(ValidationError, match="does not match any of the expected tags"):
            load_aggregate(bad)
    with pytest.raises(ValueError):  # ValidationError is a ValueError: the CLI maps it to exit 2
        load_local({"schema": 1, "kind": "faithfulness", "cases": []})


def test_a_model_is_loaded_as_it_is():
    agg = load_aggregate({"schema": 1, "kind": "eval"})
    assert load_aggregate(agg) is agg
    local = load_local({"schema": 1, "kind": "eval", "cases": []})
    assert load_local(local) is local


def test_to_json_gives_back_the_object_read_keys_order_and_numbers_included():
    data = {
        "kind": "rationality",  # out of file order on purpose
        "schema": 1,
        "n": 2,
        "variants": {"all": {"n": 2, "dims": {"planning": _stat(1)}, "future_rate": 0.5}},
        "new_top_level_key": [1, 2.0],
    }
    agg = load_aggregate(data)
    out = agg.to_json()
    assert out == data  # no default the file did not have; unknown keys kept
    assert list(out) == ["schema", "kind", "n", "variants", "new_top_level_key"]  # file order, extras last
    assert dumps_json(out) == dumps_json({k: data[k] for k in ("schema", "kind", "n", "variants", "new_top_level_key")})
    assert out["variants"]["all"]["dims"]["planning"]["mean"] == 1
    assert isinstance(out["variants"]["all"]["dims"]["planning"]["mean"], int)  # 1 stays 1, not 1.0
    assert isinstance(out["new_top_level_key"][1], float)


def test_defaults_fill_in_for_readers_but_are_not_written():
    agg = load_aggregate({"schema": 1, "kind": "eval"})
    assert agg.variants == {} and agg.notes == [] and agg.agreement is None and agg.n is None
    assert agg.to_json() == {"schema": 1, "kind": "eval"}


def test_values_are_typed():
    with pytest.raises(ValidationError, match="mean"):
        DimensionStats.model_validate({"mean": True})  # a bool is not a score
    with pytest.raises(ValidationError, match="mean"):
        DimensionStats.model_validate({"mean": "0.5"})
    with pytest.raises(ValidationError, match="ci"):
        DimensionStats.model_validate({"ci": [0.1, 0.2, 0.3]})
    with pytest.raises(ValidationError, match="status"):
        EvalCaseRecord.model_validate(_eval_record(status="maybe"))
    with pytest.raises(ValidationError, match="effective_n"):
        load_aggregate({"schema": 1, "kind": "eval", "variants": {"a": {"dims": {"x": {"effective_n": 1.5}}}}})


def test_models_are_frozen():
    stat = DimensionStats(mean=0.5)
    with pytest.raises(ValidationError):
        stat.mean = 0.6  # type: ignore[misc]


def test_local_records_keep_the_file_order_of_their_kind():
    local = load_local({"schema": 1, "kind": "eval", "backend": "none", "cases": [_eval_record(label=None)]})
    record = local.to_json()["cases"][0]
    assert list(record) == ["id", "variant", "slice", "status", "scores", "label"]
    assert type(local.cases[0]) is EvalCaseRecord
    rationality = load_local(
        {
            "schema": 1,
            "kind": "rationality",
            "cases": [{"tokens": 0, "status": "scored", "scores": {}, "variant": "all", "id": "t", "model": None}],
        }
    )
    assert list(rationality.to_json()["cases"][0]) == ["id", "variant", "status", "scores", "tokens", "model"]
