"""The URL a saved page declares: ``<base href>`` > canonical > ``og:url``; binary sniffing."""

from __future__ import annotations

import pytest

from anchorpath.selectors.page_url import declared_url, is_http_url, looks_binary


def test_order_base_then_canonical_then_og() -> None:
    head = (
        "<meta property='og:url' content='https://og.example/p'>"
        "<link rel='canonical' href='https://canon.example/p'>"
        "<base href='https://base.example/dir/'>"
    )
    found = declared_url(f"<html><head>{head}</head><body></body></html>")
    assert found is not None and (found.url, found.source) == (
        "https://base.example/dir/",
        "<base href>",
    )
    found = declared_url(f"<html><head>{head[: head.index('<base')]}</head></html>")
    assert found is not None and found.source == "<link rel=canonical>"
    found = declared_url("<html><head><meta property='og:url' content='https://og.example/p'>")
    assert found is not None and found.url == "https://og.example/p"


def test_relative_or_missing_urls_declare_nothing() -> None:
    assert declared_url("<html><head><link rel='canonical' href='/p/1'></head></html>") is None
    assert declared_url("<html><body><p>no head</p></body></html>") is None
    assert declared_url(b"") is None


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("http://127.0.0.1:18931", True),
        ("https://example.org/a?b=1", True),
        ("127.0.0.1:18931", False),
        ("not-a-url", False),
        ("file:///tmp/x.html", False),
        ("http://", False),
        ("http://host:99999/", False),
        ("http://host/a\x1b[2Jb", False),
        ("http://host/a b", False),
    ],
)
def test_is_http_url(url: str, ok: bool) -> None:
    assert is_http_url(url) is ok


def test_looks_binary() -> None:
    assert looks_binary(b"%PDF-1.7\n...")
    assert looks_binary(b"\x89PNG\r\n\x1a\n")
    assert looks_binary(b"abc\x00def")
    assert not looks_binary("<html>한국어</html>".encode("cp949"))
    assert not looks_binary("<html>x</html>".encode("utf-16"))
