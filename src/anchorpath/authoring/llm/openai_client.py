"""The OpenAI-compatible client: any endpoint that speaks ``/v1/chat/completions`` (OpenAI,
llama.cpp server, vLLM, Ollama, LM Studio …), through the ``openai`` package.

Per request: ``response_format`` of type ``json_schema`` (strict); when the endpoint rejects it
(HTTP 400/422/501 on the first structured request), the client switches to ``json_object`` for
the rest of its life and validates answers against the same schema itself. A malformed or
schema-invalid answer is re-asked once, stating the problem; a second bad answer is an
:class:`~anchorpath._errors.LLMError`. Temperature 0 by default, a timeout per request, and
bounded retries on 429/5xx/timeouts with exponential backoff that honours ``Retry-After``
(ours: the ``openai`` client is built with ``max_retries=0``).

The ``openai`` package builds and sends each request (its headers, auth and errors), but the
wire is not trusted, and the package alone trusts it: its timeouts hold per read and it reads
any body whole. So its ``httpx`` client gets a bounded transport (:class:`_BoundedTransport`):
a body stops with an error past :data:`MAX_RESPONSE_BYTES` (an error body is cut at
:data:`MAX_ERROR_BYTES`) or past the request's total deadline (``[llm] timeout``: an answer
that drips in is cut, whatever the pace), and the exchange runs on a worker thread abandoned
at the deadline (headers dripping in never reach the transport's stream). The body of a
completion is taken raw (``with_raw_response``) and parsed here with the bounded JSON loader:
anything but a chat completion (cut JSON, an HTML error page, binary, another shape) is one
:class:`~anchorpath._errors.LLMError` naming the host and the status with a short escaped
excerpt of the body. ``openai`` errors are translated here the same way; error bodies are
never shown raw (an endpoint's escape sequences or forged lines do not reach the terminal).

The API key is read from the environment here and only handed to the ``openai`` client, whose
``httpx`` client follows no redirects (the key goes to the configured host only): it is never
logged, cached, printed, written or put in an error message.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from anchorpath._config import LLMConfig
from anchorpath._errors import ConfigError, LLMError
from anchorpath._text import excerpt
from anchorpath._untrusted import loads_json
from anchorpath.authoring.llm.client import ChatAnswer, ChatRequest, schema_problems
from anchorpath.authoring.llm.templates import load_template

if TYPE_CHECKING:
    import httpx
    import openai

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
#: Largest chat completion body read (a value answer is a few KiB; ``max_tokens`` bounds an
#: honest one far below this).
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
#: Largest error body read (only its first words are shown).
MAX_ERROR_BYTES = 64 * 1024
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)


def endpoint_host(base_url: str) -> str:
    """``host[:port]`` of an endpoint URL (no scheme, path or credentials)."""
    parts = urlsplit(base_url)
    host = parts.hostname or base_url
    return f"{host}:{parts.port}" if parts.port else host


def unreachable_hint(base_url: str) -> str:
    """What to do when the endpoint at ``base_url`` cannot be reached: where the URL comes
    from (the default, when nothing set one), how to set it, and the way that needs no model."""
    how = (
        "set the endpoint with ANCHORPATH_LLM_BASE_URL=http://HOST:PORT/v1 or base_url in the "
        "[llm] table of anchorpath.toml, and try it with `anchorpath llm check`; authoring from "
        "example values (--examples EX.json) needs no model"
    )
    if base_url == LLMConfig.base_url:
        return f"{base_url} is the default [llm] base_url (nothing configured one): {how}"
    return f"is an OpenAI-compatible server running at {base_url}? Otherwise {how}"


def parse_json_answer(text: str | None) -> tuple[Any, str | None]:
    """``(data, None)`` or ``(None, problem)``; tolerates a Markdown code fence around it."""
    if not text or not text.strip():
        return None, "the answer was empty"
    m = _FENCE.match(text)
    body = m.group(1) if m else text
    try:
        return loads_json(body), None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return None, f"the answer is not valid JSON ({exc.msg} at {where})"
    except ValueError as exc:
        return None, f"the answer is not usable JSON ({exc})"


class _Timeout(LLMError):
    """The request passed its deadline (caught inside: retried, then worded as an
    :class:`LLMError` with the host and the attempts)."""


class _CannotConnect(LLMError):
    """No connection, or it broke off (caught inside, like :class:`_Timeout`)."""


class _TooLarge(LLMError):
    """A completion body past :data:`MAX_RESPONSE_BYTES` (raised from the transport's stream,
    through the ``openai`` client, and worded with the host by :meth:`OpenAIClient._post`)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


class _BoundedStream:
    """A response body that ends in :class:`_TooLarge` past ``limit`` bytes (or, for an error
    body, is cut there) and in :class:`_Timeout` past ``deadline`` (``time.monotonic()``)."""

    def __init__(self, inner: Any, status: int, deadline: float) -> None:
        self._inner = inner
        self._status = status
        self._deadline = deadline

    def __iter__(self) -> Iterator[bytes]:
        ok = 200 <= self._status < 300
        limit = MAX_RESPONSE_BYTES if ok else MAX_ERROR_BYTES
        size = 0
        for chunk in self._inner:
            size += len(chunk)
            if size > limit:
                if ok:
                    raise _TooLarge(self._status)
                yield chunk[: max(0, limit - size + len(chunk))]
                return
            yield chunk
            if time.monotonic() > self._deadline:
                raise _Timeout("timed out")

    def close(self) -> None:
        self._inner.close()


def _bounded_transport(base_url: str, timeout: float) -> httpx.BaseTransport:
    """An ``httpx`` transport whose responses are :class:`_BoundedStream` bodies, the request's
    deadline being ``timeout`` seconds after it was handed over. The proxy the environment
    names for ``base_url`` (``HTTPS_PROXY``, ``NO_PROXY`` …) is kept, as ``httpx`` would."""
    import httpx

    host = urlsplit(base_url).hostname or ""
    scheme = urlsplit(base_url).scheme
    proxy = None
    if host and not urllib.request.proxy_bypass(host):
        proxy = urllib.request.getproxies().get(scheme) or urllib.request.getproxies().get("all")

    class _BoundedTransport(httpx.BaseTransport):
        def __init__(self) -> None:
            self._inner = httpx.HTTPTransport(proxy=proxy)

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            deadline = time.monotonic() + timeout
            resp = self._inner.handle_request(request)
            body = _BoundedStream(resp.stream, resp.status_code, deadline)
            return httpx.Response(
                resp.status_code,
                headers=resp.headers,
                stream=_SyncStream(body),
                extensions=resp.extensions,
            )

        def close(self) -> None:
            self._inner.close()

    class _SyncStream(httpx.SyncByteStream):
        def __init__(self, body: _BoundedStream) -> None:
            self._body = body

        def __iter__(self) -> Iterator[bytes]:
            return iter(self._body)

        def close(self) -> None:
            self._body.close()

    return _BoundedTransport()


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
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())


class OpenAIClient:
    """:class:`~anchorpath.authoring.llm.client.LLMClient` over the ``openai`` package, its wire
    bounded (see the module doc)."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        env: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:

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
        self._openai = self._new_client()

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
        self._openai.close()

    def _new_client(self) -> openai.OpenAI:
        """An ``openai`` client over a bounded transport. Retries are ours (bounded,
        Retry-After honoured); no redirects (the key goes to the configured host only)."""
        import httpx
        import openai

        cfg = self._config
        http = httpx.Client(
            transport=_bounded_transport(cfg.base_url, cfg.timeout),
            follow_redirects=False,
            timeout=cfg.timeout,
        )
        # The installed openai types http_client as its own httpx fork's Client; it takes an
        # httpx.Client too (the package we declare and bound).
        client_arg: Any = http
        return openai.OpenAI(
            base_url=cfg.base_url,
            api_key=self._secret or "no-key",
            max_retries=0,
            timeout=cfg.timeout,
            http_client=client_arg,
        )

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

    def _with_schema(
        self, request: ChatRequest, messages: list[dict[str, str]]
    ) -> list[dict[str, str]]:
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
            payload = {
                "model": cfg.model,
                "messages": self._with_schema(request, messages),
                "temperature": cfg.temperature,
                "top_p": cfg.top_p,
                "max_tokens": cfg.max_tokens,
                "response_format": self._response_format(request),
            }
            try:
                status, headers, body = self._post(payload)
            except (_Timeout, _CannotConnect) as exc:
                if attempts <= cfg.max_retries:
                    self._sleep(delay)
                    delay = min(cfg.retry_cap, delay * 2)
                    continue
                raise LLMError(
                    f"{self.endpoint}: LLM endpoint {exc} after {attempts} attempt(s)"
                    f" (timeout {cfg.timeout:g}s per request); {unreachable_hint(cfg.base_url)}"
                ) from None
            if not 200 <= status < 300:
                if (
                    status in (400, 422, 501)
                    and self._mode == "json_schema"
                    and cfg.structured == "auto"
                ):
                    self._mode = "json_object"  # the endpoint rejects json_schema: fall back
                    continue
                if (status == 429 or status >= 500) and attempts <= cfg.max_retries:
                    wait = _retry_after(headers)
                    self._sleep(min(cfg.retry_cap, wait if wait is not None else delay))
                    delay = min(cfg.retry_cap, delay * 2)
                    continue
                moved = (
                    "; redirects are not followed (the API key goes to the configured base_url"
                    " only): set base_url to the endpoint's own address"
                    if 300 <= status < 400
                    else ""
                )
                raise LLMError(
                    f"{self.endpoint}: HTTP {status} from the LLM endpoint"
                    f" after {attempts} attempt(s): {self._error_text(body)}{moved}"
                )
            content, model, counts = self._completion(status, body)
            usage[0] += counts[0]
            usage[1] += counts[1]
            return content, model or cfg.model, attempts

    def _post(self, payload: dict[str, Any]) -> tuple[int, Mapping[str, str], bytes]:
        """POST ``payload`` to the chat completions route: status, headers and at most
        :data:`MAX_RESPONSE_BYTES` of body, all within ``[llm] timeout`` seconds in total.

        The transport cuts a body that drips in at the deadline, but headers dripping in are
        read below it, a read at a time: the exchange runs on a worker thread, and at the
        deadline it is abandoned and its connections closed (a fresh client serves the next
        request)."""
        deadline = time.monotonic() + self._config.timeout
        client = self._openai
        outcome: list[tuple[int, Mapping[str, str], bytes] | BaseException] = []

        def work() -> None:
            try:
                outcome.append(self._exchange(client, payload))
            except BaseException as exc:  # handed to the caller, or dropped when abandoned
                outcome.append(exc)

        worker = threading.Thread(target=work, name="anchorpath-llm-request", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()) + 0.05)
        if worker.is_alive() or not outcome:
            self._openai = self._new_client()
            client.close()  # the abandoned exchange fails at its next read
            raise _Timeout("timed out")
        found = outcome[0]
        if isinstance(found, BaseException):
            raise found
        return found

    def _exchange(
        self, client: openai.OpenAI, payload: dict[str, Any]
    ) -> tuple[int, Mapping[str, str], bytes]:
        """One request through the ``openai`` client, its body taken raw (parsed by
        :meth:`_completion`); an error status is returned like a success (:meth:`_send`
        decides), and every ``openai`` exception is translated here."""
        import httpx
        import openai

        # The messages and response_format are plain dicts (any endpoint's wire format), not
        # the package's TypedDicts.
        create: Any = client.chat.completions.with_raw_response.create
        try:
            raw = create(**payload)
            return raw.status_code, raw.headers, raw.content
        except _TooLarge as exc:
            raise LLMError(
                f"{self.endpoint}: HTTP {exc.status} from the LLM endpoint: "
                f"answer larger than {MAX_RESPONSE_BYTES} bytes (the cap); refused"
            ) from None
        except openai.APIStatusError as exc:
            return exc.status_code, exc.response.headers, exc.response.content
        except openai.APITimeoutError:
            raise _Timeout("timed out") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__
            if isinstance(cause, httpx.ConnectError):
                raise _CannotConnect("cannot connect") from None
            if isinstance(cause, httpx.RemoteProtocolError | httpx.ReadError):
                raise _CannotConnect("broke off") from None
            why = str(cause) if cause is not None else str(exc)
            raise LLMError(
                f"{self.endpoint}: LLM request failed: {excerpt(self._scrub(why))}"
            ) from None
        except openai.OpenAIError as exc:
            raise LLMError(
                f"{self.endpoint}: LLM request failed: {excerpt(self._scrub(str(exc)))}"
            ) from None

    def _completion(self, status: int, body: bytes) -> tuple[str | None, str | None, list[int]]:
        """The answer text, model and token counts of a chat completion body; any other body
        (cut JSON, an HTML page, binary, another shape) is one :class:`LLMError` with the
        host, the status and a short escaped excerpt."""

        def bad(why: str) -> LLMError:
            return LLMError(
                f"{self.endpoint}: HTTP {status} from the LLM endpoint, but {why}: "
                f"{excerpt(self._scrub(body.decode('utf-8', 'replace')))}"
            )

        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise bad("the body is not UTF-8 text") from None
        try:
            data = loads_json(text)
        except ValueError:
            raise bad("the body is not a JSON chat completion") from None
        if not isinstance(data, dict):
            raise bad("the body is not a JSON object")
        choices = data.get("choices")
        if not isinstance(choices, list):
            raise bad("the body has no list of choices")
        model = data.get("model") if isinstance(data.get("model"), str) else None
        counts = [0, 0]
        if isinstance(data.get("usage"), dict):
            for i, key in enumerate(("prompt_tokens", "completion_tokens")):
                n = data["usage"].get(key)
                counts[i] = n if isinstance(n, int) and n >= 0 else 0
        if not choices:
            return None, model, counts
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(message, dict) or not isinstance(content, str | None):
            raise bad("its first choice has no message text")
        return content, model, counts

    def _error_text(self, body: bytes) -> str:
        """An error body's message (``{"error": {"message": …}}`` or the text), scrubbed of
        the key, escaped and cut short: an endpoint's words never reach a terminal raw."""
        text = body.decode("utf-8", "replace")
        try:
            data = loads_json(body)
        except (ValueError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict):
            err = data.get("error")
            msg = err.get("message") if isinstance(err, dict) else err
            if isinstance(msg, str):
                text = msg
        return excerpt(self._scrub(text), 200)

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text
