"""The MCP server, exercised with the official SDK's own client (in process, and over stdio)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

if os.environ.get("CI") != "true":  # under CI its extra is installed and its absence must fail
    pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from assay.server.mcp_server import build_mcp  # noqa: E402


def _payload(result) -> dict:
    if getattr(result, "structured_content", None):
        return dict(result.structured_content)
    return json.loads(result.content[0].text)


def test_search_add_and_grade_tools_through_the_sdk_client(service, store):
    async def go():
        async with Client(build_mcp(service)) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert names == {"memory_search", "memory_add", "memory_grade"}
            added = _payload(await c.call_tool("memory_add", {"texts": ["The user's dog is called Rex."]}))
            assert len(added["added"]) == 1
            found = _payload(await c.call_tool("memory_search", {"context": "what is the dog called?", "k": 3}))
            assert found["hits"][0]["text"] == "The user's dog is called Rex."
            mid = found["hits"][0]["memory_id"]
            graded = _payload(
                await c.call_tool("memory_grade", {"search_id": found["search_id"], "grades": f"{mid}:3"})
            )
            assert graded["applied"] == 1

    asyncio.run(go())


@pytest.mark.slow
def test_assay_mcp_over_stdio(tmp_path):
    from mcp.client.stdio import StdioServerParameters

    src = str(Path(__file__).resolve().parents[2] / "src")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.cli", "--db", f"sqlite:///{tmp_path / 'm.db'}", "mcp", "--embedder", "hashing"],
        env={**os.environ, "PYTHONPATH": src, "ASSAY_HOME": str(tmp_path)},
    )

    async def go():
        async with Client(params) as c:
            await c.call_tool("memory_add", {"texts": ["Project Falcon ships on 12 March."]})
            found = _payload(await c.call_tool("memory_search", {"context": "when does Falcon ship?"}))
            assert found["hits"][0]["text"] == "Project Falcon ships on 12 March."

    asyncio.run(go())


def _error_line(result) -> str:
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text, text  # one readable line, not a pydantic dump
    return text


@pytest.mark.parametrize(
    ("tool", "args", "reason"),
    [
        ("memory_search", {"context": "dog", "k": 0}, ": k"),
        ("memory_search", {"context": "dog", "k": 5000}, ": k"),
        ("memory_search", {"context": "dog", "k": "five"}, ": k"),
        ("memory_search", {"context": ""}, "context: "),
        ("memory_search", {"context": "   "}, "blank context"),  # cleans to nothing: the service's reason
        ("memory_search", {"context": "dog", "scope": "s" * 201}, "scope: "),
        ("memory_add", {"texts": []}, "texts: "),
        ("memory_add", {"texts": [""]}, "text"),
        ("memory_grade", {"search_id": "nope", "grades": "m1:3"}, "nope"),  # unknown search id
    ],
)
def test_a_bad_tool_call_says_why_in_one_line(service, tool, args, reason):
    """Audit: a bad call answered 'Error executing tool memory_search' and nothing else (the
    service's ValueError was hidden as a crash) or a multi-line pydantic dump."""

    async def go():
        async with Client(build_mcp(service)) as c:
            return _error_line(await c.call_tool(tool, args))

    line = asyncio.run(go())
    assert line.startswith(f"Error executing tool {tool}: ") and reason in line, line
    assert len(line) < 300


def test_mcp_and_http_share_one_k_bound(service, client):
    """Audit: MCP accepted k up to the store's 1,000 while HTTP stopped at 100."""
    bound = 100
    client.post("/v1/memories", json={"memories": [{"text": "The user's dog is called Rex."}]})
    assert client.post("/v1/search", json={"context": "dog", "k": bound}).status_code == 200
    assert client.post("/v1/search", json={"context": "dog", "k": bound + 1}).status_code == 422

    async def go():
        async with Client(build_mcp(service)) as c:
            ok = await c.call_tool("memory_search", {"context": "dog", "k": bound})
            over = await c.call_tool("memory_search", {"context": "dog", "k": bound + 1})
            schema = next(t for t in (await c.list_tools()).tools if t.name == "memory_search").input_schema
            return ok, over, schema

    ok, over, schema = asyncio.run(go())
    assert not ok.is_error and over.is_error and "k: " in over.content[0].text
    assert schema["properties"]["k"]["maximum"] == bound  # the client sees the bound too

    from assay.server.config import MAX_SEARCH_K, ServerSettings

    assert MAX_SEARCH_K == bound  # defined once, in server/config.py
    with pytest.raises(ValueError, match="MAX_SEARCH_K"):
        ServerSettings(hook_k=bound + 1)
