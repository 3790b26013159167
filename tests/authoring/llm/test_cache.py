"""The response cache and the per-site ledger."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anchorpath.authoring.llm import CachedClient, ChatRequest, FakeClient, Ledger, Message
from anchorpath.authoring.llm.cache import cache_key
from anchorpath.authoring.llm.propose import value_schema

REQ = ChatRequest((Message("user", "<page>x</page>"),), value_schema(["a"]), "field_values")


def _fake(**kw: Any) -> FakeClient:
    return FakeClient(lambda req: {"a": "x"}, **kw)


def test_second_ask_is_a_hit_with_no_call(tmp_path: Path) -> None:
    ledger_file = tmp_path / "ledger" / "site.jsonl"
    inner = _fake()
    ledger = Ledger(ledger_file, site="site", price_input=1.0, price_output=2.0)
    client = CachedClient(inner, tmp_path / "cache", ledger)
    assert client.complete(REQ).data == {"a": "x"}
    again = CachedClient(_fake(), tmp_path / "cache", Ledger(ledger_file, site="site"))
    hit = again.complete(REQ)
    assert hit.cached and hit.data == {"a": "x"}
    assert len(inner.requests) == 1 and again.ledger.totals.calls == 0
    lines = [json.loads(x) for x in ledger_file.read_text().splitlines()]
    assert [x["event"] for x in lines] == ["call", "hit"]
    call = lines[0]
    assert call["prompt_tokens"] > 0 and call["completion_tokens"] == 16
    expected = (call["prompt_tokens"] * 1.0 + 16 * 2.0) / 1e6
    assert abs(call["cost_usd"] - round(expected, 6)) < 1e-9
    assert set(call) >= {"ts", "site", "purpose", "model", "endpoint", "latency_s", "attempts"}
    client.close()
    again.close()


def test_key_covers_prompt_schema_model_and_sampling() -> None:
    base = cache_key(REQ, "m", 0.0, 1.0)
    other = ChatRequest((Message("user", "<page>y</page>"),), REQ.schema, "field_values")
    assert cache_key(other, "m", 0.0, 1.0) != base
    assert cache_key(REQ, "m2", 0.0, 1.0) != base
    assert cache_key(REQ, "m", 0.2, 1.0) != base
    assert cache_key(REQ, "m", 0.0, 0.9) != base
    wider = ChatRequest(REQ.messages, value_schema(["a", "b"]), "field_values")
    assert cache_key(wider, "m", 0.0, 1.0) != base
    assert cache_key(REQ, "m", 0.0, 1.0) == base


def test_model_change_misses(tmp_path: Path) -> None:
    CachedClient(_fake(model="a"), tmp_path, Ledger(None, site="s")).complete(REQ)
    b = CachedClient(_fake(model="b"), tmp_path, Ledger(None, site="s"))
    assert not b.complete(REQ).cached
