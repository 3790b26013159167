"""Seed loading: files, URLs through a fetch callable (no network), hashes of the bytes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.seeds import load_seed
from anchorpath.fetch.mock import MockFetcher
from anchorpath.fetch.result import FetchResult

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

    final = FetchResult(
        "http://x.test/p", "http://x.test/p?final", 200, {}, EUC, "euc-kr", False, 0.0
    )
    s = load_seed("http://x.test/p", fetch=MockFetcher({"http://x.test/p": final}))
    assert s.url == "http://x.test/p?final" and s.source == "http://x.test/p"


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(AuthoringError, match="no fetcher"):
        load_seed("https://x.test/")
    with pytest.raises(AuthoringError, match=r"missing\.html: cannot read"):
        load_seed(str(tmp_path / "missing.html"))
