"""Rendering pages with Playwright (sync API) and Debian Chromium, for ``render: browser``.

The fetcher calls :meth:`BrowserRenderer.render` while it holds the origin's gate, so robots.txt,
pacing and the global limit apply exactly as for plain HTTP. Inside the page, every sub-request
passes ``allow_request(page_url, url)``: other origins are blocked, as are paths robots.txt
disallows; images, media, fonts and stylesheets are never loaded (they do not change the DOM we
extract and would multiply the load on the site).

Playwright's sync objects belong to the thread that created them, so the browser lives on one
dedicated thread, launched lazily on the first render and stopped by :meth:`close`; one browser
and one context serve every page of a run.

Waiting: navigation returns at ``domcontentloaded``; then, when the caller names the page type's
anchor (``wait_for``, an XPath such as the record root), the renderer waits until that node is
in the DOM (scripts that build the list have run) — not for a fixed network-idle period, which
costs at least half a second per page and never comes on pages that poll. Without an anchor it
waits for the ``load`` event, bounded.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anchorpath._errors import BrowserError, FetchFailed
from anchorpath.fetch.safety import GENERIC_CONTENT_TYPES, sniffs_as_html

if TYPE_CHECKING:  # Playwright is imported when a browser starts, not with this module
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route

__all__ = [
    "CHROMIUM_ARGS",
    "WAIT_SECONDS",
    "BrowserRenderer",
    "RenderedPage",
    "chromium",
    "chromium_executable",
    "launch_chromium",
]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: How long a render waits for ``wait_for`` (or the ``load`` event), at most the timeout.
WAIT_SECONDS = 5.0
_SKIPPED_TYPES = {"image", "media", "font", "stylesheet"}


def chromium_executable(env: Mapping[str, str] | None = None) -> str:
    """The Chromium every browser of anchorpath runs (the runner's renderer, authoring's
    seed renders and the session's screenshots): ``ANCHORPATH_CHROMIUM``, else ``chromium`` on
    the PATH, else Debian's path."""
    env = os.environ if env is None else env
    return env.get("ANCHORPATH_CHROMIUM") or shutil.which("chromium") or CHROMIUM


@contextlib.contextmanager
def chromium(executable: str, *, failing: str) -> Iterator[Browser]:
    """A headless Chromium for the length of a ``with`` block (Playwright started and
    stopped with it); a Playwright error inside the block becomes a BrowserError that starts
    with ``failing``."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise BrowserError(f"playwright is not installed: {exc}") from exc
    try:
        with sync_playwright() as pw:
            browser = launch_chromium(pw, executable)
            try:
                yield browser
            finally:
                browser.close()
    except PlaywrightError as exc:
        raise BrowserError(f"{failing}: {exc}") from exc


def launch_chromium(playwright: Playwright, executable: str) -> Browser:
    """Headless Chromium, launched by a started Playwright with :data:`CHROMIUM_ARGS`; a
    BrowserError naming the executable when it cannot start."""
    try:
        return playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, headless=True
        )
    except Exception as exc:
        raise BrowserError(f"{executable}: cannot launch Chromium: {exc}") from exc


_MAX_CACHED_SCRIPTS = 64


@dataclass(frozen=True)
class RenderedPage:
    """The main document's response and the DOM after scripts ran."""

    final_url: str
    status: int | None
    headers: dict[str, str]
    main_body: bytes  # the main document as the server sent it (decoded)
    html: str  # rendered DOM
    blocked: int  # sub-requests refused (third-party, robots, skipped types)
    screenshot: bytes = b""  # full-page PNG, when the renderer was asked for screenshots
    seconds: float = 0.0  # navigation plus waiting for the content
    anchored: bool = False  # the wait_for anchor appeared in time
    loaded: tuple[str, ...] = ()  # data requests (XHR/fetch) the page's scripts made


class BrowserRenderer:
    """One headless Chromium on its own thread; thread-safe ``render()``."""

    def __init__(
        self,
        *,
        user_agent: str,
        timeout: float,
        allow_request: Callable[[str, str], bool],
        executable_path: str | None = None,
        screenshots: bool = False,
    ) -> None:
        self.user_agent = user_agent
        self.screenshots = screenshots
        self.timeout = timeout
        self.allow_request = allow_request
        self.executable_path = executable_path or chromium_executable()
        self._jobs: queue.Queue[tuple[str, str | None, Future[RenderedPage]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._ready: Future[None] = Future()
        self._lock = threading.Lock()
        self.launch_seconds = 0.0
        # Browser-thread state: the run's one tab, the URL it renders, requests blocked.
        self._page: Page | None = None
        self._page_url = ""
        self._blocked = 0
        self._loaded: list[str] = []
        self._scripts: dict[str, tuple[int, dict[str, str], bytes]] = {}
        #: the main document is fetched here and handed to Chromium as text/html when its
        #: bytes are HTML (set after Chromium took a generic Content-Type for a download)
        self._sniff_main = False

    def start(self) -> float:
        """Launch Chromium now (render() does it lazily); raises BrowserError on failure.
        Returns the seconds the launch took when this call launched it, else 0."""
        launched = False
        with self._lock:
            if self._thread is None:
                launched = True
                t0 = time.perf_counter()
                self._thread = threading.Thread(
                    target=self._run, name="anchorpath-browser", daemon=True
                )
                self._thread.start()
        try:
            self._ready.result(timeout=max(self.timeout, 60.0))
        except BrowserError:
            raise
        except Exception as exc:
            raise BrowserError(f"{self.executable_path}: Chromium did not start: {exc}") from exc
        if not launched:
            return 0.0
        self.launch_seconds = time.perf_counter() - t0
        return self.launch_seconds

    def render(self, url: str, *, wait_for: str | None = None) -> RenderedPage:
        """Render ``url``, waiting for the XPath ``wait_for`` when given; raises FetchFailed
        on navigation errors, BrowserError on launch."""
        self.start()
        done: Future[RenderedPage] = Future()
        self._jobs.put((url, wait_for, done))
        return done.result()

    def close(self) -> None:
        """Stop the browser thread (waits for the current render)."""
        with self._lock:
            thread = self._thread
        if thread is not None and thread.is_alive():
            self._jobs.put(None)
            thread.join(timeout=30)

    def _run(self) -> None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            self._ready.set_exception(BrowserError(f"playwright is not installed: {exc}"))
            return
        try:
            with sync_playwright() as pw:
                browser = launch_chromium(pw, self.executable_path)
                context = browser.new_context(user_agent=self.user_agent, service_workers="block")
                context.route("**/*", self._route)
                self._ready.set_result(None)
                while True:
                    job = self._jobs.get()
                    if job is None:
                        break
                    url, wait_for, done = job
                    try:
                        done.set_result(self._render_one(context, url, wait_for))
                    except BaseException as exc:
                        done.set_exception(exc)
                context.close()
                browser.close()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            # Fail any queued job rather than leave its caller waiting.
            while True:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is not None:
                    job[2].set_exception(BrowserError(f"browser stopped: {exc}"))

    def _route(self, route: Route) -> None:
        """Every request of the page (main document and sub-requests) passes here."""
        request = route.request
        if request.resource_type in _SKIPPED_TYPES or not self.allow_request(
            self._page_url, request.url
        ):
            self._blocked += 1
            route.abort()
            return
        if request.resource_type in ("xhr", "fetch") and len(self._loaded) < 100:
            self._loaded.append(request.url)
        if self._sniff_main and request.is_navigation_request() and request.method == "GET":
            self._sniffed(route)
            return
        if request.resource_type != "script" or request.method != "GET":
            route.continue_()
            return
        # Routing turns Chromium's HTTP cache off: the site's scripts, the same on every page
        # of a run, are fetched once and replayed from memory (less load on the site too).
        cached = self._scripts.get(request.url)
        if cached is None:
            response = route.fetch()
            cached = (response.status, dict(response.headers), response.body())
            if 200 <= cached[0] < 300 and len(self._scripts) < _MAX_CACHED_SCRIPTS:
                self._scripts[request.url] = cached
        route.fulfill(status=cached[0], headers=cached[1], body=cached[2])

    def _sniffed(self, route: Route) -> None:
        """The main document as the server sent it, but as text/html when the server called
        it ``application/octet-stream`` (or another generic type) and its bytes are HTML."""
        response = route.fetch(max_redirects=0)
        headers = dict(response.headers)
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        body = response.body()
        if media in GENERIC_CONTENT_TYPES and sniffs_as_html(body):
            headers["content-type"] = "text/html"
            route.fulfill(status=response.status, headers=headers, body=body)
            return
        route.fulfill(response=response)

    def _render_one(self, context: BrowserContext, url: str, wait_for: str | None) -> RenderedPage:
        """One page, on the run's one tab (a new tab costs more than the page itself); the
        DOM is read in the same round trip that checks the anchor."""
        from playwright.sync_api import Error as PlaywrightError

        started = time.perf_counter()
        if self._page is None or self._page.is_closed():
            self._page = context.new_page()
        page = self._page
        self._page_url = url
        self._blocked = 0
        self._loaded = []
        try:
            try:
                response = page.goto(
                    url, wait_until="domcontentloaded", timeout=self.timeout * 1000
                )
            except PlaywrightError as exc:
                if "Download is starting" not in str(exc):
                    raise FetchFailed(f"{url}: browser navigation failed: {exc}", url=url) from exc
                # A page served as application/octet-stream: Chromium downloads it. Once more,
                # with the document's bytes sniffed as a browser without a type would.
                self._sniff_main = True
                try:
                    response = page.goto(
                        url, wait_until="domcontentloaded", timeout=self.timeout * 1000
                    )
                except PlaywrightError as again:
                    raise FetchFailed(
                        f"{url}: browser navigation failed: {again} (served as a download, "
                        "and its bytes are not HTML)",
                        url=url,
                    ) from again
                finally:
                    self._sniff_main = False
            budget = min(self.timeout, WAIT_SECONDS) * 1000
            html = page.evaluate(_READ_DOM, wait_for) if wait_for else None
            anchored = html is not None
            if wait_for and not anchored:
                # Scripts are still building the content: wait for the anchor to appear.
                with contextlib.suppress(PlaywrightError):
                    page.wait_for_selector(f"xpath={wait_for}", state="attached", timeout=budget)
                    anchored = True
            if not anchored:
                with contextlib.suppress(PlaywrightError):
                    page.wait_for_load_state("load", timeout=budget)
            if html is None:
                html = str(page.evaluate(_READ_DOM, None))
            shot = b""
            if self.screenshots:
                with contextlib.suppress(PlaywrightError):
                    shot = page.screenshot(full_page=True, type="png")
            seconds = time.perf_counter() - started
            blocked = self._blocked
            loaded = tuple(dict.fromkeys(self._loaded))
            if response is None:
                return RenderedPage(
                    page.url, None, {}, b"", html, blocked, shot, seconds, anchored, loaded
                )
            try:
                main_body = response.body()
            except PlaywrightError:
                main_body = b""
            headers = {k.lower(): v for k, v in response.headers.items()}
            return RenderedPage(
                page.url,
                response.status,
                headers,
                main_body,
                html,
                blocked,
                shot,
                seconds,
                anchored,
                loaded,
            )
        except BaseException:
            # A tab in an unknown state is not reused.
            with contextlib.suppress(PlaywrightError):
                page.close()
            self._page = None
            raise


#: The serialised DOM (doctype included), or null while the anchor XPath finds nothing.
_READ_DOM = """(xp) => {
  if (xp) {
    let hit = null;
    try {
      hit = document.evaluate(xp, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null)
        .singleNodeValue;
    } catch (e) {
      hit = document.documentElement;  // an XPath the browser cannot run: do not wait for it
    }
    if (!hit) return null;
  }
  const d = document.doctype;
  return (d ? new XMLSerializer().serializeToString(d) + "\\n" : "")
    + document.documentElement.outerHTML;
}"""
