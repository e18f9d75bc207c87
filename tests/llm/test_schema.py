"""Strict schemas from the reply models, pinned claim lists, and the response_format forms."""

from __future__ import annotations

import importlib.util

import pytest
from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr

from assay.cases import Case
from assay.judges.faithfulness_prompt import RATIONALE_MAX_CHARS, build_request, reply_schema
from assay.llm import LLMSettings
from assay.llm.schema import RESPONSE_FORMATS, pin_entries, response_format, strict_schema, strip_extensions


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: StrictStr
    ok: StrictBool = False


class _Top(BaseModel):
    items: list[_Item]
    note: StrictStr | None = None


def test_strict_schema_inlines_refs_requires_every_property_and_forbids_extras():
    s = strict_schema(_Top)
    assert "$defs" not in s and "$ref" not in str(s) and "title" not in str(s) and "default" not in str(s)
    assert s["additionalProperties"] is False and s["required"] == ["items", "note"]
    item = s["properties"]["items"]["items"]
    assert item["additionalProperties"] is False and item["required"] == ["id", "ok"]
    assert s["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_recursive_models_are_refused():
    class Node(BaseModel):
        children: list[Node]

    with pytest.raises(ValueError, match="recursive"):
        strict_schema(Node)


def test_pin_entries_fixes_the_ids_and_the_count_without_touching_the_input():
    base = strict_schema(_Top)
    pinned = pin_entries(base, "items", "id", ["c1", "c2", "c3"])
    arr = pinned["properties"]["items"]
    assert arr["minItems"] == arr["maxItems"] == 3 and arr["items"]["properties"]["id"]["enum"] == ["c1", "c2", "c3"]
    assert "minItems" not in base["properties"]["items"]  # a copy
    with pytest.raises(KeyError):
        pin_entries(base, "items", "nope", ["c1"])


def test_the_claims_schema_comes_from_the_reply_model_with_ids_citations_and_bounds():
    case = Case(id="q", answer="Revenue was 5. It grew.", facts=({"id": "F1", "label": "Revenue", "value": 5},))
    request, claims = build_request(case, "m")
    s = request.json_schema
    arr = s["properties"]["claims"]
    assert arr["minItems"] == arr["maxItems"] == len(claims) == 2
    props = arr["items"]["properties"]
    assert props["id"]["enum"] == ["c1", "c2"] and props["citation"]["enum"] == ["F1", None]
    assert props["rationale"]["maxLength"] == RATIONALE_MAX_CHARS
    assert reply_schema(["c1"])["properties"]["claims"]["items"]["properties"]["citation"]["anyOf"]


@pytest.mark.parametrize("mode", RESPONSE_FORMATS)
def test_response_format_forms(mode):
    schema = {"type": "object", "x-stub-items": 2, "properties": {"a": {"type": "string"}}}
    rf = response_format(mode, schema, "verdicts")
    assert "x-stub-items" not in str(strip_extensions(schema))
    expected = {
        "json_object": {"type": "json_object"},
        "json_schema": {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": strip_extensions(schema)}},
        "json_object_schema": {"type": "json_object", "schema": strip_extensions(schema)},
        "none": None,
    }[mode]
    assert rf == expected
    assert response_format("json_object_schema", None, "x") == {"type": "json_object"}
    assert response_format("json_schema", None, "x") is None


def test_unknown_modes_are_refused_in_the_settings_and_the_helper():
    with pytest.raises(ValueError, match="unknown response format"):
        response_format("xml", None, "x")
    with pytest.raises(ValueError, match="ASSAY_LLM_RESPONSE_FORMAT"):
        LLMSettings.from_env({"ASSAY_LLM_RESPONSE_FORMAT": "xml"})
    assert LLMSettings.from_env({"ASSAY_LLM_RESPONSE_FORMAT": "json_object_schema"}).response_format == (
        "json_object_schema"
    )


@pytest.mark.skipif(importlib.util.find_spec("openai") is None, reason="the llm extra (openai) is not installed")
def test_the_wire_carries_the_schema_in_json_object_form_and_the_verdict_is_scored():
    from assay.judges.faithfulness import make_faithfulness_judge
    from llm_fault_server import FaultServer

    case = Case(id="q1", answer="Revenue was $5 billion. It grew 10%.", sources=("Revenue was $5bn, up 10%.",))
    with FaultServer() as srv:
        settings = LLMSettings(base_url=srv.base_url, judge_model="ok", response_format="json_object_schema")
        judge = make_faithfulness_judge("openai_compatible", settings=settings, token_budget=None)
        judge.client.cache = None
        v = judge.judge(case)
        body = srv.requests[-1]
    assert v.status == "scored"
    rf = body["response_format"]
    assert rf["type"] == "json_object" and "x-stub" not in str(rf)
    assert rf["schema"]["properties"]["claims"]["maxItems"] == 2
