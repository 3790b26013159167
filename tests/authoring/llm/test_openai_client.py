"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 that misbehaves."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest

from anchorpath._config import LLMConfig
from anchorpath._errors import ConfigError, LLMError
from anchorpath.authoring.llm.client import ChatRequest, Message
from anchorpath.authoring.llm.openai_client import (
    MAX_ERROR_BYTES,
    MAX_RESPONSE_BYTES,
    OpenAIClient,
    _BoundedStream,
    _TooLarge,
    endpoint_host,
    parse_json_answer,
)
from anchorpath.authoring.llm.propose import value_schema
from anchorpath.authoring.llm.testing import ESCAPES_MESSAGE, FakeOpenAIServer

REQ = ChatRequest(
    (Message("system", "sys"), Message("user", "<page>\nTitle: Dune\n</page>")),
    value_schema(["title"]),
    "field_values",
)


def _client(srv: FakeOpenAIServer, sleeps: list[float] | None = None, **kw: Any) -> OpenAIClient:
    cfg = LLMConfig(base_url=srv.base_url, model="m", timeout=kw.pop("timeout", 5.0), **kw)
    return OpenAIClient(
        cfg, env={}, sleep=(sleeps.append if sleeps is not None else lambda s: None)
    )


def test_json_schema_request_shape() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        ans = _client(srv).complete(REQ)
    assert ans.data == {"title": "Dune"} and ans.mode == "json_schema"
    body = srv.requests[0]
    assert body["temperature"] == 0.0 and body["model"] == "m"
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert list(fmt["json_schema"]["schema"]["properties"]) == ["title"]
    assert ans.prompt_tokens > 0 and ans.completion_tokens > 0


def test_falls_back_to_json_object_when_json_schema_is_rejected() -> None:
    with FakeOpenAIServer([{"title": "Dune"}], reject_json_schema=True) as srv:
        client = _client(srv)
        ans = client.complete(REQ)
        assert ans.data == {"title": "Dune"} and ans.mode == "json_object"
        client.complete(REQ)  # remembered: no second rejected request
    kinds = [b["response_format"]["type"] for b in srv.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]
    sent = srv.requests[1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]  # the system message stays first
    assert sent[0]["content"].startswith("sys\n\nAnswer in JSON matching this JSON Schema:")


def test_malformed_answer_is_reasked_once() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("malformed")
        ans = _client(srv).complete(REQ)
    assert ans.data == {"title": "Dune"} and ans.attempts == 2
    reask = srv.requests[1]["messages"]
    assert reask[-2]["role"] == "assistant" and "not valid JSON" in reask[-1]["content"]


def test_off_schema_twice_is_an_error() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("off_schema", "off_schema")
        with pytest.raises(LLMError, match="does not match the schema"):
            _client(srv).complete(REQ)
    assert len(srv.requests) == 2


def test_429_honours_retry_after_then_succeeds() -> None:
    sleeps: list[float] = []
    with FakeOpenAIServer([{"title": "Dune"}], retry_after=7) as srv:
        srv.misbehave("429", "500")
        ans = _client(srv, sleeps, max_retries=2).complete(REQ)
    assert ans.data == {"title": "Dune"} and ans.attempts == 3
    assert sleeps[0] == 7.0 and len(sleeps) == 2


def test_retries_are_bounded() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("500", "500", "500")
        with pytest.raises(LLMError, match=r"HTTP 500 .* after 2 attempt"):
            _client(srv, max_retries=1).complete(REQ)


def test_timeout_is_retried_then_reported() -> None:
    with FakeOpenAIServer([{"title": "Dune"}], hang=1.5) as srv:
        srv.misbehave("timeout", "timeout")
        with pytest.raises(LLMError, match="timed out after 2 attempt"):
            _client(srv, timeout=0.3, max_retries=1).complete(REQ)


def test_api_key_is_sent_but_never_in_errors(capsys: pytest.CaptureFixture[str]) -> None:
    secret = "sk-test-SECRET-123"
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("500")
        cfg = LLMConfig(base_url=srv.base_url, max_retries=0)
        client = OpenAIClient(cfg, env={"ANCHORPATH_LLM_API_KEY": secret})
        with pytest.raises(LLMError) as err:
            client.complete(REQ)
    assert srv.request_headers[0]["authorization"] == f"Bearer {secret}"
    assert secret not in str(err.value)
    assert secret not in repr(client.__dict__.get("_config"))


def test_api_key_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-test-SECRET-123"
    caplog.set_level(logging.DEBUG)  # openai, httpx and httpcore at their most talkative
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("500", "escapes")
        cfg = LLMConfig(base_url=srv.base_url, max_retries=1)
        client = OpenAIClient(cfg, env={"ANCHORPATH_LLM_API_KEY": secret}, sleep=lambda s: None)
        with pytest.raises(LLMError):
            client.complete(REQ)
    assert {r.name.split(".")[0] for r in caplog.records} >= {"openai", "httpcore"}
    assert srv.request_headers[0]["authorization"] == f"Bearer {secret}"
    assert secret not in caplog.text


def test_the_openai_package_sends_the_request() -> None:
    import openai

    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        client = _client(srv, max_retries=0)
        client.complete(REQ)
        client.close()
    sent = srv.request_headers[0]
    assert sent["user-agent"] == f"OpenAI/Python {openai.__version__}"
    assert sent["x-stainless-lang"] == "python" and sent["x-stainless-retry-count"] == "0"


def test_a_redirect_is_not_followed() -> None:
    secret = "sk-test-SECRET-123"
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("redirect")
        cfg = LLMConfig(base_url=srv.base_url, max_retries=0)
        with pytest.raises(LLMError, match=r"HTTP 307 .*: \"moved\"; redirects are not followed"):
            OpenAIClient(cfg, env={"ANCHORPATH_LLM_API_KEY": secret}).complete(REQ)
    assert len(srv.requests) == 1  # the moved route, which would answer, never saw the key


def test_bad_settings_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match=r"llm\.structured"):
        OpenAIClient(LLMConfig(structured="xml"), env={})
    with pytest.raises(ConfigError, match=r"llm\.base_url"):
        OpenAIClient(LLMConfig(base_url="localhost:8080"), env={})


def test_unreachable_endpoint() -> None:
    cfg = LLMConfig(base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2)
    with pytest.raises(LLMError, match="cannot connect"):
        OpenAIClient(cfg, env={}).complete(REQ)


def test_helpers() -> None:
    assert endpoint_host("http://user:pw@127.0.0.1:8080/v1") == "127.0.0.1:8080"
    assert parse_json_answer('```json\n{"a": 1}\n```') == ({"a": 1}, None)
    assert parse_json_answer("")[1] == "the answer was empty"


# -- the wire is not trusted (issue 25) --------------------------------------------------------


@pytest.mark.parametrize(
    ("trick", "why"),
    [
        ("truncated", "the body is not a JSON chat completion"),
        ("html", "the body is not a JSON chat completion"),
        ("binary", "the body is not UTF-8 text"),
        ("wrong_shape", "the body has no list of choices"),
    ],
)
def test_an_unexpected_200_body_is_one_line_naming_host_and_status(trick: str, why: str) -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave(trick)
        host = endpoint_host(srv.base_url)
        with pytest.raises(LLMError) as err:
            _client(srv).complete(REQ)
    msg = str(err.value)
    assert msg.startswith(f"{host}: HTTP 200 from the LLM endpoint, but {why}: ")
    assert "\n" not in msg and len(msg) < 300
    assert all(ch.isprintable() for ch in msg)


def test_a_dripping_body_is_cut_at_the_request_deadline() -> None:
    # One byte every 0.2 s of a 10 KB body would take ~35 minutes; the deadline is 1.5 s.
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("drip")
        t0 = time.monotonic()
        with pytest.raises(LLMError, match=r"timed out after 1 attempt\(s\) \(timeout 1.5s"):
            _client(srv, timeout=1.5, max_retries=0).complete(REQ)
    assert time.monotonic() - t0 < 4


def test_a_body_past_the_cap_is_refused() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("huge")
        with pytest.raises(LLMError, match=r"answer larger than 4194304 bytes \(the cap\)"):
            _client(srv).complete(REQ)


def test_an_error_body_is_shown_escaped_and_short() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("escapes")
        with pytest.raises(LLMError) as err:
            _client(srv, max_retries=0).complete(REQ)
    msg = str(err.value)
    assert ESCAPES_MESSAGE not in msg and "\x1b" not in msg and "\x07" not in msg
    assert "\n" not in msg
    assert '"\\x1b]0;pwned\\x07\\x07\\nwrote /etc/cron.d/x\\n\\x1b[2J"' in msg


def test_headers_dripping_in_are_cut_at_the_request_deadline() -> None:
    with FakeOpenAIServer([{"title": "Dune"}]) as srv:
        srv.misbehave("slow_headers")
        client = _client(srv, timeout=1.5, max_retries=0)
        t0 = time.monotonic()
        with pytest.raises(LLMError, match=r"timed out after 1 attempt"):
            client.complete(REQ)
        assert time.monotonic() - t0 < 3
        assert client.complete(REQ).data == {"title": "Dune"}  # the next request is served
        client.close()


class _Body:
    """An endless body in 64 KiB chunks, counting what was read."""

    def __init__(self) -> None:
        self.read = 0
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        while True:
            self.read += 1 << 16
            yield b"x" * (1 << 16)

    def close(self) -> None:
        self.closed = True


def test_the_transport_cuts_an_error_body_and_refuses_an_answer_past_the_cap() -> None:
    # openai reads a body whole (an error body too); the transport's stream is what bounds it
    err = _Body()
    got = b"".join(_BoundedStream(err, 500, time.monotonic() + 60))
    assert len(got) == MAX_ERROR_BYTES and err.read <= MAX_ERROR_BYTES + (1 << 16)
    ok = _Body()
    with pytest.raises(_TooLarge):
        b"".join(_BoundedStream(ok, 200, time.monotonic() + 60))
    assert ok.read <= MAX_RESPONSE_BYTES + (1 << 16)


def test_the_transport_stops_a_body_at_the_deadline() -> None:
    body = _Body()
    with pytest.raises(LLMError, match="timed out"):
        b"".join(_BoundedStream(body, 200, time.monotonic() - 1))
    assert body.read == 1 << 16
