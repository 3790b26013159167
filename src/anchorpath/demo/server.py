"""The demo site's HTTP server: stdlib ``ThreadingHTTPServer`` on 127.0.0.1, in a thread.

Routes (every page CP949 bytes, ``Content-Type: text/html; charset=euc-kr``):

* ``/robots.txt`` – disallows ``/admin/`` and ``/member/`` (``robots-deny`` mode: everything)
* ``/`` – home page
* ``/dmf/list.do?page=K[&searchKeyword=...]`` – listing, 10 records a page
* ``/dmf/view.do?regNo=...`` – detail page (UTF-8 percent-encoding; CP949 accepted too),
  404 for an unknown or withdrawn registration number
* ``/admin/...`` – answers 200, but robots.txt forbids it: a polite crawler never asks
* ``/static/...`` – tiny CSS/JS; anything else – 404

Pages carry a strong ``ETag`` (hash of the bytes) and a ``Last-Modified`` (the demo day on
which the page last changed, 00:00 KST) and answer ``If-None-Match`` / ``If-Modified-Since``
with 304 (``If-None-Match`` wins when both are sent, RFC 9110 §13.2.2).

Modes: ``normal``; ``refuse`` – 403 on everything but robots.txt; ``login`` – list and detail
pages answer 200 with a password form (a login wall); ``robots-deny`` – robots.txt disallows
everything (pages are still served: the server does not enforce robots).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final
from urllib.parse import unquote_to_bytes, urlsplit

from anchorpath.demo import data, pages

__all__ = ["MODES", "DemoServer", "RequestLogEntry"]

MODES: Final = ("normal", "refuse", "login", "robots-deny")
_KST = dt.timezone(dt.timedelta(hours=9))
_HTML_TYPE = f"text/html; charset={pages.CHARSET}"

#: (time.time(), method, path with query, status)
RequestLogEntry = tuple[float, str, str, int]

_STATIC: dict[str, tuple[str, bytes]] = {
    "/static/css/common.css": ("text/css", b"body{font-family:Gulim,sans-serif}\n"),
    "/static/css/renewal.css": ("text/css", b"body{font-family:'Noto Sans KR',sans-serif}\n"),
    "/static/js/common.js": ("application/javascript", b"/* demo */\n"),
}


class _Response:
    __slots__ = ("body", "content_type", "status", "validators")

    def __init__(
        self, status: int, body: bytes, content_type: str = _HTML_TYPE, validators: bool = False
    ) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.validators = validators


def _published(day: int) -> dt.datetime:
    """When ``day``'s edition went online: 00:00 KST of the day's date."""
    return dt.datetime.combine(data.day_date(day), dt.time(0, 0), tzinfo=_KST)


def _decode_param(raw: str) -> str:
    # Links carry UTF-8 percent-encoding; a browser on an EUC-KR page may send CP949 instead.
    octets = unquote_to_bytes(raw.replace("+", " "))
    try:
        return octets.decode("utf-8")
    except UnicodeDecodeError:
        return octets.decode("cp949", errors="replace")


def _query(query: str) -> dict[str, str]:
    # urllib's parse_qsl decodes as UTF-8 with replacement; decode ourselves to accept CP949.
    out: dict[str, str] = {}
    for part in query.split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        out.setdefault(_decode_param(name), _decode_param(value))
    return out


class _Site:
    """What the server shows: day, mode, template; renders pages and remembers validators."""

    def __init__(self, day: int, mode: str, template: str | None) -> None:
        self.lock = threading.Lock()
        self.day = day
        self.mode = mode
        self.template = template
        # (path, day, template override) -> sha256 of the body; for Last-Modified.
        self._digests: dict[tuple[str, int, str | None], str | None] = {}

    def template_for(self, day: int) -> str:
        return self.template or data.template_for_day(day)

    def page(self, path: str, query: dict[str, str], day: int) -> _Response:
        """Render ``path`` as it is on ``day`` (mode-independent)."""
        template = self.template_for(day)
        if path in ("/", "/index.do"):
            return _Response(
                200, pages.encode_page(pages.render_home(template, day)), validators=True
            )
        if path == "/dmf/list.do":
            raw_page = query.get("page", "1").strip() or "1"
            if not raw_page.isdigit() or int(raw_page) < 1:
                return _error(400, f"잘못된 페이지 번호입니다: {raw_page}")
            keyword = query.get("searchKeyword", "").strip() or None
            records = data.records_for_day(day)
            if keyword:
                records = tuple(
                    r
                    for r in records
                    if keyword in r.ingredient or keyword in r.applicant or keyword in r.reg_no
                )
            html = pages.render_list(records, int(raw_page), template=template, keyword=keyword)
            return _Response(200, pages.encode_page(html), validators=True)
        if path == "/dmf/view.do":
            reg_no = query.get("regNo", "")
            records = data.records_for_day(day)
            for i, record in enumerate(records):
                if record.reg_no == reg_no:
                    html = pages.render_detail(
                        record,
                        template=template,
                        prev=records[i - 1] if i > 0 else None,
                        next_=records[i + 1] if i + 1 < len(records) else None,
                    )
                    return _Response(200, pages.encode_page(html), validators=True)
            return _error(404, "해당 등록번호의 공고를 찾을 수 없습니다.")
        if path == "/admin" or path.startswith("/admin/"):
            return _Response(200, pages.encode_page(pages.render_admin()))
        if path in _STATIC:
            content_type, body = _STATIC[path]
            return _Response(200, body, content_type)
        return _error(404, "요청하신 페이지를 찾을 수 없습니다.")

    def digest(self, path: str, query: dict[str, str], day: int) -> str | None:
        key = (
            path + "?" + "&".join(f"{k}={v}" for k, v in sorted(query.items())),
            day,
            self.template,
        )
        with self.lock:
            if key in self._digests:
                return self._digests[key]
        response = self.page(path, query, day)
        value = hashlib.sha256(response.body).hexdigest() if response.status == 200 else None
        with self.lock:
            self._digests[key] = value
        return value

    def last_modified(self, path: str, query: dict[str, str], day: int) -> dt.datetime:
        """The start of the earliest day from which this page's bytes stayed the same."""
        current = self.digest(path, query, day)
        first = day
        while first > 1 and self.digest(path, query, first - 1) == current:
            first -= 1
        return _published(first)


def _error(status: int, message: str) -> _Response:
    return _Response(status, pages.encode_page(pages.render_error(status, message)))


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:24] + '"'


def _etag_matches(header: str, etag: str) -> bool:
    # Weak comparison (RFC 9110 §13.1.2): W/ prefixes are ignored for If-None-Match.
    if header.strip() == "*":
        return True
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return etag in tags


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    # Headers and body leave in two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK of the headers (~40 ms on Linux). Real servers send at once.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_version = "DemoBoard/1.0"
    sys_version = ""

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        """Quiet: requests go to ``DemoServer.request_log``, not stderr."""

    def _serve(self, head: bool) -> None:
        site = self.server.site
        if self.server.latency:
            time.sleep(self.server.latency)
        with site.lock:
            day, mode = site.day, site.mode
        parts = urlsplit(self.path)
        path = parts.path or "/"
        query = _query(parts.query)

        if path == "/robots.txt":
            body = pages.robots_txt(deny_all=mode == "robots-deny").encode("utf-8")
            self._send(_Response(200, body, "text/plain; charset=utf-8"), head)
            return
        if mode == "refuse":
            self._send(_error(403, "접근이 거부되었습니다."), head)
            return
        if mode == "login" and path in ("/dmf/list.do", "/dmf/view.do"):
            html = pages.render_login(site.template_for(day))
            self._send(_Response(200, pages.encode_page(html)), head)
            return

        response = site.page(path, query, day)
        if response.status == 200 and response.validators:
            etag = _etag(response.body)
            last_modified = site.last_modified(path, query, day)
            extra = {
                "ETag": etag,
                "Last-Modified": email.utils.format_datetime(
                    last_modified.astimezone(dt.UTC), usegmt=True
                ),
                "Cache-Control": "no-cache",
            }
            if self._not_modified(etag, last_modified):
                self._send(_Response(304, b""), head=True, extra=extra)
                return
            self._send(response, head, extra)
            return
        self._send(response, head)

    def _not_modified(self, etag: str, last_modified: dt.datetime) -> bool:
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            return _etag_matches(inm, etag)
        ims = self.headers.get("If-Modified-Since")
        if ims is None:
            return False
        try:
            since = email.utils.parsedate_to_datetime(ims)
        except (TypeError, ValueError):
            return False  # an unparsable date is ignored (RFC 9110 §13.1.3)
        if since.tzinfo is None:
            since = since.replace(tzinfo=dt.UTC)
        return last_modified <= since

    def _send(self, response: _Response, head: bool, extra: dict[str, str] | None = None) -> None:
        # Logged before any byte goes out, so a client that has its answer sees it logged.
        self.server.log_request_entry(self.command, self.path, response.status)
        self.send_response(response.status)
        if response.status != 304:
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if not head and response.status != 304:
            self.wfile.write(response.body)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # Re-binding a fixed port right after a previous test's server is common in tests.
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], site: _Site, latency: float) -> None:
        super().__init__(address, _Handler)
        self.site = site
        self.latency = latency
        self.log: list[RequestLogEntry] = []
        self.log_lock = threading.Lock()

    def log_request_entry(self, method: str, path: str, status: int) -> None:
        with self.log_lock:
            self.log.append((time.time(), method, path, status))

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a client hanging up mid-response is normal for a crawler under test."""
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError):
            return
        print(f"demo server: error serving {client_address}: {exc!r}", file=sys.stderr)


class DemoServer:
    """The demo site in a background thread, on 127.0.0.1.

    >>> with DemoServer(day=1) as site:  # doctest: +SKIP
    ...     print(site.base_url)            # http://127.0.0.1:54321
    ...     site.set_day(2)

    ``port=0`` picks a free port. ``template`` forces ``"classic"`` or ``"renewal"`` on every
    day (default: the day's own template). ``latency`` (seconds) delays every response, for
    tests that need to interrupt a crawl mid-way.
    """

    def __init__(
        self,
        day: int = 1,
        port: int = 0,
        mode: str = "normal",
        *,
        template: str | None = None,
        host: str = "127.0.0.1",
        latency: float = 0.0,
    ) -> None:
        data.day_date(day)  # validates the day
        _check_mode(mode)
        if template not in (None, data.TEMPLATE_CLASSIC, data.TEMPLATE_RENEWAL):
            raise ValueError(f"unknown demo template {template!r}")
        self._site = _Site(day, mode, template)
        self._address = (host, port)
        self._latency = latency
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._log_snapshot: list[RequestLogEntry] = []
        self._port: int | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> DemoServer:
        """Bind and serve in a daemon thread; returns ``self``."""
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer(self._address, self._site, self._latency)
        self._port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"anchorpath-demo-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._log_snapshot = list(self._httpd.log)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- state ----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`; still known after :meth:`stop`)."""
        if self._port is None:
            raise RuntimeError("demo server was never started")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://{self._address[0]}:{self.port}"

    @property
    def day(self) -> int:
        with self._site.lock:
            return self._site.day

    @property
    def mode(self) -> str:
        with self._site.lock:
            return self._site.mode

    def set_day(self, day: int) -> None:
        """Serve ``day``'s data and template from the next request on."""
        data.day_date(day)
        with self._site.lock:
            self._site.day = day

    def set_mode(self, mode: str) -> None:
        """Switch between :data:`MODES` from the next request on."""
        _check_mode(mode)
        with self._site.lock:
            self._site.mode = mode

    @property
    def request_log(self) -> list[RequestLogEntry]:
        """Every answered request so far: ``(time, method, path, status)`` (a copy)."""
        if self._httpd is None:
            return list(self._log_snapshot)
        with self._httpd.log_lock:
            return list(self._httpd.log)

    def clear_log(self) -> None:
        """Forget the requests logged so far."""
        if self._httpd is not None:
            with self._httpd.log_lock:
                self._httpd.log.clear()
        self._log_snapshot = []

    def url(self, path: str) -> str:
        """Absolute URL of a path on this server (``/dmf/list.do?page=1``)."""
        return self.base_url + path

    def list_url(self, page: int = 1) -> str:
        """Absolute URL of listing page ``page``."""
        return self.url(pages.list_path(page))

    def detail_url(self, reg_no: str) -> str:
        """Absolute URL of a record's detail page."""
        return self.url(pages.detail_path(reg_no))


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown demo mode {mode!r} (choose from {', '.join(MODES)})")
