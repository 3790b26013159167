"""MockFetcher: routes → responses, the polite fetcher's errors, WARC archiving, the factory."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorpath._config import FetchConfig
from anchorpath._errors import FetchFailed, OriginBlocked
from anchorpath.fetch.mock import MockFetcher
from anchorpath.fetch.protocol import Fetcher
from anchorpath.fetch.result import FetchResult
from anchorpath.fetch.warc import WarcReader, WarcWriter


def test_routes_answer_and_errors_match_the_polite_fetcher() -> None:
    mock = MockFetcher(
        {
            "http://x/a": (200, {"Content-Type": "text/html; charset=UTF-8"}, b"hi"),
            "http://x/b": b"<p>b</p>",
            "http://x/403": (403, {}, b""),
        }
    )
    result = mock.fetch("http://x/a")
    assert result.body == b"hi" and result.charset == "utf-8"
    assert mock.fetch("http://x/b").headers["content-type"].startswith("text/html")
    with pytest.raises(FetchFailed):
        mock.fetch("http://x/missing")
    with pytest.raises(OriginBlocked):
        mock.fetch("http://x/403")
    assert [u for u, _, _ in mock.calls] == [
        "http://x/a",
        "http://x/b",
        "http://x/missing",
        "http://x/403",
    ]
    results = dict(mock.fetch_many(["http://x/a", "http://x/c"]))
    assert isinstance(results["http://x/c"], FetchFailed)
    assert mock.counters.ok_2xx == 3 and mock.counters.auth_401_403 == 1


def test_every_answer_is_archived_before_it_is_returned(tmp_path: Path) -> None:
    seen: list[int] = []
    warc = tmp_path / "run.warc.gz"

    def after(result: FetchResult) -> None:  # the page is in the WARC by now
        seen.append(len(list(WarcReader([warc]).responses())))

    with MockFetcher(
        {"http://x/a": b"A", "http://x/b": (404, {}, b"")}, warc=WarcWriter(warc), after=after
    ) as mock:
        mock.fetch("http://x/a")
        with pytest.raises(FetchFailed):
            mock.fetch("http://x/b")
    assert seen == [1]
    assert [(u, s, b) for u, s, _, b in WarcReader([warc]).responses()] == [
        ("http://x/a", 200, b"A"),
        ("http://x/b", 404, b""),
    ]


def test_factory_makes_one_archiving_fetcher_per_run(tmp_path: Path) -> None:
    made: list[MockFetcher] = []
    factory = MockFetcher.factory({"http://x/a": b"A"}, made=made)
    fetcher: Fetcher = factory(FetchConfig(), tmp_path / "a.warc.gz", tmp_path, lambda e: None)
    fetcher.fetch("http://x/a")
    fetcher.close()
    assert made == [fetcher] and (tmp_path / "a.warc.gz").stat().st_size > 0
