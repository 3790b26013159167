"""Rendering pages with Playwright (sync API) and Debian Chromium, for ``render: browser``.

The fetcher calls :meth:`BrowserRenderer.render` while it holds the origin's gate, so robots.txt,
pacing and the global limit apply exactly as for plain HTTP. Inside the page, every sub-request
passes ``allow_request(page_url, url)``: other origins are blocked, as are paths robots.txt
disallows; images, media, fonts and stylesheets are never loaded (they do not change the DOM we
extract and would multiply the load on the site).

Playwright's sync objects belong to the thread that created them, so the browser lives on one
dedicated thread, launched lazily on the first render and stopped by :meth:`close`.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from anchorpath._errors import BrowserError, FetchFailed

__all__ = ["CHROMIUM_ARGS", "BrowserRenderer", "RenderedPage"]

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
_SKIPPED_TYPES = {"image", "media", "font", "stylesheet"}


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


class BrowserRenderer:
    """One headless Chromium on its own thread; thread-safe ``render()``."""

    def __init__(
        self,
        *,
        user_agent: str,
        timeout: float,
        allow_request: Callable[[str, str], bool],
        executable_path: str = CHROMIUM,
        screenshots: bool = False,
    ) -> None:
        self.user_agent = user_agent
        self.screenshots = screenshots
        self.timeout = timeout
        self.allow_request = allow_request
        self.executable_path = executable_path
        self._jobs: queue.Queue[tuple[str, Future[RenderedPage]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._ready: Future[None] = Future()
        self._lock = threading.Lock()

    def start(self) -> None:
        """Launch Chromium now (render() does it lazily); raises BrowserError on failure."""
        with self._lock:
            if self._thread is None:
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

    def render(self, url: str) -> RenderedPage:
        """Render ``url``; raises FetchFailed on navigation errors, BrowserError on launch."""
        self.start()
        done: Future[RenderedPage] = Future()
        self._jobs.put((url, done))
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
                try:
                    browser = pw.chromium.launch(
                        executable_path=self.executable_path, args=CHROMIUM_ARGS, headless=True
                    )
                except Exception as exc:
                    raise BrowserError(
                        f"{self.executable_path}: cannot launch Chromium: {exc}"
                    ) from exc
                context = browser.new_context(user_agent=self.user_agent, service_workers="block")
                self._ready.set_result(None)
                while True:
                    job = self._jobs.get()
                    if job is None:
                        break
                    url, done = job
                    try:
                        done.set_result(self._render_one(context, url))
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
                    job[1].set_exception(BrowserError(f"browser stopped: {exc}"))

    def _render_one(self, context: Any, url: str) -> RenderedPage:
        from playwright.sync_api import Error as PlaywrightError

        page = context.new_page()
        blocked = 0

        def route(route: Any) -> None:
            nonlocal blocked
            request = route.request
            if request.resource_type in _SKIPPED_TYPES or not self.allow_request(url, request.url):
                blocked += 1
                route.abort()
            else:
                route.continue_()

        try:
            page.route("**/*", route)
            try:
                response = page.goto(url, wait_until="load", timeout=self.timeout * 1000)
            except PlaywrightError as exc:
                raise FetchFailed(f"{url}: browser navigation failed: {exc}", url=url) from exc
            # Long-polling pages never go idle; the DOM after "load" is what we have then.
            with contextlib.suppress(PlaywrightError):
                page.wait_for_load_state("networkidle", timeout=5000)
            html = page.content()
            shot = b""
            if self.screenshots:
                with contextlib.suppress(PlaywrightError):
                    shot = page.screenshot(full_page=True, type="png")
            if response is None:
                return RenderedPage(page.url, None, {}, b"", html, blocked, shot)
            try:
                main_body = response.body()
            except PlaywrightError:
                main_body = b""
            headers = {k.lower(): v for k, v in response.headers.items()}
            return RenderedPage(page.url, response.status, headers, main_body, html, blocked, shot)
        finally:
            page.close()
