"""URL normalisation (HTTP: The Definitive Guide, ch. 9) and trap guards."""

from __future__ import annotations

import pytest

from anchorpath.runner.crawl.urls import is_allowed, normalize_url, rewrite_origin, trap_reason


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://Example.COM/a", "http://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com/a#frag", "http://example.com/a"),
        ("http://example.com/%7Euser/%41b", "http://example.com/~user/Ab"),
        ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a?utm_source=x&id=3&fbclid=y", "http://example.com/a?id=3"),
        ("http://example.com/a;jsessionid=ABC?x=1", "http://example.com/a?x=1"),
        ("http://example.com/a?PHPSESSID=1&page=2", "http://example.com/a?page=2"),
        ("http://example.com/a?b=2&a=1", "http://example.com/a?b=2&a=1"),  # order kept
        ("http://example.com/list?q=%ED%95%9C", "http://example.com/list?q=%ED%95%9C"),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_normalize_drops_configured_params_and_is_idempotent() -> None:
    url = normalize_url("http://x.org/p?sess=9&page=2", drop_params=["sess"])
    assert url == "http://x.org/p?page=2"
    assert normalize_url(url) == url


def test_trap_guards() -> None:
    assert trap_reason("http://x.org/a/b/c") is None
    assert "longer" in (trap_reason("http://x.org/" + "a" * 3000) or "")
    assert "repeated" in (trap_reason("http://x.org/cal/cal/cal/cal/2024") or "")
    assert "segments" in (trap_reason("http://x.org/" + "/".join(str(i) for i in range(50))) or "")


def test_allow_deny_and_origin() -> None:
    starts = ["http://x.org/list"]
    assert is_allowed("http://x.org/detail/1", allow=[], deny=[], start_urls=starts)
    assert not is_allowed("http://y.org/detail/1", allow=[], deny=[], start_urls=starts)
    assert not is_allowed("http://x.org/logout", allow=[], deny=["/logout"], start_urls=starts)
    assert is_allowed("http://y.org/d", allow=[r"y\.org/d"], deny=[], start_urls=starts)


def test_rewrite_origin() -> None:
    assert (
        rewrite_origin("http://127.0.0.1:8765/list?page=1#x", "http://127.0.0.1:40123")
        == "http://127.0.0.1:40123/list?page=1#x"
    )
    assert rewrite_origin("http://a/b", None) == "http://a/b"
