"""The OpenAI-compatible client: any endpoint that speaks ``/v1/chat/completions`` (OpenAI,
llama.cpp server, vLLM, Ollama, LM Studio …), through the ``openai`` package.

Per request: ``response_format`` of type ``json_schema`` (strict); when the endpoint rejects it
(HTTP 400/422/501 on the first structured request), the client switches to ``json_object`` for
the rest of its life and validates answers against the same schema itself. A malformed or
schema-invalid answer is re-asked once, stating the problem; a second bad answer is an
:class:`~anchorpath._errors.LLMError`. Temperature 0 by default, a timeout per request, and
bounded retries on 429/5xx/timeouts with exponential backoff that honours ``Retry-After``.

The API key is read from the environment here and only handed to the ``openai`` client: it is
never logged, cached, printed, written or put in an error message.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from anchorpath._config import LLMConfig
from anchorpath._errors import ConfigError, LLMError
from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest, schema_problems
from anchorpath.authoring.llm.templates import load_template

__all__ = [
    "API_KEY_ENV",
    "SCHEMA_NOTE",
    "OpenAIClient",
    "endpoint_host",
    "parse_json_answer",
    "unreachable_hint",
]

#: Checked before the variable named by ``[llm] api_key_env`` (default ``OPENAI_API_KEY``).
API_KEY_ENV = "ANCHORPATH_LLM_API_KEY"
_STRUCTURED = ("auto", "json_schema", "json_object")
#: Introduces the JSON Schema in the system message when structured outputs are unavailable.
SCHEMA_NOTE = "Answer in JSON matching this JSON Schema:"
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def endpoint_host(base_url: str) -> str:
    """``host[:port]`` of an endpoint URL (no scheme, path or credentials)."""
    parts = urlsplit(base_url)
    host = parts.hostname or base_url
    return f"{host}:{parts.port}" if parts.port else host


def unreachable_hint(base_url: str) -> str:
    """What to do when the endpoint at ``base_url`` cannot be reached: where the URL comes
    from (the default, when nothing set one), how to set it, and the way that needs no model."""
    where = (
        f"{base_url} is the default [llm] base_url (nothing configured one)"
        if base_url == LLMConfig.base_url
        else f"is an OpenAI-compatible server running at {base_url}?"
    )
    return (
        f"{where}: set the endpoint with ANCHORPATH_LLM_BASE_URL=http://HOST:PORT/v1 or "
        "base_url in the [llm] table of anchorpath.toml, and try it with `anchorpath llm "
        "check`; authoring from example values (--examples EX.json) needs no model"
    )


def parse_json_answer(text: str | None) -> tuple[Any, str | None]:
    """``(data, None)`` or ``(None, problem)``; tolerates a Markdown code fence around it."""
    if not text or not text.strip():
        return None, "the answer was empty"
    m = _FENCE.match(text)
    body = m.group(1) if m else text
    try:
        return json.loads(body), None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return None, f"the answer is not valid JSON ({exc.msg} at {where})"


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        when = email.utils.parsedate_to_datetime(raw) if raw else None
        return max(0.0, when.timestamp() - time.time()) if when else None


class OpenAIClient:
    """:class:`~anchorpath.authoring.llm.client.LLMClient` over the ``openai`` package."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        env: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import openai

        if config.structured not in _STRUCTURED:
            raise ConfigError(
                f"llm.structured: {config.structured!r} is not one of {', '.join(_STRUCTURED)}"
            )
        if not config.base_url.startswith(("http://", "https://")):
            raise ConfigError(f"llm.base_url: {config.base_url!r} is not an http(s) URL")
        env = os.environ if env is None else env
        key = env.get(API_KEY_ENV) or env.get(config.api_key_env) or ""
        self._secret = key
        self._config = config
        self._sleep = sleep
        self._mode = "json_object" if config.structured == "json_object" else "json_schema"
        self._openai = openai
        # Local servers need no key, but the package insists on one: a placeholder, not a secret.
        self._client = openai.OpenAI(
            api_key=key or "no-key",
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=0,  # retries are ours: bounded, logged, Retry-After honoured
        )

    # -- LLMClient --------------------------------------------------------------------------

    @property
    def model(self) -> str:
        return self._config.model

    @property
    def endpoint(self) -> str:
        return endpoint_host(self._config.base_url)

    @property
    def temperature(self) -> float:
        return self._config.temperature

    @property
    def top_p(self) -> float:
        return self._config.top_p

    @property
    def mode(self) -> str:
        """``json_schema`` until the endpoint rejected it, then ``json_object``."""
        return self._mode

    def close(self) -> None:
        self._client.close()

    def complete(self, request: ChatRequest) -> ChatAnswer:
        t0 = time.perf_counter()
        messages: list[dict[str, str]] = [
            {"role": m.role, "content": m.content} for m in request.messages
        ]
        attempts = 0
        usage = [0, 0]
        model = self._config.model
        problem: str | None = None
        for ask in range(2):  # the answer, and one re-ask when it is malformed
            text, model, n = self._send(request, messages, usage)
            attempts += n
            data, problem = parse_json_answer(text)
            if problem is None:
                problems = schema_problems(data, request.schema)
                if not problems:
                    return ChatAnswer(
                        data,
                        model,
                        usage[0],
                        usage[1],
                        round(time.perf_counter() - t0, 4),
                        attempts,
                        self._mode,
                    )
                problem = "the answer does not match the schema: " + "; ".join(problems)
            if ask == 0:
                retry = load_template("retry").render(problems=f"- {problem}")
                messages += [
                    {"role": "assistant", "content": text or ""},
                    {"role": "user", "content": retry},
                ]
        raise LLMError(
            f"{self.endpoint}: {request.schema_name}: no valid answer after one re-ask: {problem}"
        )

    # -- transport --------------------------------------------------------------------------

    def _response_format(self, request: ChatRequest) -> dict[str, Any]:
        if self._mode == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "schema": dict(request.schema),
                "strict": True,
            },
        }

    def _with_schema(self, request: ChatRequest, messages: list[dict[str, str]]) -> Any:
        """In json_object mode the schema travels in the system message (and the word JSON with
        it); chat templates that want the system message first (llama.cpp's) keep it first."""
        if self._mode != "json_object":
            return messages
        note = f"{SCHEMA_NOTE}\n{request.schema_json()}"
        if messages and messages[0]["role"] == "system":
            first = {"role": "system", "content": f"{messages[0]['content']}\n\n{note}"}
            return [first, *messages[1:]]
        return [{"role": "system", "content": note}, *messages]

    def _send(
        self, request: ChatRequest, messages: list[dict[str, str]], usage: list[int]
    ) -> tuple[str | None, str, int]:
        """One answer's text, the model that answered, and the HTTP requests it took."""
        cfg = self._config
        attempts = 0
        delay = 0.5
        while True:
            attempts += 1
            try:
                create: Any = self._client.chat.completions.with_raw_response.create
                raw = create(
                    model=cfg.model,
                    messages=self._with_schema(request, messages),
                    temperature=cfg.temperature,
                    top_p=cfg.top_p,
                    max_tokens=cfg.max_tokens,
                    response_format=self._response_format(request),
                )
                completion = raw.parse()
            except self._openai.APIStatusError as exc:
                status = exc.status_code
                if (
                    status in (400, 422, 501)
                    and self._mode == "json_schema"
                    and cfg.structured == "auto"
                ):
                    self._mode = "json_object"  # the endpoint rejects json_schema: fall back
                    continue
                if (status == 429 or status >= 500) and attempts <= cfg.max_retries:
                    wait = _retry_after(exc.response.headers)
                    self._sleep(min(cfg.retry_cap, wait if wait is not None else delay))
                    delay = min(cfg.retry_cap, delay * 2)
                    continue
                raise LLMError(
                    f"{self.endpoint}: HTTP {status} from the LLM endpoint"
                    f" after {attempts} attempt(s): {self._scrub(str(exc.message))[:300]}"
                ) from None
            except (self._openai.APITimeoutError, self._openai.APIConnectionError) as exc:
                kind = (
                    "timed out"
                    if isinstance(exc, self._openai.APITimeoutError)
                    else "cannot connect"
                )
                if attempts <= cfg.max_retries:
                    self._sleep(delay)
                    delay = min(cfg.retry_cap, delay * 2)
                    continue
                raise LLMError(
                    f"{self.endpoint}: LLM endpoint {kind} after {attempts} attempt(s)"
                    f" (timeout {cfg.timeout:g}s); {unreachable_hint(cfg.base_url)}"
                ) from None
            except self._openai.OpenAIError as exc:
                raise LLMError(
                    f"{self.endpoint}: LLM request failed: {self._scrub(str(exc))[:300]}"
                ) from None
            if completion.usage is not None:
                usage[0] += completion.usage.prompt_tokens or 0
                usage[1] += completion.usage.completion_tokens or 0
            if not completion.choices:
                return None, completion.model or cfg.model, attempts
            content = completion.choices[0].message.content
            return content, completion.model or cfg.model, attempts

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text
