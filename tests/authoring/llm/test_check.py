"""``anchorpath llm check`` against the loopback OpenAI-compatible test server, and what an
unreachable endpoint says: that 127.0.0.1:8000 is the default ``base_url``, how to set one,
and that ``--examples`` needs no model."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath._config import LLMConfig
from anchorpath.authoring.llm.check import CHECK_REQUEST, check_endpoint
from anchorpath.authoring.llm.testing import FakeOpenAIServer
from anchorpath.cli import main

SECRET = "sk-check-DO-NOT-LEAK-7"


def _config(srv: FakeOpenAIServer, **over: object) -> LLMConfig:
    return LLMConfig(base_url=srv.base_url, model="qwen-test", **over)  # type: ignore[arg-type]


def test_check_reports_model_structured_outputs_and_latency() -> None:
    with FakeOpenAIServer([{"answer": "ok"}], model="served") as srv:
        found = check_endpoint(_config(srv), env={"ANCHORPATH_LLM_API_KEY": SECRET})
        assert srv.calls() == 1  # one tiny call
        body = srv.requests[0]
    assert found.ok and found.problem is None
    assert found.model == "qwen-test" and found.model_asked == "qwen-test"
    assert found.structured == "json_schema" and "supported" in found.structured_note
    assert found.seconds is not None and 0 <= found.seconds < 5 and found.requests == 1
    assert found.api_key_from == "ANCHORPATH_LLM_API_KEY" and SECRET not in repr(found)
    assert body["response_format"]["json_schema"]["name"] == CHECK_REQUEST.schema_name
    assert body["max_tokens"] > 0


def test_check_without_structured_outputs_falls_back_and_says_so() -> None:
    with FakeOpenAIServer([{"answer": "ok"}], reject_json_schema=True) as srv:
        found = check_endpoint(_config(srv), env={})
    assert found.ok and found.structured == "json_object" and found.requests == 2
    assert "json_schema was rejected" in found.structured_note
    assert 'structured = "json_object"' in found.structured_note
    assert found.api_key_from is None


def test_check_of_a_failing_endpoint_makes_no_retry() -> None:
    with FakeOpenAIServer([{"answer": "ok"}]) as srv:
        srv.misbehave("500", "500")
        found = check_endpoint(_config(srv), env={})
        assert srv.calls() == 1
    assert not found.ok and "HTTP 500" in (found.problem or "")


@pytest.fixture
def free_default_port() -> Iterator[None]:
    """127.0.0.1:8000 (the default endpoint) bound and not listening: connections are
    refused there for the test, whatever else runs on the machine."""
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", 8000))
    except OSError:
        sock.close()
        pytest.skip("127.0.0.1:8000 is in use")
    try:
        yield
    finally:
        sock.close()


def test_cli_check_ok_and_unreachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./anchorpath.toml
    runner = CliRunner()
    with FakeOpenAIServer([{"answer": "ok"}]) as srv:
        res = runner.invoke(main, ["llm", "check"], env=srv.cli_env(tmp_path, api_key=SECRET))
        assert f"endpoint    {srv.base_url}" in res.output
    assert res.exit_code == 0, res.output
    assert "answered    by model truth-1" in res.output
    assert "structured  json_schema: structured outputs supported" in res.output
    assert "latency" in res.output and SECRET not in res.output
    down = runner.invoke(
        main,
        ["llm", "check"],
        env={"ANCHORPATH_CONFIG": "", "ANCHORPATH_LLM_BASE_URL": "http://127.0.0.1:9/v1"},
    )
    assert down.exit_code == 1 and "Traceback" not in down.output
    assert "not usable: 127.0.0.1:9: LLM endpoint cannot connect" in down.output
    assert "is an OpenAI-compatible server running at http://127.0.0.1:9/v1?" in down.output


def test_nothing_configured_names_the_default_and_the_way_without_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free_default_port: None
) -> None:
    monkeypatch.chdir(tmp_path)
    page = "<html><body><h1>{}</h1><p>by Kim</p></body></html>"
    for i in (1, 2):
        (tmp_path / f"{i}.html").write_text(page.format(f"Book {i}"), encoding="utf-8")
    env = {"ANCHORPATH_CONFIG": "", "ANCHORPATH_LLM__MAX_RETRIES": "0"}
    env |= {"ANCHORPATH_CACHE_DIR": str(tmp_path / "cache")}
    for var in ("ANCHORPATH_LLM_BASE_URL", "ANCHORPATH_LLM__BASE_URL", "ANCHORPATH_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    args = ["author", "new-site", "books", "--seed", "1.html", "--seed", "2.html"]
    res = CliRunner().invoke(
        main, [*args, "--seed-url", "http://b.example/1", "--seed-url", "http://b.example/2",
               "--field", "title", "--yes", "--selectors", "sel"], env=env)  # fmt: skip
    assert res.exit_code == 1 and "Traceback" not in res.output
    line = res.output.strip().splitlines()[-1]
    assert "127.0.0.1:8000: LLM endpoint cannot connect" in line
    assert "http://127.0.0.1:8000/v1 is the default [llm] base_url" in line
    assert "ANCHORPATH_LLM_BASE_URL=http://HOST:PORT/v1" in line and "[llm] table" in line
    assert "anchorpath llm check" in line and "--examples EX.json) needs no model" in line
