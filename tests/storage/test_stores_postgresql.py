"""The stores' own test suites, run again on PostgreSQL (issue 10) — no second copy of a test.

- the memo cache: ``tests/cache/test_memo_cache.py`` takes ``db_url`` itself (both backends there);
- verdicts: every test of ``tests/verdicts/test_store.py`` (their ``_url`` helper pointed at a
  fresh PostgreSQL database per name) and every test of ``tests/verdicts/test_verdicts.py`` that uses
  its ``store`` fixture (overridden here with the same content on PostgreSQL);
- the LLM response cache: its store contract on both backends (``tests/llm/test_layer.py``
  covers the ``--cache-dir`` SQLite file, which stays SQLite by design).

A store test that builds its own ``sqlite:///`` URL from ``tmp_path`` is not re-run here; give
it the ``db_url`` fixture (tests/conftest.py) to run it on both backends.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from assay.llm.base import LLMRequest, LLMResponse
from assay.llm.cache import ResponseCache
from assay.verdicts import VerdictStore
from verdict_fixtures import FIXTURE

TESTS = Path(__file__).resolve().parents[1]


def _load(relpath: str):
    """Import a test module of another folder by its path (tests are imported by path, not by name)."""
    spec = importlib.util.spec_from_file_location(f"rerun_{relpath.replace('/', '_')[:-3]}", TESTS / relpath)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_verdicts = _load("verdicts/test_verdicts.py")
_verdicts_store = _load("verdicts/test_store.py")


def _rerun(module, *, needs: str | None = None) -> list[str]:
    """Collect ``module``'s tests here too (those taking fixture ``needs``, or all)."""
    names = []
    for name, fn in vars(module).items():
        if (
            name.startswith("test_")
            and inspect.isfunction(fn)
            and (needs is None or needs in inspect.signature(fn).parameters)
        ):
            globals()[name] = fn
            names.append(name)
    return names


VERDICT_STORE_TESTS = _rerun(_verdicts_store)
VERDICT_TESTS = _rerun(_verdicts, needs="store")
POSTGRESQL_TESTS = VERDICT_STORE_TESTS  # they reach the cluster through _url (see conftest's collection hook)


@pytest.fixture(autouse=True)
def _verdict_store_urls_on_postgresql(request, monkeypatch):
    """For the re-run ``test_verdicts_store`` tests: ``_url(tmp_path, name)`` → one fresh
    PostgreSQL database per name (and a failure if a test no longer asks ``_url``)."""
    if request.function.__name__ not in VERDICT_STORE_TESTS:
        yield
        return
    postgres_cluster, names = request.getfixturevalue("postgres_cluster"), request.getfixturevalue("_pg_database_names")
    made: dict[str, str] = {}

    def url(_tmp_path, name: str = "v.db") -> str:
        if name not in made:
            made[name] = postgres_cluster.create_database(next(names))
        return made[name]

    monkeypatch.setattr(_verdicts_store, "_url", url)
    yield
    assert made, f"{request.function.__name__} did not open its store through _url: it ran on no PostgreSQL database"
    for u in made.values():
        postgres_cluster.drop_database(u.rsplit("/", 1)[1])


@pytest.fixture()
def store(postgresql_url):
    """``test_verdicts.store`` on PostgreSQL: the fixture verdicts in a fresh database."""
    s = VerdictStore(postgresql_url)
    s.add(FIXTURE)
    return s


def test_the_verdict_suites_are_collected_here():
    assert len(VERDICT_STORE_TESTS) >= 5 and len(VERDICT_TESTS) >= 3


# --- the LLM response cache's store contract, on both backends --------------------------------


def _req(text: str, model: str = "m") -> LLMRequest:
    return LLMRequest(
        model=model, messages=({"role": "user", "content": text},), schema_name="verdict", schema_version="2"
    )


def test_response_cache_round_trip_is_shared_by_every_opener(db_url):
    a, b = ResponseCache.open(db_url=db_url), ResponseCache.open(db_url=db_url)  # two processes' view of one store
    reply = LLMResponse(
        text='{"ok": true}', parsed={"ok": True}, prompt_tokens=11, completion_tokens=4, model="m", backend="stub"
    )
    assert a.get("stub", _req("q")) is None and a.misses == 1
    a.put("stub", _req("q"), reply)
    a.put("stub", _req("q"), reply.model_copy(update={"text": "later"}))  # a second writer of the key: first row stays
    got = b.get("stub", _req("q"))
    assert (
        got is not None
        and got.cached
        and got.text == '{"ok": true}'
        and got.parsed == {"ok": True}
        and got.tokens == 15
    )
    assert b.get("stub", _req("q", model="other")) is None and b.get("openai_compatible", _req("q")) is None
    assert len(a) == len(b) == 1
