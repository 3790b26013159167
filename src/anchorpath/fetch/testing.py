"""A loopback HTTP fault server for tests (one server = one origin), with scripted behaviours.

    with FaultServer({"/a": ok(b"<p>hi</p>"), "/b": sequence(status(503), ok())}) as server:
        fetcher.fetch(server.url("/a"))
        server.times("/a")        # monotonic arrival times, to assert pacing

Behaviours: :func:`ok`, :func:`status`, :func:`too_many` (429 + Retry-After), :func:`sequence`
(one answer per request, the last repeats), :func:`redirect`, :func:`slow_drip`, :func:`hang`,
:func:`truncated`, :func:`big` (streams N bytes without holding them), :func:`gzip_bomb`,
:func:`etag`, :func:`login_wall`, :func:`captcha`. ``robots=`` takes a behaviour or a text;
the default serves an empty robots.txt (everything allowed).

Only for tests and benchmarks: it binds 127.0.0.1 and never leaves the machine.
"""

from __future__ import annotations

import email.utils
import socket
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Behaviour",
    "FaultServer",
    "Recorded",
    "big",
    "captcha",
    "etag",
    "gzip_bomb",
    "hang",
    "login_wall",
    "ok",
    "redirect",
    "sequence",
    "slow_drip",
    "status",
    "too_many",
    "truncated",
]


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    path: str
    at: float  # time.monotonic() on arrival
    wall: float  # time.time() on arrival
    headers: dict[str, str]


Behaviour = Callable[["_Handler", Recorded], None]


def _send(
    handler: _Handler, code: int, headers: Mapping[str, str] | None = None, body: bytes = b""
) -> None:
    handler.send_response(code)
    sent = {k.lower() for k in (headers or {})}
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    if "content-length" not in sent:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if body:
        handler.wfile.write(body)


def ok(body: bytes = b"<html><body>ok</body></html>", content_type: str = "text/html") -> Behaviour:
    """200 with ``body``."""
    return lambda h, r: _send(h, 200, {"Content-Type": content_type}, body)


def status(code: int, headers: Mapping[str, str] | None = None, body: bytes = b"") -> Behaviour:
    """Any status with optional headers and body."""
    return lambda h, r: _send(h, code, headers, body)


def too_many(retry_after: float | str | None, code: int = 429) -> Behaviour:
    """429 (or 503) with ``Retry-After`` seconds, an HTTP-date string, or none."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return status(code, headers)


def http_date(seconds_from_now: float) -> str:
    """An RFC 9110 HTTP-date ``seconds_from_now`` in the future."""
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


def sequence(*behaviours: Behaviour) -> Behaviour:
    """One behaviour per request in order; the last one repeats."""
    lock = threading.Lock()
    index = [0]

    def run(h: _Handler, r: Recorded) -> None:
        with lock:
            i = min(index[0], len(behaviours) - 1)
            index[0] += 1
        behaviours[i](h, r)

    return run


def redirect(location: str, code: int = 302) -> Behaviour:
    """A redirect to ``location`` (absolute or relative)."""
    return status(code, {"Location": location})


def slow_drip(total: int = 2000, chunk: int = 10, interval: float = 0.2) -> Behaviour:
    """200 that sends ``chunk`` bytes every ``interval`` seconds (never trips a read timeout)."""

    def run(h: _Handler, r: Recorded) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(total))
        h.end_headers()
        sent = 0
        while sent < total and not h.server_stopping():
            h.wfile.write(b"x" * chunk)
            h.wfile.flush()
            sent += chunk
            time.sleep(interval)

    return run


def hang(seconds: float) -> Behaviour:
    """Say nothing for ``seconds`` (a read timeout), then answer 200."""

    def run(h: _Handler, r: Recorded) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not h.server_stopping():
            time.sleep(0.05)
        _send(h, 200, {"Content-Type": "text/html"}, b"late")

    return run


def truncated(declared: int = 1000, actual: int = 100) -> Behaviour:
    """Declare ``declared`` bytes, send ``actual``, close the connection."""

    def run(h: _Handler, r: Recorded) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(declared))
        h.end_headers()
        h.wfile.write(b"y" * actual)
        h.wfile.flush()
        h.close_connection = True
        h.connection.shutdown(socket.SHUT_RDWR)

    return run


def big(size: int, *, declare_length: bool = True, chunk: int = 1 << 20) -> Behaviour:
    """Stream ``size`` bytes; without ``declare_length`` the end is the connection close."""
    block = b"z" * chunk

    def run(h: _Handler, r: Recorded) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        if declare_length:
            h.send_header("Content-Length", str(size))
        else:
            h.send_header("Connection", "close")
            h.close_connection = True
        h.end_headers()
        sent = 0
        try:
            while sent < size:
                n = min(chunk, size - sent)
                h.wfile.write(block[:n])
                sent += n
        except OSError:
            pass  # the client hung up at its cap: that is the point

    return run


_BOMBS: dict[int, bytes] = {}


def gzip_bomb(expanded: int = 200 * 1024 * 1024) -> Behaviour:
    """A small gzip body that inflates to ``expanded`` bytes of zeros."""
    if expanded not in _BOMBS:
        zeros = bytes(1 << 20)
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: gzip container
        parts = [comp.compress(zeros) for _ in range(expanded >> 20)]
        parts.append(comp.flush())
        _BOMBS[expanded] = b"".join(parts)
    payload = _BOMBS[expanded]
    headers = {"Content-Type": "text/html", "Content-Encoding": "gzip"}
    return lambda h, r: _send(h, 200, headers, payload)


def etag(body: bytes, tag: str = '"v1"') -> Behaviour:
    """200 with an ETag; 304 when the request's If-None-Match matches."""

    def run(h: _Handler, r: Recorded) -> None:
        if r.headers.get("if-none-match") == tag:
            _send(h, 304, {"ETag": tag})
        else:
            _send(h, 200, {"Content-Type": "text/html; charset=utf-8", "ETag": tag}, body)

    return run


def login_wall() -> Behaviour:
    """A 200 page that is really a login form."""
    page = (
        b"<html><head><title>Sign in</title></head><body><form action='/session'>"
        b"<input name='user'><input type='password' name='pw'></form></body></html>"
    )
    return ok(page)


def captcha() -> Behaviour:
    """A 200 page that is really a CAPTCHA challenge."""
    page = (
        b"<html><head><title>Just a moment...</title></head><body>"
        b"<div class='g-recaptcha' data-sitekey='x'></div></body></html>"
    )
    return ok(page)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK of the headers (~40 ms on Linux). Real servers send at once.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return  # keep test output clean

    def server_stopping(self) -> bool:
        return self.server.owner._stopping.is_set()

    def do_GET(self) -> None:
        owner = self.server.owner
        recorded = Recorded(
            path=self.path,
            at=time.monotonic(),
            wall=time.time(),
            headers={k.lower(): v for k, v in self.headers.items()},
        )
        with owner._lock:
            owner.requests.append(recorded)
        path_only = self.path.split("?", 1)[0]
        behaviour = owner.routes.get(self.path) or owner.routes.get(path_only)
        if behaviour is None:
            behaviour = status(404, {"Content-Type": "text/html"}, b"not found")
        try:
            behaviour(self, recorded)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FaultServer


@dataclass
class FaultServer:
    """A scripted loopback origin. Use as a context manager or call start()/stop()."""

    routes: dict[str, Behaviour] = field(default_factory=dict)
    robots: Behaviour | str | None = ""
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        if isinstance(self.robots, str):
            self.routes.setdefault("/robots.txt", ok(self.robots.encode(), "text/plain"))
        elif self.robots is not None:
            self.routes.setdefault("/robots.txt", self.robots)

    def start(self) -> FaultServer:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def route(self, path: str, behaviour: Behaviour) -> None:
        self.routes[path] = behaviour

    def paths(self) -> list[str]:
        with self._lock:
            return [r.path for r in self.requests]

    def times(self, path: str | None = None) -> list[float]:
        """Monotonic arrival times of all requests (or those for ``path``)."""
        with self._lock:
            return [r.at for r in self.requests if path is None or r.path == path]
