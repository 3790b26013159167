"""Seed loading: files, URLs through a fetch callable (no network), hashes of the bytes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.seeds import load_seed

EUC = "<html><head><meta charset='euc-kr'></head><body>성분명</body></html>".encode("euc-kr")


def test_file_seed(tmp_path: Path) -> None:
    p = tmp_path / "a.html"
    p.write_bytes(EUC)
    s = load_seed(str(p))
    assert "성분명" in s.html and s.sha256 == hashlib.sha256(EUC).hexdigest()
    assert s.url.startswith("file://") and s.source == str(p)
    assert load_seed(str(p), url="http://x.test/a").url == "http://x.test/a"


def test_url_seed_with_callable_and_fetcher_object() -> None:
    s = load_seed("http://x.test/p", fetch=lambda url: EUC)
    assert "성분명" in s.html and s.url == "http://x.test/p"

    @dataclass
    class Result:
        body: bytes
        charset: str | None
        final_url: str

    class Fetcher:
        def fetch(self, url: str) -> Result:
            return Result(EUC, "euc-kr", url + "?final")

    s = load_seed("http://x.test/p", fetch=Fetcher())
    assert s.url == "http://x.test/p?final" and s.source == "http://x.test/p"


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(AuthoringError, match="no fetcher"):
        load_seed("https://x.test/")
    with pytest.raises(AuthoringError, match=r"missing\.html: cannot read"):
        load_seed(str(tmp_path / "missing.html"))
