"""Network-safety guards (pure functions)."""

from __future__ import annotations

import gzip
import zlib

import pytest

from anchorpath._errors import UnsafeRequest
from anchorpath.fetch.safety import (
    check_address,
    check_url,
    decode_body,
    is_public_address,
    origin_of,
)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("192.168.1.1", False),
        ("172.16.0.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("::1", False),
        ("fe80::1", False),
        ("fd00:ec2::254", False),
        ("::ffff:127.0.0.1", False),
        ("2606:4700::1111", True),
        ("224.0.0.1", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


def test_check_address_all_must_be_public() -> None:
    with pytest.raises(UnsafeRequest, match=r"10\.0\.0\.2"):
        check_address(
            "http://mixed.test/",
            allow_private=False,
            resolver=lambda h, p: ["93.184.216.34", "10.0.0.2"],
        )
    assert check_address("http://x/", allow_private=True, resolver=lambda h, p: ["127.0.0.1"])


def test_check_url() -> None:
    check_url("https://example.org/a?b=1", max_length=100)
    for bad in ("javascript:alert(1)", "ftp://h/x", "http://", "http://h:99999/"):
        with pytest.raises(UnsafeRequest):
            check_url(bad, max_length=100)
    with pytest.raises(UnsafeRequest, match="longer"):
        check_url("http://h/" + "a" * 200, max_length=100)


def test_origin_of() -> None:
    assert origin_of("HTTP://Example.ORG/a") == "http://example.org:80"
    assert origin_of("https://example.org:8443/") == "https://example.org:8443"


def test_decode_body_gzip_deflate_and_caps() -> None:
    data = b"hello " * 100
    assert decode_body(gzip.compress(data), "gzip", max_bytes=10_000, url="u") == data
    assert decode_body(zlib.compress(data), "deflate", max_bytes=10_000, url="u") == data
    raw_deflate = zlib.compressobj(wbits=-15)
    raw = raw_deflate.compress(data) + raw_deflate.flush()
    assert decode_body(raw, "deflate", max_bytes=10_000, url="u") == data
    assert (
        decode_body(gzip.compress(b"a") + gzip.compress(b"b"), "gzip", max_bytes=9, url="u")
        == b"ab"
    )
    bomb = gzip.compress(bytes(5_000_000))
    with pytest.raises(UnsafeRequest, match="bomb"):
        decode_body(bomb, "gzip", max_bytes=1_000_000, url="u")
    with pytest.raises(UnsafeRequest, match="Content-Encoding"):
        decode_body(b"x", "br", max_bytes=10, url="u")
    with pytest.raises(UnsafeRequest, match="larger"):
        decode_body(b"x" * 11, None, max_bytes=10, url="u")
