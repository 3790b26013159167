"""HttpClient: one TLS context per process, shared by every client (and every thread)."""

from __future__ import annotations

import ssl
import threading
import time
from typing import Any

import httpx
import pytest

from anchorpath._config import FetchConfig
from anchorpath.fetch import http
from anchorpath.fetch.http import HttpClient, tls_context


def _context_of(client: HttpClient) -> Any:
    return client._client._transport._pool._ssl_context  # type: ignore[attr-defined]


def test_clients_share_one_verifying_tls_context(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[ssl.SSLContext] = []
    real = httpx.create_ssl_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        built.append(real(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(http, "_tls", None)
    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    clients = [HttpClient(FetchConfig(), "ua", clock=time.monotonic) for _ in range(3)]
    try:
        assert len(built) == 1
        assert all(_context_of(c) is built[0] for c in clients)
        assert built[0].verify_mode == ssl.CERT_REQUIRED and built[0].check_hostname
    finally:
        for c in clients:
            c.close()


def test_tls_context_is_built_once_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "_tls", None)
    seen: list[ssl.SSLContext] = []
    threads = [threading.Thread(target=lambda: seen.append(tls_context())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and len({id(c) for c in seen}) == 1


def test_an_injected_transport_needs_no_tls_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http, "_tls", None)
    client = HttpClient(
        FetchConfig(),
        "ua",
        clock=time.monotonic,
        transport=httpx.MockTransport(lambda request: httpx.Response(200)),
    )
    client.close()
    assert http._tls is None
