"""A PNG per seed with every field's matched nodes outlined and labelled, so a person can look
instead of read.

Which nodes a field matched is decided by lxml, exactly as the runner extracts (the session's
trace paths); those elements are marked with ``data-ap-mark`` in the parsed seed, the marked
document is serialised and rendered by Chromium (Playwright with Debian's ``chromium``), and a
small script draws a coloured outline and the field's name over each marked element. Every
request the page would make is refused (the seed is a saved page: nothing is fetched) and its
scripts are removed. Pages taller than :data:`MAX_HEIGHT` pixels are cut.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import lxml.html
from lxml import etree

from anchorpath._errors import AuthoringError, BrowserError
from anchorpath.authoring.seeds import SeedPage
from anchorpath.authoring.session.core import element_at
from anchorpath.fetch.browser import CHROMIUM, CHROMIUM_ARGS
from anchorpath.selectors.evaluate import parse_html

__all__ = ["MAX_HEIGHT", "PALETTE", "chromium_executable", "render_highlights"]

#: Screenshots are cut at this height (a long list page would otherwise be huge).
MAX_HEIGHT = 4000
WIDTH = 1280
PALETTE = (
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#f032e6", "#9a6324",
    "#800000", "#000075", "#808000", "#46a0a0",
)  # fmt: skip

_OVERLAY = """
(marks) => {
  const layer = document.createElement('div');
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;';
  document.body.appendChild(layer);
  const sx = window.scrollX, sy = window.scrollY;
  for (const el of document.querySelectorAll('[data-ap-root]')) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${r.left + sx - 3}px;top:${r.top + sy - 3}px;` +
      `width:${r.width + 6}px;height:${r.height + 6}px;outline:2px dashed #777;`;
    layer.appendChild(box);
  }
  let n = 0;
  const placed = [];
  const area = {x0: 1e9, y0: 1e9, x1: 0, y1: 0};
  for (const el of document.querySelectorAll('[data-ap-mark]')) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const names = el.getAttribute('data-ap-mark').split(' ');
    const color = marks[names[0]] || '#e6194b';
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${r.left + sx - 2}px;top:${r.top + sy - 2}px;` +
      `width:${r.width + 4}px;height:${r.height + 4}px;outline:3px solid ${color};` +
      `background:${color}22;`;
    layer.appendChild(box);
    const tag = document.createElement('div');
    tag.textContent = names.join(', ');
    tag.style.cssText = `position:absolute;background:${color};color:#fff;` +
      'font:bold 11px/15px sans-serif;padding:0 4px;border-radius:2px;white-space:nowrap;' +
      'opacity:0.92;';
    layer.appendChild(tag);
    // Inside the box, right-aligned, where the text leaves room; else above the box's top
    // left corner, moved right past labels already placed there.
    const w = tag.offsetWidth, h = 15;
    const range = document.createRange();
    range.selectNodeContents(el);
    const t = range.getBoundingClientRect();
    const room = r.right - Math.max(t.width ? t.right : r.left, r.left);
    let x = r.left + sx - 2, y = Math.max(0, r.top + sy - h - 2);
    if (room >= w + 10 && r.height >= h) {
      x = r.right + sx - w - 3;
      y = r.top + sy + Math.max(0, (Math.min(r.height, 40) - h) / 2);
    }
    for (let moved = true; moved;) {
      moved = false;
      for (const p of placed) {
        if (x < p.x + p.w + 2 && p.x < x + w + 2 && y < p.y + h && p.y < y + h) {
          x = p.x + p.w + 4;
          moved = true;
        }
      }
    }
    placed.push({x, y, w});
    tag.style.left = `${x}px`;
    tag.style.top = `${y}px`;
    n += 1;
    area.x0 = Math.min(area.x0, r.left + sx, x); area.y0 = Math.min(area.y0, y);
    area.x1 = Math.max(area.x1, r.right + sx, x + w); area.y1 = Math.max(area.y1, r.bottom + sy);
  }
  return {n, area};
}
"""


def chromium_executable() -> str:
    """``ANCHORPATH_CHROMIUM``, else ``chromium`` on the PATH, else Debian's path."""
    return os.environ.get("ANCHORPATH_CHROMIUM") or shutil.which("chromium") or CHROMIUM


def _marked_html(
    page: SeedPage,
    nodes: Mapping[str, Sequence[str]],
    roots: Sequence[str],
) -> tuple[str, int]:
    """The seed's HTML with matched elements marked (and scripts removed); marks made."""
    doc = parse_html(page.html, plain=True)
    tree = doc.getroottree()
    made = 0
    for name, paths in nodes.items():
        for path in paths:
            el = element_at(tree, path)
            if el is None:
                continue
            have = el.get("data-ap-mark")
            if have is None or name not in have.split():
                el.set("data-ap-mark", f"{have} {name}" if have else name)
                made += 1
    for path in roots:
        el = element_at(tree, path)
        if el is not None:
            el.set("data-ap-root", "1")
    found = doc.xpath("//script | //noscript | //meta[@http-equiv]")
    for bad in found if isinstance(found, list) else []:
        if isinstance(bad, etree._Element):
            parent = bad.getparent()
            if parent is not None:
                parent.remove(bad)
    html = lxml.html.tostring(doc, encoding="unicode", doctype="<!DOCTYPE html>")
    return html, made


def _shoot(
    jobs: Sequence[tuple[str, Path]],
    colors: Mapping[str, str],
    executable: str,
    overlay: bool,
    crop: bool = False,
) -> None:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as pw:
            try:
                browser = pw.chromium.launch(
                    executable_path=executable, args=CHROMIUM_ARGS, headless=True
                )
            except PlaywrightError as exc:
                raise BrowserError(f"{executable}: cannot launch Chromium: {exc}") from exc
            try:
                context = browser.new_context(
                    viewport={"width": WIDTH, "height": 900}, service_workers="block"
                )
                context.route("**/*", lambda route: route.abort())  # nothing is fetched
                for html, out in jobs:
                    page = context.new_page()
                    page.set_content(html, wait_until="domcontentloaded", timeout=30_000)
                    marks = page.evaluate(_OVERLAY, dict(colors)) if overlay else None
                    height = min(
                        MAX_HEIGHT, int(page.evaluate("document.documentElement.scrollHeight"))
                    )
                    clip: dict[str, float] = {
                        "x": 0,
                        "y": 0,
                        "width": WIDTH,
                        "height": max(height, 200),
                    }
                    if crop and marks and marks["n"]:
                        b = marks["area"]
                        y0 = max(0, b["y0"] - 24)
                        clip = {
                            "x": 0,
                            "y": y0,
                            "width": min(WIDTH, b["x1"] + 24),
                            "height": min(MAX_HEIGHT, b["y1"] - y0 + 24),
                        }
                    page.screenshot(path=str(out), clip=cast(Any, clip), full_page=True)
                    page.close()
                context.close()
            finally:
                browser.close()
    except PlaywrightError as exc:
        raise BrowserError(f"Chromium could not render a seed for its screenshot: {exc}") from exc


def render_highlights(
    pages: Sequence[SeedPage],
    nodes: Sequence[Mapping[str, Sequence[str]]],
    out_dir: Path,
    *,
    roots: Sequence[Sequence[str]] | None = None,
    overlay: bool = True,
    executable: str | None = None,
    stem: str = "seed",
    crop: bool = False,
) -> list[Path]:
    """One PNG per seed in ``out_dir`` (``seed-1.png``, …); ``nodes[i]`` maps each field to the
    trace paths of its matched nodes on seed ``i``, ``roots[i]`` are record roots (dashed).
    ``overlay=False`` gives the plain rendering (for comparison); ``crop`` cuts each PNG to
    the outlined nodes (for documentation)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(n for per in nodes for n in per))
    colors = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
    jobs = []
    for i, page in enumerate(pages):
        html, _made = _marked_html(page, nodes[i], roots[i] if roots else ())
        jobs.append((html, out_dir / f"{stem}-{i + 1}.png"))
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _shoot(jobs, colors, executable or chromium_executable(), overlay, crop)
        except BaseException as exc:  # handed to the caller's thread
            errors.append(exc)

    # Playwright's sync API refuses to run inside an asyncio loop: give it its own thread.
    t = threading.Thread(target=run, name="anchorpath-screenshots", daemon=True)
    t.start()
    t.join()
    if errors:
        exc = errors[0]
        if isinstance(exc, BrowserError | AuthoringError):
            raise exc
        raise BrowserError(f"cannot take the seed screenshots: {exc}") from exc
    return [out for _h, out in jobs]


def field_colors(names: Sequence[str]) -> dict[str, Any]:
    """The colour each field is drawn in (the terminal table uses the same)."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
