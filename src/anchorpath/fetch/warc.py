"""The raw archive: every request/response pair (robots.txt included) as WARC records (warcio).

Records are written before anything parses the body, with the payload exactly as received
(still content-encoded). ``Transfer-Encoding`` is dropped from the stored headers because the
stored payload is already de-chunked; a response cut short by a safety cap carries
``WARC-Truncated: length``. Rendered browser pages add a ``conversion`` record that refers to
the response record of the main document.
"""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from anchorpath._errors import AnchorpathError, ArchiveError, UnsafeRequest
from anchorpath._version import __version__
from anchorpath.fetch.safety import decode_body

__all__ = [
    "BODY_OMITTED",
    "DELETED_PROFILE",
    "WarcReader",
    "WarcWriter",
    "rewrite_warc",
    "strip_bodies",
]

#: Header of a response record whose body was not kept (``policy.store_raw: false``): the
#: HTTP headers and the payload digest stay; readers skip it (there is nothing to replay).
BODY_OMITTED = "WARC-Anchorpath-Body"

#: ``WARC-Profile`` of the stub that replaces a deleted response (``anchorpath forget``).
DELETED_PROFILE = "https://anchorpath.dev/warc/deleted"

_DROP = {"transfer-encoding"}


class WarcWriter:
    """Append-only, thread-safe writer of one ``.warc.gz`` file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            new = not self.path.exists() or self.path.stat().st_size == 0
            self._fh = self.path.open("ab")
        except OSError as exc:
            raise ArchiveError(f"{self.path}: cannot open WARC for writing: {exc}") from exc
        self._writer = WARCWriter(self._fh, gzip=True)
        if new:
            info = {"software": f"anchorpath/{__version__}", "format": "WARC File Format 1.1"}
            self._write(self._writer.create_warcinfo_record(self.path.name, info))

    def write_exchange(
        self,
        *,
        url: str,
        method: str,
        request_headers: Sequence[tuple[str, str]],
        status: int,
        reason: str,
        response_headers: Sequence[tuple[str, str]],
        payload: bytes,
        truncated: str | None = None,
        ip: str | None = None,
    ) -> str:
        """Write a request and its response; returns the response record id."""
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        req_headers = StatusAndHeaders(
            f"{method} {target} HTTP/1.1", list(request_headers), is_http_request=True
        )
        resp_headers = StatusAndHeaders(
            f"{status} {reason or 'Unknown'}",
            [(k, v) for k, v in response_headers if k.lower() not in _DROP],
            protocol="HTTP/1.1",
        )
        extra: dict[str, str] = {}
        if ip:
            extra["WARC-IP-Address"] = ip
        if truncated:
            extra["WARC-Truncated"] = truncated
        with self._lock:
            response = self._writer.create_warc_record(
                url,
                "response",
                payload=io.BytesIO(payload),
                length=len(payload),
                http_headers=resp_headers,
                warc_headers_dict=extra,
            )
            record_id = str(response.rec_headers.get_header("WARC-Record-ID"))
            request = self._writer.create_warc_record(
                url,
                "request",
                payload=io.BytesIO(b""),
                length=0,
                http_headers=req_headers,
                warc_headers_dict={"WARC-Concurrent-To": record_id},
            )
            self._write_locked(request)
            self._write_locked(response)
        return record_id

    def write_conversion(
        self, *, url: str, body: bytes, content_type: str, refers_to: str | None = None
    ) -> None:
        """Write a derived document (a rendered DOM) for ``url``."""
        headers = {"Content-Type": content_type}
        if refers_to:
            headers["WARC-Refers-To"] = refers_to
        with self._lock:
            record = self._writer.create_warc_record(
                url,
                "conversion",
                payload=io.BytesIO(body),
                length=len(body),
                warc_content_type=content_type,
                warc_headers_dict={"WARC-Refers-To": refers_to} if refers_to else {},
            )
            self._write_locked(record)

    def _write(self, record: Any) -> None:
        with self._lock:
            self._write_locked(record)

    def _write_locked(self, record: Any) -> None:
        try:
            self._writer.write_record(record)
            self._fh.flush()
        except (OSError, ValueError) as exc:
            raise ArchiveError(f"{self.path}: cannot write WARC record: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> WarcWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Response = tuple[str, int, dict[str, str], bytes]


class WarcReader:
    """Replays responses from one or more WARC files (in order; later records win in get())."""

    def __init__(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        max_body_bytes: int = 20 * 1024 * 1024,
    ) -> None:
        if isinstance(paths, str | os.PathLike):
            paths = [paths]
        self.paths = [Path(p) for p in paths]
        self.max_body_bytes = max_body_bytes

    def _records(self, kinds: tuple[str, ...]) -> Iterator[Any]:
        for path in self.paths:
            try:
                with path.open("rb") as fh:
                    for record in ArchiveIterator(fh):
                        if record.rec_type in kinds:
                            yield record
            except OSError as exc:
                raise ArchiveError(f"{path}: cannot read WARC: {exc}") from exc
            except Exception as exc:  # warcio raises ArchiveLoadFailed and friends
                if isinstance(exc, AnchorpathError):
                    raise
                raise ArchiveError(f"{path}: corrupt WARC: {exc}") from exc

    def responses(self) -> Iterator[Response]:
        """``(url, status, headers, body)`` for every complete response; bodies are decoded."""
        for record in self._records(("response",)):
            rec = record.rec_headers
            if rec.get_header("WARC-Truncated") or rec.get_header(BODY_OMITTED):
                continue
            url = str(record.rec_headers.get_header("WARC-Target-URI"))
            http = record.http_headers
            status = int(http.get_statuscode() or 0)
            headers = {k.lower(): v for k, v in http.headers}
            raw = record.raw_stream.read()
            try:
                body = decode_body(
                    raw, headers.get("content-encoding"), max_bytes=self.max_body_bytes, url=url
                )
            except UnsafeRequest:
                continue  # archived as received (e.g. a compression bomb), never replayed
            yield url, status, headers, body

    def rendered(self) -> Iterator[tuple[str, bytes]]:
        """``(url, html)`` for every rendered page (conversion records)."""
        for record in self._records(("conversion",)):
            url = str(record.rec_headers.get_header("WARC-Target-URI"))
            yield url, record.content_stream().read()

    def get(self, url: str) -> Response | None:
        """The latest complete response archived for ``url``, or None."""
        found: Response | None = None
        for item in self.responses():
            if item[0] == url:
                found = item
        return found


#: ``(url, status, headers, decoded body)`` of one archived response -> drop it?
DropRule = Callable[[str, int, dict[str, str], bytes], bool]


def rewrite_warc(
    path: str | os.PathLike[str],
    drop: DropRule,
    *,
    note: str,
    stub_uri: Callable[[str], str],
    leaks: Callable[[bytes], bool],
    max_body_bytes: int = 20 * 1024 * 1024,
) -> int:
    """Rewrite the WARC file at ``path`` without the responses ``drop`` selects, each replaced
    by a revisit-style stub (``WARC-Profile`` :data:`DELETED_PROFILE`, the original payload
    digest, ``note`` in ``WARC-Anchorpath-Deletion``, target ``stub_uri(url)``, no HTTP headers
    or body); their requests and rendered conversions go too. Nothing is written when no
    response is dropped. The new file is read back, and must parse and hold nothing that
    ``leaks`` says is a deleted value, before it replaces the old one. Returns the number of
    responses dropped. Raises ArchiveError."""
    src = Path(path)
    tmp = src.with_name(f".{src.name}.rewrite")
    dropped: set[str] = set()
    plan: list[tuple[Any, bytes, bool]] = []
    try:
        with src.open("rb") as fh:
            for record in ArchiveIterator(fh):
                raw = record.raw_stream.read()
                gone = False
                if record.rec_type == "response":
                    url = str(record.rec_headers.get_header("WARC-Target-URI"))
                    http = record.http_headers
                    headers = {k.lower(): v for k, v in http.headers} if http else {}
                    try:
                        body = decode_body(
                            raw,
                            headers.get("content-encoding"),
                            max_bytes=max_body_bytes,
                            url=url,
                        )
                    except UnsafeRequest:
                        body = raw
                    status = int(http.get_statuscode() or 0) if http else 0
                    gone = drop(url, status, headers, body) or leaks(raw)
                    if gone:
                        dropped.add(str(record.rec_headers.get_header("WARC-Record-ID")))
                plan.append((record, raw, gone))
    except OSError as exc:
        raise ArchiveError(f"{src}: cannot read WARC: {exc}") from exc
    except Exception as exc:  # warcio's parse errors
        raise ArchiveError(f"{src}: corrupt WARC: {exc}") from exc
    if not dropped:
        return 0
    try:
        with tmp.open("wb") as out:
            writer = WARCWriter(out, gzip=True)
            for record, raw, gone in plan:
                rec = record.rec_headers
                concurrent = rec.get_header("WARC-Concurrent-To")
                refers = rec.get_header("WARC-Refers-To")
                if record.rec_type != "response" and (concurrent in dropped or refers in dropped):
                    continue
                if record.rec_type == "conversion" and leaks(raw):
                    continue
                if gone:
                    url = str(rec.get_header("WARC-Target-URI"))
                    stub = writer.create_warc_record(
                        stub_uri(url),
                        "revisit",
                        payload=io.BytesIO(b""),
                        length=0,
                        warc_headers_dict={
                            "WARC-Profile": DELETED_PROFILE,
                            "WARC-Payload-Digest": str(rec.get_header("WARC-Payload-Digest")),
                            "WARC-Date": str(rec.get_header("WARC-Date")),
                            "WARC-Anchorpath-Deletion": note,
                        },
                    )
                    writer.write_record(stub)
                    continue
                copy = writer.create_warc_record(
                    str(rec.get_header("WARC-Target-URI") or ""),
                    record.rec_type,
                    payload=io.BytesIO(raw),
                    length=len(raw),
                    warc_headers=rec,
                    http_headers=record.http_headers,
                )
                writer.write_record(copy)
        _verify(tmp, leaks)
        os.replace(tmp, src)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArchiveError(f"{src}: cannot rewrite WARC: {exc}") from exc
    except ArchiveError:
        tmp.unlink(missing_ok=True)
        raise
    return len(dropped)


def _verify(path: Path, leaks: Callable[[bytes], bool]) -> None:
    """Read a rewritten WARC back: it must parse, and no record may hold a deleted value."""
    try:
        with path.open("rb") as fh:
            for record in ArchiveIterator(fh):
                head = record.rec_headers.to_bytes() if record.rec_headers else b""
                http = record.http_headers.to_bytes() if record.http_headers else b""
                if leaks(head) or leaks(http) or leaks(record.raw_stream.read()):
                    raise ArchiveError(f"{path}: a deleted value is still in the rewritten WARC")
    except ArchiveError:
        raise
    except Exception as exc:
        raise ArchiveError(f"{path}: the rewritten WARC does not read back: {exc}") from exc


def strip_bodies(path: str | os.PathLike[str], note: str) -> int:
    """Rewrite the WARC file at ``path`` keeping every response's HTTP headers and payload
    digest but not its body (``BODY_OMITTED: note``), and no rendered conversions
    (``policy.store_raw: false``). The new file is read back before it replaces the old one.
    Returns the number of bodies dropped. Raises ArchiveError."""
    src = Path(path)
    tmp = src.with_name(f".{src.name}.strip")
    stripped = 0
    try:
        with src.open("rb") as fh, tmp.open("wb") as out:
            writer = WARCWriter(out, gzip=True)
            for record in ArchiveIterator(fh):
                raw = record.raw_stream.read()
                rec = record.rec_headers
                if record.rec_type == "conversion":
                    stripped += 1
                    continue
                if record.rec_type == "response" and raw and not rec.get_header(BODY_OMITTED):
                    stripped += 1
                    headers = {
                        "WARC-Payload-Digest": str(rec.get_header("WARC-Payload-Digest")),
                        "WARC-Date": str(rec.get_header("WARC-Date")),
                        BODY_OMITTED: note,
                    }
                    for name in ("WARC-IP-Address", "WARC-Truncated"):
                        if rec.get_header(name):
                            headers[name] = str(rec.get_header(name))
                    copy = writer.create_warc_record(
                        str(rec.get_header("WARC-Target-URI")),
                        "response",
                        payload=io.BytesIO(b""),
                        length=0,
                        warc_headers_dict=headers,
                        http_headers=record.http_headers,
                    )
                else:
                    copy = writer.create_warc_record(
                        str(rec.get_header("WARC-Target-URI") or ""),
                        record.rec_type,
                        payload=io.BytesIO(raw),
                        length=len(raw),
                        warc_headers=rec,
                        http_headers=record.http_headers,
                    )
                writer.write_record(copy)
        _verify(tmp, lambda data: False)
        os.replace(tmp, src)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArchiveError(f"{src}: cannot rewrite WARC: {exc}") from exc
    except ArchiveError:
        tmp.unlink(missing_ok=True)
        raise
    except Exception as exc:  # warcio's parse errors
        tmp.unlink(missing_ok=True)
        raise ArchiveError(f"{src}: corrupt WARC: {exc}") from exc
    return stripped
