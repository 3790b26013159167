"""Seed pages rendered by Chromium (Playwright, Debian's ``chromium``), for LLM authoring.

URL seeds go through the same polite fetcher as runs (robots.txt, pacing, network safety,
stop conditions) with ``render="browser"``: third-party requests and images, fonts and media
are blocked, and the DOM after scripts ran is kept. File seeds (saved pages) are decoded the
way the runner decodes them (BOM, HTTP/meta charset, EUC-KR read as CP949, …), written as UTF-8
to a temporary file and rendered with every request but the page itself blocked. With
``[render] wait_for`` (``--wait-for``) a seed is read only once that selector is in its DOM (the
content a script inserts late); a seed where it never appears is an error, never a silent read
of the page without it. :func:`keep_seeds` keeps each rendered DOM and a full-page screenshot
next to the selector file.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from cssselect import HTMLTranslator, SelectorError
from lxml import etree

from anchorpath._config import Settings
from anchorpath._errors import AnchorpathError, AuthoringError, ConfigError
from anchorpath.authoring.seeds import SeedPage, load_seed, seed_from_html
from anchorpath.selectors.decode import decode_html
from anchorpath.selectors.evaluate import parse_html

__all__ = ["keep_seeds", "render_seeds", "wait_xpath"]

_META_CHARSET = re.compile(
    rb"<meta[^>]+(?:charset\s*=|http-equiv\s*=\s*[\"']?content-type)[^>]*>", re.IGNORECASE
)


def wait_xpath(selector: str) -> str:
    """The XPath of a seed wait selector: a CSS selector, translated, or an XPath as it is
    (starting with ``/`` or ``(``). Raises ConfigError naming the setting when it is neither."""
    sel = selector.strip()
    if sel.startswith(("/", "(")):
        xpath = sel
    else:
        try:
            xpath = HTMLTranslator().css_to_xpath(sel)
        except SelectorError as exc:
            raise ConfigError(
                f"render.wait_for: {selector!r} is not a CSS selector: {exc}"
            ) from exc
    try:
        etree.XPath(xpath)
    except etree.XPathSyntaxError as exc:
        raise ConfigError(f"render.wait_for: {selector!r} is not a valid XPath: {exc}") from exc
    return xpath


def _check_waited(seed: str, html: str | bytes, xpath: str | None, settings: Settings) -> None:
    """Raise when the wait selector is not in the rendered DOM of ``seed``."""
    from anchorpath.fetch.browser import WAIT_SECONDS

    if xpath is None:
        return
    try:
        found = parse_html(html).xpath(xpath)
    except (AnchorpathError, etree.XPathError):
        found = None
    if not found:
        seconds = min(settings.fetch.total_timeout, WAIT_SECONDS)
        raise AuthoringError(
            f"{seed}: wait selector {settings.render.wait_for!r} did not appear within "
            f"{seconds:g} s"
        )


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def render_seeds(
    seeds: Sequence[str], seed_urls: Sequence[str], settings: Settings
) -> list[SeedPage]:
    """Render every seed (see the module docstring); ``seed_urls`` name the files' URLs."""
    from anchorpath.fetch.browser import BrowserRenderer, chromium_executable
    from anchorpath.fetch.polite import PoliteFetcher, user_agent_string

    wait = wait_xpath(settings.render.wait_for) if settings.render.wait_for.strip() else None
    out: list[SeedPage] = []
    fetcher: PoliteFetcher | None = None
    renderer: BrowserRenderer | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="anchorpath-seeds-") as tmp:
            for i, seed in enumerate(seeds):
                given = seed_urls[i] if seed_urls else None
                if _is_url(seed):
                    if fetcher is None:
                        fetcher = PoliteFetcher(settings.fetch)
                    result = fetcher.fetch(seed, render="browser", wait_for=wait)
                    _check_waited(seed, result.body, wait, settings)
                    rendered = seed_from_html(
                        result.body, given or result.final_url, source=seed, charset="utf-8"
                    )
                    out.append(replace(rendered, loaded=result.loaded))
                    continue
                base = load_seed(seed, url=given)  # URL, url_from and the bytes' sha256
                text, _codec = decode_html(Path(seed).read_bytes())
                body = _META_CHARSET.sub(b"", text.encode("utf-8", "surrogatepass"))
                local = Path(tmp) / f"seed{i}.html"
                local.write_bytes(b'<meta charset="utf-8">' + body)
                if renderer is None:
                    renderer = BrowserRenderer(
                        user_agent=user_agent_string(settings.fetch),
                        timeout=settings.fetch.total_timeout,
                        # only the page itself: nothing else is fetched for a saved page
                        allow_request=lambda page, url: url == page,
                        executable_path=chromium_executable(),
                    )
                page = renderer.render(local.resolve().as_uri(), wait_for=wait)
                _check_waited(seed, page.html, wait, settings)
                out.append(replace(base, html=page.html))
    except AuthoringError:
        raise
    except AnchorpathError as exc:
        raise AuthoringError(f"cannot render seed pages: {exc}") from exc
    finally:
        if renderer is not None:
            renderer.close()
        if fetcher is not None:
            fetcher.close()
    return out


def keep_seeds(
    pages: Sequence[SeedPage], directory: Path, settings: Settings
) -> dict[str, tuple[Path, Path | None]]:
    """Write each seed's rendered DOM (``<k>-<sha12>.html``) and a full-page screenshot
    (``.png``) to ``directory``; returns ``{seed sha256: (html path, png path or None)}``.

    The screenshot is taken of the DOM already rendered, offline (every request blocked), so
    keeping it costs the site nothing.
    """
    from anchorpath.fetch.browser import BrowserRenderer, chromium_executable
    from anchorpath.fetch.polite import user_agent_string

    out: dict[str, tuple[Path, Path | None]] = {}
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AuthoringError(f"{directory}: cannot keep seed snapshots: {exc}") from exc
    renderer = BrowserRenderer(
        user_agent=user_agent_string(settings.fetch),
        timeout=settings.fetch.total_timeout,
        allow_request=lambda page, url: url == page,
        executable_path=chromium_executable(),
        screenshots=True,
    )
    try:
        for k, page in enumerate(pages):
            stem = f"{k + 1}-{page.sha256[:12]}"
            html_path = directory / f"{stem}.html"
            body = page.html
            if not re.search(r"<meta[^>]+charset", body[:2048], re.IGNORECASE):
                body = '<meta charset="utf-8">' + body
            png_path: Path | None = directory / f"{stem}.png"
            try:
                html_path.write_text(body, encoding="utf-8")
                shot = renderer.render(html_path.resolve().as_uri()).screenshot
                if shot:
                    png_path.write_bytes(shot)  # type: ignore[union-attr]
                else:
                    png_path = None
            except OSError as exc:
                raise AuthoringError(f"{html_path}: cannot keep seed snapshot: {exc}") from exc
            out[page.sha256] = (html_path, png_path)
    except AnchorpathError as exc:
        if isinstance(exc, AuthoringError):
            raise
        raise AuthoringError(f"cannot keep seed snapshots: {exc}") from exc
    finally:
        renderer.close()
    return out
