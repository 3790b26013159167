"""PoliteFetcher against the loopback fault server: robots policy, pacing, retries, stop rules,
safety caps, conditional GET, WARC. Small delays (0.2 s) keep the file well under a minute.
"""

from __future__ import annotations

import itertools
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from anchorpath._config import FetchConfig
from anchorpath._errors import (
    DeadlineExceeded,
    FetchFailed,
    OriginBlocked,
    RobotsDisallowed,
    UnsafeRequest,
)
from anchorpath.fetch.events import FetchEvent
from anchorpath.fetch.polite import PoliteFetcher
from anchorpath.fetch.result import FetchResult
from anchorpath.fetch.safety import check_address
from anchorpath.fetch.testing import (
    FaultServer,
    big,
    captcha,
    etag,
    gzip_bomb,
    hang,
    http_date,
    login_wall,
    ok,
    redirect,
    sequence,
    slow_drip,
    status,
    too_many,
    truncated,
)
from anchorpath.fetch.warc import WarcReader, WarcWriter

DELAY = 0.2
EPS = 0.02  # scheduling jitter between the client's clock and the server's arrival stamp

CONFIG = FetchConfig(
    contact="tests@example.org",
    min_delay=DELAY,
    delay_factor=1.0,
    max_delay=2.0,
    backoff_base=0.1,
    backoff_cap=0.3,
    connect_timeout=2.0,
    read_timeout=2.0,
    total_timeout=5.0,
    allow_private_networks=True,
)


@pytest.fixture
def events() -> list[FetchEvent]:
    return []


@pytest.fixture
def fetcher(events: list[FetchEvent]) -> Iterator[PoliteFetcher]:
    with PoliteFetcher(CONFIG, on_event=events.append) as f:
        yield f


def serve(routes: dict[str, object] | None = None, robots: object = "") -> FaultServer:
    return FaultServer(dict(routes or {}), robots=robots).start()  # type: ignore[arg-type]


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


# --------------------------------------------------------------------------- robots.txt


def test_robots_first_then_disallowed_path_never_requested(fetcher: PoliteFetcher) -> None:
    server = serve({"/ok": ok(), "/private/x": ok()}, robots="User-agent: *\nDisallow: /private/\n")
    try:
        assert fetcher.fetch(server.url("/ok")).status == 200
        with pytest.raises(RobotsDisallowed, match="line 2"):
            fetcher.fetch(server.url("/private/x"))
        assert server.paths() == ["/robots.txt", "/ok"]
        assert fetcher.counters.robots_blocked == 1
    finally:
        server.stop()


def test_robots_404_allows_all(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": ok()}, robots=status(404))
    try:
        assert fetcher.fetch(server.url("/a")).body.startswith(b"<html>")
    finally:
        server.stop()


@pytest.mark.parametrize("code", [401, 403, 429])
def test_robots_4xx_stops_origin(fetcher: PoliteFetcher, code: int) -> None:
    server = serve({"/a": ok()}, robots=status(code))
    try:
        with pytest.raises(OriginBlocked) as info:
            fetcher.fetch(server.url("/a"))
        assert info.value.reason == "robots-4xx"
        with pytest.raises(OriginBlocked):
            fetcher.fetch(server.url("/a"))
        assert server.paths() == ["/robots.txt"]
    finally:
        server.stop()


def test_robots_5xx_is_complete_disallow_and_nothing_else_is_sent(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": ok(), "/b": ok()}, robots=status(500))
    try:
        for path in ("/a", "/b"):
            with pytest.raises(RobotsDisallowed, match="unavailable"):
                fetcher.fetch(server.url(path))
        assert server.paths() == ["/robots.txt"]
    finally:
        server.stop()


def test_robots_5xx_uses_young_cached_copy(tmp_path: Path) -> None:
    import time

    robots = status(
        200,
        {"Content-Type": "text/plain", "Cache-Control": "max-age=1"},
        b"User-agent: *\nDisallow: /a\n",
    )
    good = serve({"/a": ok()}, robots=robots)
    try:
        with (
            PoliteFetcher(CONFIG, cache_dir=str(tmp_path)) as first,
            pytest.raises(RobotsDisallowed),
        ):
            first.fetch(good.url("/a"))
        good.route("/robots.txt", status(503))
        # 10 s later: max-age is over, the refetch fails, the copy (< 24 h old) still decides.
        soon = PoliteFetcher(CONFIG, cache_dir=str(tmp_path), wall_clock=lambda: time.time() + 10)
        with soon, pytest.raises(RobotsDisallowed, match="line 2"):
            soon.fetch(good.url("/a"))
        # Two days later the copy is too old: complete disallow.
        late = PoliteFetcher(
            CONFIG, cache_dir=str(tmp_path), wall_clock=lambda: time.time() + 2 * 86400
        )
        with late, pytest.raises(RobotsDisallowed, match="unavailable"):
            late.fetch(good.url("/a"))
        assert good.paths() == ["/robots.txt"] * 3
    finally:
        good.stop()


def test_robots_cached_across_runs_unless_read_per_run(tmp_path: Path) -> None:
    server = serve({"/a": ok()}, robots="User-agent: *\nDisallow: /nothing\n")
    cached = replace(CONFIG, robots_per_run=False)
    try:
        for _ in range(2):
            with PoliteFetcher(cached, cache_dir=str(tmp_path)) as f:
                f.fetch(server.url("/a"))
        assert server.paths().count("/robots.txt") == 1
        # the default: each fetcher (one run) reads robots.txt afresh, once
        for _ in range(2):
            with PoliteFetcher(CONFIG, cache_dir=str(tmp_path)) as f:
                f.fetch(server.url("/a"))
                f.fetch(server.url("/a"))
        assert server.paths().count("/robots.txt") == 3
    finally:
        server.stop()


def test_robots_seen_names_the_text_its_hash_and_when(tmp_path: Path) -> None:
    import hashlib

    text = b"User-agent: *\nDisallow: /nothing\n"
    server = serve({"/a": ok()}, robots=text.decode())
    try:
        with PoliteFetcher(CONFIG, cache_dir=str(tmp_path)) as f:
            assert f.robots_seen(server.url("/a")) is None  # not asked yet: never fetches
            f.fetch(server.url("/a"))
            seen = f.robots_seen(server.url("/a"))
        assert seen is not None and seen.kind == "parsed" and seen.text == text.decode()
        assert seen.sha256 == hashlib.sha256(text).hexdigest()
        assert seen.fetched_at is not None and seen.fetched_at.endswith("Z")
        assert server.paths().count("/robots.txt") == 1
    finally:
        server.stop()


def test_robots_cache_control_shorter_than_24h(tmp_path: Path) -> None:
    robots = status(200, {"Content-Type": "text/plain", "Cache-Control": "max-age=0"}, b"")
    server = serve({"/a": ok()}, robots=robots)
    try:
        for _ in range(2):
            with PoliteFetcher(CONFIG, cache_dir=str(tmp_path)) as f:
                f.fetch(server.url("/a"))
        assert server.paths().count("/robots.txt") == 2
    finally:
        server.stop()


def test_robots_redirect_followed(fetcher: PoliteFetcher) -> None:
    server = serve(
        {"/a": ok(), "/real-robots.txt": ok(b"User-agent: *\nDisallow: /a\n", "text/plain")},
        robots=redirect("/real-robots.txt", 301),
    )
    try:
        with pytest.raises(RobotsDisallowed):
            fetcher.fetch(server.url("/a"))
        assert server.paths() == ["/robots.txt", "/real-robots.txt"]
    finally:
        server.stop()


def test_robots_oversize_parses_first_500_kib(
    fetcher: PoliteFetcher, events: list[FetchEvent]
) -> None:
    filler = b"# " + b"x" * 1000 + b"\n"
    body = b"User-agent: *\nDisallow: /early\n" + filler * 600 + b"Disallow: /late\n"
    server = serve({"/late": ok(), "/early": ok()}, robots=ok(body, "text/plain"))
    try:
        assert fetcher.fetch(server.url("/late")).status == 200  # rule past 500 KiB ignored
        with pytest.raises(RobotsDisallowed):
            fetcher.fetch(server.url("/early"))
        assert any("content past" in e.detail for e in events)
    finally:
        server.stop()


def test_robots_html_page_warns(fetcher: PoliteFetcher, events: list[FetchEvent]) -> None:
    server = serve({"/a": ok()}, robots=ok(b"<!DOCTYPE html><html><p>oops</p></html>"))
    try:
        fetcher.fetch(server.url("/a"))
        assert any(e.outcome == "robots-warning" and "HTML" in e.detail for e in events)
    finally:
        server.stop()


# --------------------------------------------------------------------------- pacing


def test_pacing_min_delay_between_requests(fetcher: PoliteFetcher) -> None:
    server = serve({f"/p{i}": ok() for i in range(4)})
    try:
        for i in range(4):
            fetcher.fetch(server.url(f"/p{i}"))
        assert all(g >= DELAY - EPS for g in gaps(server.times()))
    finally:
        server.stop()


def test_crawl_delay_is_a_floor(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": ok(), "/b": ok()}, robots="User-agent: *\nCrawl-delay: 0.5\n")
    try:
        fetcher.fetch(server.url("/a"))
        fetcher.fetch(server.url("/b"))
        assert min(gaps(server.times())) >= 0.5 - EPS
    finally:
        server.stop()


def test_fetch_many_concurrent_across_origins_sequential_within() -> None:
    servers = [serve({f"/p{i}": ok() for i in range(3)}) for _ in range(3)]
    try:
        urls = [s.url(f"/p{i}") for i in range(3) for s in servers]
        with PoliteFetcher(replace(CONFIG, global_concurrency=2)) as f:
            begun = time.monotonic()
            results = list(f.fetch_many(urls))
            took = time.monotonic() - begun
        assert len(results) == 9 and all(isinstance(r, FetchResult) for _, r in results)
        for server in servers:
            assert min(gaps(server.times())) >= DELAY - EPS
        # Origins in parallel: ideally 3 paced gaps (0.6 s); one origin after another would take at
        # least 9 gaps (1.8 s). The bound sits between the two, so load on the machine cannot fail it.
        assert took < 8 * DELAY
    finally:
        for s in servers:
            s.stop()


# --------------------------------------------------------------------------- retries


def test_429_retry_after_seconds(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": sequence(too_many(1), ok())})
    try:
        result = fetcher.fetch(server.url("/a"))
        assert result.status == 200
        t = server.times("/a")
        assert t[1] - t[0] >= 1.0 - EPS
        assert fetcher.counters.ok_after_retry == 1 and fetcher.counters.too_many_429 == 1
        assert fetcher.counters.server_requested_wait == 1.0
    finally:
        server.stop()


def test_429_retry_after_http_date(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": ok()})
    server.route("/a", sequence(lambda h, r: too_many(http_date(2))(h, r), ok()))
    try:
        fetcher.fetch(server.url("/a"))
        first, second = [r for r in server.requests if r.path == "/a"]
        assert second.wall - first.wall >= 1.0 - EPS  # an HTTP-date has 1 s resolution
    finally:
        server.stop()


def test_retry_after_past_deadline_fails_without_sleeping(fetcher: PoliteFetcher) -> None:
    import time

    server = serve({"/a": too_many(3600)})
    try:
        begun = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            fetcher.fetch(server.url("/a"), deadline=time.monotonic() + 10)
        assert time.monotonic() - begun < 2
        with pytest.raises(DeadlineExceeded):  # the origin stays deferred
            fetcher.fetch(server.url("/a"), deadline=time.monotonic() + 10)
        assert server.paths().count("/a") == 1
    finally:
        server.stop()


def test_503_without_retry_after_backs_off(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": sequence(status(503), ok())})
    try:
        assert fetcher.fetch(server.url("/a")).status == 200
        t = server.times("/a")
        assert t[1] - t[0] >= DELAY - EPS
    finally:
        server.stop()


def test_repeated_429_opens_circuit(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": too_many(0), "/b": ok()})
    try:
        with pytest.raises(OriginBlocked) as info:
            fetcher.fetch(server.url("/a"))
        assert info.value.reason == "circuit-open"
        with pytest.raises(OriginBlocked):
            fetcher.fetch(server.url("/b"))
        assert "/b" not in server.paths()
    finally:
        server.stop()


def test_flaky_then_ok(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": sequence(status(500), status(502), ok())})
    try:
        assert fetcher.fetch(server.url("/a")).status == 200
        assert server.paths().count("/a") == 3
        assert all(g >= DELAY - EPS for g in gaps(server.times("/a")))
    finally:
        server.stop()


def test_retries_bounded(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": status(500)})
    try:
        with pytest.raises(FetchFailed) as info:
            fetcher.fetch(server.url("/a"))
        assert info.value.status == 500
        assert server.paths().count("/a") == CONFIG.max_attempts
    finally:
        server.stop()


@pytest.mark.parametrize("code", [401, 403])
def test_401_403_stop_origin_no_retry(fetcher: PoliteFetcher, code: int) -> None:
    server = serve({"/a": status(code), "/b": ok()})
    try:
        with pytest.raises(OriginBlocked) as info:
            fetcher.fetch(server.url("/a"))
        assert info.value.reason == f"http-{code}"
        with pytest.raises(OriginBlocked):
            fetcher.fetch(server.url("/b"))
        assert server.paths() == ["/robots.txt", "/a"]
        assert fetcher.counters.auth_401_403 == 1
    finally:
        server.stop()


@pytest.mark.parametrize("code", [404, 410])
def test_404_410_dropped_no_retry(fetcher: PoliteFetcher, code: int) -> None:
    server = serve({"/a": status(code), "/b": ok()})
    try:
        with pytest.raises(FetchFailed) as info:
            fetcher.fetch(server.url("/a"))
        assert info.value.status == code
        assert fetcher.fetch(server.url("/b")).status == 200  # origin not stopped
        assert server.paths() == ["/robots.txt", "/a", "/b"]
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("behaviour", "reason"), [(login_wall(), "login-wall"), (captcha(), "captcha")]
)
def test_refusal_pages_stop_origin(fetcher: PoliteFetcher, behaviour: object, reason: str) -> None:
    server = serve({"/a": behaviour, "/b": ok()})
    try:
        with pytest.raises(OriginBlocked) as info:
            fetcher.fetch(server.url("/a"))
        assert info.value.reason == reason
        with pytest.raises(OriginBlocked):
            fetcher.fetch(server.url("/b"))
        assert "/b" not in server.paths()
    finally:
        server.stop()


def test_redirect_to_login_is_a_wall(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": redirect("/login?next=/a"), "/login": ok(b"<html>please</html>")})
    try:
        with pytest.raises(OriginBlocked, match="login-wall"):
            fetcher.fetch(server.url("/a"))
    finally:
        server.stop()


# --------------------------------------------------------------------------- timeouts, caps


def test_timeout_is_bounded() -> None:
    server = serve({"/a": hang(3)})
    config = replace(CONFIG, read_timeout=0.3, max_attempts=2)
    try:
        with PoliteFetcher(config) as f, pytest.raises(FetchFailed, match="2 attempts"):
            f.fetch(server.url("/a"))
        assert f.counters.network_errors == 2
    finally:
        server.stop()


def test_slow_drip_hits_total_timeout() -> None:
    server = serve({"/a": slow_drip(total=10_000, chunk=10, interval=0.1)})
    config = replace(CONFIG, total_timeout=0.6, max_attempts=1)
    try:
        with PoliteFetcher(config) as f, pytest.raises(FetchFailed, match="total timeout"):
            f.fetch(server.url("/a"))
    finally:
        server.stop()


def test_truncated_body_fails_after_retries(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": truncated()})
    try:
        with pytest.raises(FetchFailed):
            fetcher.fetch(server.url("/a"))
        assert server.paths().count("/a") == CONFIG.max_attempts
    finally:
        server.stop()


@pytest.mark.parametrize("declare", [True, False])
def test_50mb_body_refused_with_bounded_memory(fetcher: PoliteFetcher, declare: bool) -> None:
    server = serve({"/a": big(50 * 1024 * 1024, declare_length=declare)})
    try:
        tracemalloc.start()
        with pytest.raises(UnsafeRequest, match="larger than"):
            fetcher.fetch(server.url("/a"))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 3 * CONFIG.max_response_bytes, peak
        assert server.paths().count("/a") == 1  # a cap is not retried
    finally:
        server.stop()


def test_gzip_bomb_refused_with_bounded_memory(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": gzip_bomb(64 * 1024 * 1024)})
    try:
        tracemalloc.start()
        with pytest.raises(UnsafeRequest, match="compression bomb"):
            fetcher.fetch(server.url("/a"))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 2 * CONFIG.max_decompressed_bytes, peak
    finally:
        server.stop()


def test_gzip_body_decoded(fetcher: PoliteFetcher) -> None:
    import gzip

    body = gzip.compress(b"<html>compressed</html>")
    server = serve(
        {"/a": status(200, {"Content-Type": "text/html", "Content-Encoding": "gzip"}, body)}
    )
    try:
        result = fetcher.fetch(server.url("/a"))
        assert result.body == b"<html>compressed</html>"
        assert "content-encoding" not in result.headers
    finally:
        server.stop()


def test_redirect_loop(fetcher: PoliteFetcher) -> None:
    server = serve({"/loop": redirect("/loop")})
    try:
        with pytest.raises(UnsafeRequest, match="redirects"):
            fetcher.fetch(server.url("/loop"))
        assert server.paths().count("/loop") == CONFIG.max_redirects + 1
    finally:
        server.stop()


def test_redirect_to_private_address_refused() -> None:
    server = serve({"/a": redirect("http://10.1.2.3/secret"), "/b": ok()})

    def resolver(host: str, port: int) -> list[str]:
        # Pretend the loopback test server is a public host; 10.1.2.3 stays private.
        return ["93.184.216.34"] if host == "127.0.0.1" else [host]

    config = replace(CONFIG, allow_private_networks=False)
    try:
        with PoliteFetcher(config, resolver=resolver) as f:
            assert f.fetch(server.url("/b")).status == 200
            with pytest.raises(UnsafeRequest, match=r"non-public address 10\.1\.2\.3"):
                f.fetch(server.url("/a"))
    finally:
        server.stop()


def test_default_refuses_loopback() -> None:
    server = serve({"/a": ok()})
    try:
        config = replace(CONFIG, allow_private_networks=False)
        with PoliteFetcher(config) as f, pytest.raises(UnsafeRequest, match="non-public"):
            f.fetch(server.url("/a"))
        assert server.paths() == []
    finally:
        server.stop()


@pytest.mark.parametrize(
    "url", ["ftp://example.org/x", "file:///etc/passwd", "http:///nohost", "http://h/" + "a" * 3000]
)
def test_bad_urls_refused(fetcher: PoliteFetcher, url: str) -> None:
    with pytest.raises(UnsafeRequest):
        fetcher.fetch(url)


def test_content_type_checked(fetcher: PoliteFetcher) -> None:
    server = serve({"/img": ok(b"\x89PNG", "image/png")})
    try:
        with pytest.raises(UnsafeRequest, match="Content-Type"):
            fetcher.fetch(server.url("/img"))
    finally:
        server.stop()


PAGE = b"<!DOCTYPE html>\n<html><body><h1>Hello</h1></body></html>"


def test_generic_or_missing_content_type_is_sniffed(fetcher: PoliteFetcher) -> None:
    """A page served as application/octet-stream, or with no Content-Type, is taken when its
    bytes are HTML (as a browser takes it); a binary body under such a type is refused."""
    server = serve(
        {
            "/octet": ok(b"\xef\xbb\xbf  " + PAGE, "application/octet-stream"),
            "/bare": status(200, {}, b"<html lang=ko><p>x</p></html>"),
            "/zip": ok(b"PK\x03\x04" + b"\x00" * 20, "application/octet-stream"),
            "/bin": status(200, {}, b"\x89PNG\r\n\x1a\n" + b"\x00" * 20),
        }
    )
    try:
        assert fetcher.fetch(server.url("/octet")).body.endswith(b"</html>")
        assert fetcher.fetch(server.url("/bare")).status == 200
        with pytest.raises(UnsafeRequest, match="'application/octet-stream' and the body is not"):
            fetcher.fetch(server.url("/zip"))
        with pytest.raises(UnsafeRequest, match="no Content-Type and the body is not text"):
            fetcher.fetch(server.url("/bin"))
    finally:
        server.stop()


def test_accept_content_types_setting() -> None:
    server = serve({"/feed": ok(b"<rss/>", "application/rss+xml")})
    try:
        with PoliteFetcher(CONFIG) as f, pytest.raises(UnsafeRequest) as refused:
            f.fetch(server.url("/feed"))
        assert "add it to [fetch] accept_content_types" in str(refused.value)
        more = replace(CONFIG, accept_content_types=("text/html", "application/rss+xml"))
        with PoliteFetcher(more) as f:
            assert f.fetch(server.url("/feed")).body == b"<rss/>"
    finally:
        server.stop()


# --------------------------------------------------------------------------- conditional GET


def test_etag_304_reuses_stored_body(tmp_path: Path) -> None:
    server = serve({"/a": etag(b"<html>v1</html>")})
    try:
        with PoliteFetcher(CONFIG, cache_dir=str(tmp_path)) as f:
            first = f.fetch(server.url("/a"))
        with PoliteFetcher(CONFIG, cache_dir=str(tmp_path)) as f:
            second = f.fetch(server.url("/a"))
            full = f.fetch(server.url("/a"), conditional=False)
        assert not first.not_modified and second.not_modified and not full.not_modified
        assert second.status == 304 and second.body == b"<html>v1</html>"
        assert second.charset == "utf-8"
        sent = [r.headers.get("if-none-match") for r in server.requests if r.path == "/a"]
        assert sent == [None, '"v1"', None]
    finally:
        server.stop()


# --------------------------------------------------------------------------- WARC, events


def test_warc_written_and_replayed(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    path = tmp_path / "run.warc.gz"
    server = serve({"/a": ok(b"<html>A</html>"), "/gone": status(404)})
    try:
        with WarcWriter(path) as warc, PoliteFetcher(CONFIG, warc=warc) as f:
            f.fetch(server.url("/a"))
            with pytest.raises(FetchFailed):
                f.fetch(server.url("/gone"))
        with path.open("rb") as fh:
            kinds = [
                (r.rec_type, r.rec_headers.get_header("WARC-Target-URI"))
                for r in ArchiveIterator(fh)
            ]
        assert ("response", server.url("/robots.txt")) in kinds
        assert ("request", server.url("/a")) in kinds
        reader = WarcReader(path)
        got = reader.get(server.url("/a"))
        assert got is not None and got[1] == 200 and got[3] == b"<html>A</html>"
        assert {u for u, *_ in reader.responses()} == {
            server.url("/robots.txt"),
            server.url("/a"),
            server.url("/gone"),
        }
    finally:
        server.stop()


def test_events_redact_and_explain_waits(fetcher: PoliteFetcher, events: list[FetchEvent]) -> None:
    server = serve({"/a": ok()})
    try:
        fetcher.fetch(server.url("/a?access_token=abc&q=1"))
        fetcher.fetch(server.url("/a?q=2"))
        requests = [e for e in events if e.kind == "request"]
        assert "access_token=REDACTED" in requests[0].url and "abc" not in requests[0].url
        assert requests[0].wait_reason == "robots"  # waited after the robots.txt request
        assert requests[1].wait_reason == "pacing"
        assert requests[1].waited >= DELAY - EPS
        counters = fetcher.counters.as_dict()
        assert counters["planned"] == 2 and counters["ok_2xx"] == 2
        assert counters["requests"] == 3 and counters["robots_requests"] == 1
    finally:
        server.stop()


def test_robots_url_for_origin() -> None:
    from anchorpath.fetch.robots_policy import robots_url

    assert robots_url("https://h.org:443") == "https://h.org/robots.txt"
    assert robots_url("https://h.org:4430") == "https://h.org:4430/robots.txt"
    assert robots_url("http://[::1]:8080") == "http://[::1]:8080/robots.txt"
    assert robots_url("http://h:80") == "http://h/robots.txt"


def test_hostname_is_pinned_to_the_checked_address(fetcher: PoliteFetcher) -> None:
    """``localhost`` is resolved once, checked, and connected to by address with its Host."""
    server = serve({"/a": ok()})
    try:
        result = fetcher.fetch(f"http://localhost:{server.port}/a")
        assert result.status == 200 and result.final_url == f"http://localhost:{server.port}/a"
        hosts = {r.headers.get("host") for r in server.requests}
        assert hosts == {f"localhost:{server.port}"}
    finally:
        server.stop()


# --------------------------------------------------------------------------- credentials, link-local


def test_redirect_to_a_url_with_credentials_sends_nothing(fetcher: PoliteFetcher) -> None:
    server = serve({"/a": redirect("/b"), "/b": ok()})
    try:
        target = server.base_url.replace("http://", "http://user:secret@") + "/b"
        server.route("/a", redirect(target))
        with pytest.raises(UnsafeRequest, match="carries credentials") as info:
            fetcher.fetch(server.url("/a"))
        assert "secret" not in str(info.value)
        assert "/b" not in server.paths()
        with pytest.raises(UnsafeRequest, match="carries credentials"):
            fetcher.fetch(target)  # a start URL or link with credentials: same refusal
        assert all("authorization" not in {k.lower() for k in r.headers} for r in server.requests)
    finally:
        server.stop()


def test_link_local_refused_even_with_private_networks_allowed() -> None:
    server = serve({"/a": redirect("http://169.254.169.254/latest/meta-data/"), "/b": ok()})
    config = replace(CONFIG, allow_private_networks=True)
    try:
        with PoliteFetcher(config) as f:
            with pytest.raises(UnsafeRequest, match="link-local or cloud-metadata") as info:
                f.fetch(server.url("/a"))
            assert "[fetch] allow_link_local" in str(info.value)
            assert f.fetch(server.url("/b")).status == 200  # loopback itself is allowed
    finally:
        server.stop()


def test_link_local_named_explicitly_is_allowed() -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["169.254.10.5"]

    url = "http://device.local/status"
    with pytest.raises(UnsafeRequest, match="link-local"):
        check_address(url, allow_private=True, resolver=resolver)
    assert check_address(
        url, allow_private=True, resolver=resolver, allow_link_local="169.254.10.0/24"
    ) == ["169.254.10.5"]
    with pytest.raises(UnsafeRequest, match="link-local"):
        check_address(
            "http://169.254.169.254/", allow_private=True, allow_link_local="169.254.10.0/24"
        )


def test_loopback_refusal_names_both_ways_to_allow_it() -> None:
    server = serve({"/a": ok()})
    try:
        config = replace(CONFIG, allow_private_networks=False)
        with PoliteFetcher(config) as f, pytest.raises(UnsafeRequest) as info:
            f.fetch(server.url("/a"))
        assert "[fetch] allow_private_networks" in str(info.value)
        assert "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS" in str(info.value)
    finally:
        server.stop()


def test_connection_refused_leads_the_message() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with PoliteFetcher(CONFIG) as f, pytest.raises(RobotsDisallowed) as info:
        f.fetch(f"http://127.0.0.1:{port}/list")
    assert str(info.value).startswith(f"cannot connect to 127.0.0.1:{port} (connection refused)")
