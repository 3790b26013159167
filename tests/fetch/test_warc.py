"""WARC writer/reader round trip, read back with warcio itself."""

from __future__ import annotations

import gzip
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from anchorpath.fetch.warc import WarcReader, WarcWriter


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "a.warc.gz"
    with WarcWriter(path) as warc:
        warc.write_exchange(
            url="http://h/a",
            method="GET",
            request_headers=[("User-Agent", "t")],
            status=200,
            reason="OK",
            response_headers=[("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
            payload=gzip.compress(b"<p>one</p>"),
        )
        rid = warc.write_exchange(
            url="http://h/a",
            method="GET",
            request_headers=[],
            status=200,
            reason="OK",
            response_headers=[("Content-Type", "text/html")],
            payload=b"<p>two</p>",
        )
        warc.write_exchange(
            url="http://h/big",
            method="GET",
            request_headers=[],
            status=200,
            reason="OK",
            response_headers=[],
            payload=b"partial",
            truncated="length",
        )
        warc.write_exchange(
            url="http://h/bomb",
            method="GET",
            request_headers=[],
            status=200,
            reason="OK",
            response_headers=[("Content-Encoding", "gzip")],
            payload=gzip.compress(bytes(3_000_000)),
        )
        warc.write_conversion(
            url="http://h/a", body=b"<p>rendered</p>", content_type="text/html", refers_to=rid
        )
    # Appending to the same file keeps earlier records (one WARC per run, reopened safely).
    with WarcWriter(path):
        pass
    with path.open("rb") as fh:
        types = [r.rec_type for r in ArchiveIterator(fh)]
    assert types == ["warcinfo"] + ["request", "response"] * 4 + ["conversion"]
    reader = WarcReader(path, max_body_bytes=1_000_000)
    assert [(u, b) for u, _, _, b in reader.responses()] == [
        ("http://h/a", b"<p>one</p>"),
        ("http://h/a", b"<p>two</p>"),
    ]
    latest = reader.get("http://h/a")
    assert latest is not None and latest[3] == b"<p>two</p>"
    assert reader.get("http://h/big") is None  # truncated records are not replayed
    assert list(reader.rendered()) == [("http://h/a", b"<p>rendered</p>")]
