"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks.

It speaks ``POST /v1/chat/completions`` (and ``GET /v1/models``) like llama.cpp server, vLLM or
Ollama, answers from a script or from ground truth (:class:`TruthModel`), and misbehaves on
purpose when told to: HTTP 429 with ``Retry-After``, 500s, timeouts, malformed JSON, answers
that ignore the schema, and rejecting ``response_format`` of type ``json_schema`` like an
endpoint without structured outputs. :class:`TruthModel` can also be *noisy*: a share of its
answers are hallucinated (invented values) or not verbatim (case changed), deterministically.

Loopback only; nothing here is used outside tests and ``bench/``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from anchorpath.authoring.llm.openai_client import SCHEMA_NOTE
from anchorpath.prune.tokens import estimate_tokens

__all__ = [
    "ESCAPES_MESSAGE",
    "MISBEHAVIOURS",
    "FakeOpenAIServer",
    "TruthModel",
    "prompt_text",
    "requested_fields",
]

#: What :meth:`FakeOpenAIServer.misbehave` can queue.
MISBEHAVIOURS = (
    "429",
    "500",
    "timeout",
    "malformed",
    "off_schema",
    "empty",
    # the wire itself (issue 25): a 200 whose body is not a chat completion, one that drips
    # in a byte at a time, one larger than any answer, an error body with escape sequences,
    # a redirect to another chat completions route (served, if a client followed it)
    "truncated",
    "html",
    "binary",
    "wrong_shape",
    "drip",
    "slow_headers",
    "huge",
    "escapes",
    "redirect",
)
#: What the ``escapes`` error body says: an OSC title, a BEL and a forged line.
ESCAPES_MESSAGE = "\x1b]0;pwned\x07\x07\nwrote /etc/cron.d/x\n\x1b[2J"
_ADDRESS = re.compile(r"^Page .*?, address: (\S+)$", re.MULTILINE)
_WS = re.compile(r"[\s\u00a0\u3000\u200b\ufeff]+")

Answer = Callable[[Mapping[str, Any]], Any]


def prompt_text(body: Mapping[str, Any]) -> str:
    """The last user message of a chat request (the one with the page and the question)."""
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    first = [u for u in users if "<page" in str(u)]
    return str(first[-1] if first else (users[-1] if users else ""))


def _schema(body: Mapping[str, Any]) -> Mapping[str, Any]:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return dict(fmt.get("json_schema", {}).get("schema", {}))
    for m in body.get("messages", []):  # json_object mode: the schema is in the system message
        text = str(m.get("content", ""))
        if SCHEMA_NOTE in text:
            try:
                return dict(json.loads(text.split(SCHEMA_NOTE, 1)[1].strip().split("\n", 1)[0]))
            except (ValueError, IndexError):
                return {}
    return {}


def requested_fields(body: Mapping[str, Any]) -> list[str]:
    """The fields a value call asks for: the schema's property names."""
    props = _schema(body).get("properties", {})
    return [] if "fields" in props and len(props) == 1 else list(props)


def _norm(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


class TruthModel:
    """Answers value calls from ground truth, as a careful model would.

    ``truth`` maps a page URL to ``{field: [values]}``. A value is answered only if it is
    visible in the prompt (so pruning that drops it costs recall, as with a real model); where
    every occurrence was perturbed, the model reads the one in a heading, else the first outside
    the page title, and copies what it finds there. ``noise`` is the share of answers that are
    wrong: half hallucinated (an invented value), half not verbatim (case changed), decided by
    a hash of (page, field, question), so a re-ask draws again. Field discovery answers the truth's
    field names with the first page's values as examples.
    """

    def __init__(
        self,
        truth: Mapping[str, Mapping[str, Sequence[str]]],
        *,
        noise: float = 0.0,
        types: Mapping[str, str] | None = None,
    ) -> None:
        self.truth = {u: {k: list(v) for k, v in fs.items()} for u, fs in truth.items()}
        self.noise = noise
        self.types = dict(types or {})
        self.noisy_answers = 0

    def __call__(self, body: Mapping[str, Any]) -> Any:
        text = prompt_text(body)
        props = _schema(body).get("properties", {})
        if "fields" in props and len(props) == 1:
            return self._fields(text)
        m = _ADDRESS.search(text)
        gold = self.truth.get(m.group(1), {}) if m else {}
        page = text.split("<page>", 1)[-1].split("</page>", 1)[0]
        turn = len(body.get("messages", []))
        out: dict[str, Any] = {}
        for name in props:
            out[name] = self._value(page, name, gold.get(name, []), f"{m and m.group(1)}|{turn}")
        return out

    def _fields(self, text: str) -> dict[str, Any]:
        urls = re.findall(r"^<page 1: (\S+)>$", text, re.MULTILINE)
        gold = self.truth.get(urls[0], {}) if urls else {}
        fields = []
        for name, vals in gold.items():
            example = next((_norm(v) for v in vals if _norm(v) and _norm(v) in text), None)
            fields.append(
                {
                    "name": name,
                    "description": name.replace("_", " "),
                    "type": self.types.get(name, "string"),
                    "example": example,
                }
            )
        return {"fields": fields}

    def _noisy(self, key: str) -> str | None:
        if self.noise <= 0:
            return None
        h = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        if h >= self.noise:
            return None
        return "hallucinate" if h < self.noise / 2 else "case"

    def _value(self, page: str, name: str, values: Sequence[str], where: str) -> Any:
        seen = [_norm(v) for v in values if _norm(v)]
        flat = _norm(page)
        found = [v for v in seen if v in flat]
        if not found:
            found = [r for r in (self._read_perturbed(page, v) for v in seen) if r]
        if not found:
            return None
        noise = self._noisy(f"{where}|{name}")
        if noise == "hallucinate":
            self.noisy_answers += 1
            return f"{found[0]} (invented {hashlib.sha256(where.encode()).hexdigest()[:6]})"
        if noise == "case" and found[0].swapcase() != found[0]:
            self.noisy_answers += 1
            return found[0].swapcase()
        if self.types.get(name) == "list" or len(found) > 1:
            return found
        return found[0]

    @staticmethod
    def _read_perturbed(page: str, value: str) -> str | None:
        """The text at the place the value would be read, if one character was changed there."""
        if len(value) < 2:
            return None
        chars = [re.escape(c) if not c.isalnum() else "." for c in value]
        # the same text with any one letter or digit changed
        alts = [
            "".join(re.escape(c) if j != i else "[0-9A-Za-z]" for j, c in enumerate(value))
            for i, c in enumerate(value)
            if c.isalnum()
        ]
        del chars
        if not alts:
            return None
        hits = [(mt.start(), mt.group(0)) for mt in re.finditer("|".join(alts), page)]

        def line(h: tuple[int, str]) -> str:
            return page[: h[0]].rsplit("\n", 1)[-1]

        headings = [h for h in hits if line(h).startswith("#")]
        body = [h for h in hits if not line(h).startswith("Page title:")]
        pick = (headings or body or hits)[:1]
        return pick[0][1] if pick else None


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # Headers and body leave in two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK of the headers (~40 ms on Linux). Real servers send at once.
    disable_nagle_algorithm = True

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)

    def _raw(self, status: int, data: bytes, ctype: str, *, drip: float = 0.0) -> None:
        """``data`` as the body; with ``drip``, one byte every ``drip`` seconds."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if not drip:
                self.wfile.write(data)
                return
            for i in range(len(data)):
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
                time.sleep(drip)

    def _wire(self, trick: str) -> None:
        """The wire misbehaviours (see :data:`MISBEHAVIOURS`)."""
        ok = {"id": "x", "object": "chat.completion", "model": "m", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "{}"}}]}  # fmt: skip
        if trick == "truncated":
            self._raw(200, json.dumps(ok).encode()[:40], "application/json")
        elif trick == "html":
            page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            self._raw(200, page, "text/html")
        elif trick == "binary":
            self._raw(200, bytes(range(256)) * 4, "application/octet-stream")
        elif trick == "wrong_shape":
            self._raw(200, json.dumps({"choices": {"text": 1}}).encode(), "application/json")
        elif trick == "drip":
            self._raw(200, json.dumps(ok).encode() + b" " * 10_000, "application/json", drip=0.2)
        elif trick == "slow_headers":
            # the status line, then one header byte every 0.2 s (a read never waits long)
            with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                self.wfile.flush()
                for _ in range(600):
                    self.wfile.write(b"X")
                    self.wfile.flush()
                    time.sleep(0.2)
            self.close_connection = True
        elif trick == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()  # no length: until the client stops reading
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(b'{"choices": [{"message": {"content": "')
                chunk = b"A" * (1 << 20)
                for _ in range(64):
                    self.wfile.write(chunk)
        elif trick == "redirect":
            where = f"http://127.0.0.1:{self.server.server_address[1]}/v1/moved/chat/completions"
            self._send(307, {"error": {"message": "moved"}}, {"Location": where})
        else:  # escapes
            self._send(500, {"error": {"message": ESCAPES_MESSAGE, "type": "server_error"}})

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(
                200,
                {"object": "list", "data": [{"id": self.server.owner.model, "object": "model"}]},
            )
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(
                400, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}}
            )
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        with owner.lock:
            owner.requests.append(body)
            owner.request_headers.append({k.lower(): v for k, v in self.headers.items()})
            trick = owner.queue.popleft() if owner.queue else None
        fmt = (body.get("response_format") or {}).get("type")
        if owner.reject_json_schema and fmt == "json_schema":
            self._send(
                400,
                {"error": {"message": "response_format type json_schema is not supported",
                           "type": "invalid_request_error", "param": "response_format"}},
            )  # fmt: skip
            return
        if trick == "429":
            self._send(429, {"error": {"message": "rate limited", "type": "rate_limit_error"}},
                       {"Retry-After": str(owner.retry_after)})  # fmt: skip
            return
        if trick == "500":
            self._send(500, {"error": {"message": "server error", "type": "server_error"}})
            return
        if trick in MISBEHAVIOURS[6:]:
            self._wire(trick)
            return
        if trick == "timeout":
            time.sleep(owner.hang)
            self._send(200, {"error": {"message": "too late"}})
            return
        if trick == "malformed":
            content = '{"title": "unterminated'
        elif trick == "off_schema":
            content = json.dumps({"unexpected": 1})
        elif trick == "empty":
            content = ""
        else:
            try:
                content = json.dumps(owner.answer(body), ensure_ascii=False)
            except Exception as exc:  # a broken script is a 500, like a crashed model server
                self._send(
                    500, {"error": {"message": f"answer failed: {exc}", "type": "server_error"}}
                )
                return
        prompt = "".join(str(m.get("content", "")) for m in body.get("messages", []))
        self._send(
            200,
            {
                "id": f"chatcmpl-{len(owner.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", owner.model),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": estimate_tokens(prompt),
                    "completion_tokens": estimate_tokens(content),
                    "total_tokens": estimate_tokens(prompt) + estimate_tokens(content),
                },
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeOpenAIServer


class FakeOpenAIServer:
    """``with FakeOpenAIServer(answer) as srv: OpenAIClient(LLMConfig(base_url=srv.base_url))``.

    ``answer(request_body) -> data`` (a :class:`TruthModel`, or a function); a list instead is a
    script, answered in order (the last entry repeats). ``misbehave("429", "malformed")`` queues
    misbehaviours for the next requests; ``reject_json_schema`` makes it refuse structured
    outputs; ``hang`` is how long a ``timeout`` request stalls.
    """

    def __init__(
        self,
        answer: Answer | Sequence[Any],
        *,
        model: str = "test-model",
        reject_json_schema: bool = False,
        retry_after: float = 1,
        hang: float = 3.0,
    ) -> None:
        if callable(answer):
            self.answer: Answer = answer
        else:
            script = list(answer)
            if not script:
                raise ValueError("an empty script")
            state = {"i": 0}

            def scripted(_: Mapping[str, Any]) -> Any:
                i = min(state["i"], len(script) - 1)
                state["i"] += 1
                return script[i]

            self.answer = scripted
        self.model = model
        self.reject_json_schema = reject_json_schema
        self.retry_after = retry_after
        self.hang = hang
        self.requests: list[dict[str, Any]] = []
        #: Each request's headers (names in lower case), in order.
        self.request_headers: list[dict[str, str]] = []
        self.queue: deque[str] = deque()
        self.lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def misbehave(self, *tricks: str) -> None:
        for t in tricks:
            if t not in MISBEHAVIOURS:
                raise ValueError(f"unknown misbehaviour {t!r} (one of {', '.join(MISBEHAVIOURS)})")
        with self.lock:
            self.queue.extend(tricks)

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("server not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def cli_env(
        self, cache_dir: str | os.PathLike[str], *, api_key: str = "sk-test", model: str = "truth-1"
    ) -> dict[str, str]:
        """The environment of an ``anchorpath`` command that talks to this server: its URL,
        ``model`` and ``api_key``, the response cache in ``cache_dir``, no config file."""
        return {
            "ANCHORPATH_LLM_BASE_URL": self.base_url,
            "ANCHORPATH_LLM_MODEL": model,
            "ANCHORPATH_LLM_API_KEY": api_key,
            "ANCHORPATH_CACHE_DIR": str(cache_dir),
            "ANCHORPATH_CONFIG": "",
        }

    def start(self) -> FakeOpenAIServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def calls(self, kinds: Iterable[str] | None = None) -> int:
        """Chat requests received (all, or only those whose schema name is in ``kinds``)."""
        if kinds is None:
            return len(self.requests)
        want = set(kinds)
        return sum(
            1
            for b in self.requests
            if ((b.get("response_format") or {}).get("json_schema") or {}).get("name") in want
        )
