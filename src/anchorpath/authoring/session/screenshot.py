"""PNGs per seed with every field's values outlined and labelled, so a person can look instead
of read.

Which nodes a field matched is decided by lxml, exactly as the runner extracts (the session's
:class:`~anchorpath.authoring.session.core.Mark` s); the elements holding them are marked in
the parsed seed, the marked document is serialised and rendered by Chromium (Playwright with
Debian's ``chromium``), and a small script outlines each value: the exact text it reads (a DOM
Range's client rects: ``978-0306406157`` inside a cell that also holds the ISBN-10), else the
element. Each field's name goes beside its outline, never over a value. Per seed, one image is
cut to the outlined values and a second shows the whole page. Every request the page would
make is refused (the seed is a saved page: nothing is fetched) and its scripts are removed.
Pages taller than :data:`MAX_HEIGHT` pixels are cut.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import lxml.html
from lxml import etree

from anchorpath._errors import AuthoringError, BrowserError
from anchorpath.authoring.seeds import SeedPage
from anchorpath.authoring.session.core import Mark, element_at
from anchorpath.fetch.browser import chromium, chromium_executable
from anchorpath.selectors.evaluate import parse_html

__all__ = ["MAX_HEIGHT", "PALETTE", "render_highlights"]

#: Screenshots are cut at this height (a long list page would otherwise be huge).
MAX_HEIGHT = 4000
WIDTH = 1280
#: Pixels of page kept around the outlined values in a seed's view.
_MARGIN = 48
PALETTE = (
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#f032e6", "#9a6324",
    "#800000", "#000075", "#808000", "#46a0a0",
)  # fmt: skip

_OVERLAY = """
({colors, marks}) => {
  const layer = document.createElement('div');
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;';
  document.body.appendChild(layer);
  const sx = window.scrollX, sy = window.scrollY;
  const pageWidth = document.documentElement.scrollWidth;
  for (const el of document.querySelectorAll('[data-ap-root]')) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${r.left + sx - 3}px;top:${r.top + sy - 3}px;` +
      `width:${r.width + 6}px;height:${r.height + 6}px;outline:2px dashed #777;`;
    layer.appendChild(box);
  }
  // The text of el's text nodes with white space collapsed, and where each character is.
  const textMap = (el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let text = '', space = true;
    const at = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const v = n.nodeValue;
      for (let i = 0; i < v.length; i++) {
        const ws = /\\s/.test(v[i]) || v[i] === '\\u200b' || v[i] === '\\ufeff';
        if (ws && space) continue;
        text += ws ? ' ' : v[i];
        at.push([n, i]);
        space = ws;
      }
    }
    return {text, at};
  };
  const squash = (t) => (t || '').replace(/[\\s\\u200b\\ufeff]+/g, ' ').trim();
  // The Range of `text` (inside `raw`, when given) in el; null when it is not there.
  const rangeOf = (el, raw, text) => {
    const want = squash(text);
    if (!want) return null;
    const m = textMap(el);
    let from = 0;
    if (raw) {
      const r = m.text.indexOf(squash(raw));
      if (r >= 0) from = r;
    }
    let i = m.text.indexOf(want, from);
    if (i < 0) i = m.text.indexOf(want);
    if (i < 0) return null;
    const [sn, so] = m.at[i], [en, eo] = m.at[i + want.length - 1];
    const range = document.createRange();
    range.setStart(sn, so);
    range.setEnd(en, eo + 1);
    return range;
  };
  const found = [];
  for (const mark of marks) {
    const el = document.querySelector(`[data-ap-m~="${mark.id}"]`);
    if (!el) continue;
    const range = mark.text ? rangeOf(el, mark.raw, mark.text) : null;
    let rects = range ? Array.from(range.getClientRects()) : [el.getBoundingClientRect()];
    rects = rects.filter((r) => r.width || r.height);
    if (!rects.length) continue;
    const pad = range ? 1 : 2;  // a text's outline hugs it (the next line stays readable)
    const boxes = rects.map((r) => ({
      x0: r.left + sx - pad, y0: r.top + sy - pad, x1: r.right + sx + pad, y1: r.bottom + sy + pad,
    }));
    const all = boxes.reduce((a, b) => ({
      x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0),
      x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1),
    }));
    found.push({mark, boxes, all, exact: !!range});
  }
  const LABEL_EVERY = 400;
  const hit = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  const taken = found.flatMap((f) => f.boxes);
  // The page's other text, line by line: a label goes where it covers none if it can.
  const ink = [];
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = texts.nextNode(); n && ink.length < 20000; n = texts.nextNode()) {
    if (!n.nodeValue.trim() || layer.contains(n)) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    for (const q of r.getClientRects()) {
      if (q.width && q.height) {
        ink.push({x0: q.left + sx, y0: q.top + sy, x1: q.right + sx, y1: q.bottom + sy});
      }
    }
  }
  const labels = [];
  const area = {x0: 1e9, y0: 1e9, x1: 0, y1: 0};
  const grow = (b) => {
    area.x0 = Math.min(area.x0, b.x0); area.y0 = Math.min(area.y0, b.y0);
    area.x1 = Math.max(area.x1, b.x1); area.y1 = Math.max(area.y1, b.y1);
  };
  const lastLabel = {};  // field -> bottom of its last label
  for (const f of found) {
    const color = colors[f.mark.field] || '#e6194b';
    for (const b of f.boxes) {
      const box = document.createElement('div');
      box.style.cssText = `position:absolute;left:${b.x0}px;top:${b.y0}px;` +
        `width:${b.x1 - b.x0}px;height:${b.y1 - b.y0}px;outline:2px solid ${color};` +
        `background:${color}22;`;
      layer.appendChild(box);
      grow(b);
    }
    // A field's values close below its last label (a column of a list, the lines of a
    // long text) share that label: their colour says which field they are.
    const last = lastLabel[f.mark.field];
    if (last !== undefined && f.all.y0 - last < LABEL_EVERY) continue;
    const tag = document.createElement('div');
    tag.textContent = f.mark.field;
    tag.style.cssText = `position:absolute;background:${color};color:#fff;` +
      'font:bold 11px/15px sans-serif;padding:0 4px;border-radius:2px;white-space:nowrap;';
    layer.appendChild(tag);
    // Outside the outline, never over a value: to its right, above it, below it, to its
    // left, each slid right past what is in the way; first where it covers no text either.
    const w = tag.offsetWidth, h = 15, a = f.all;
    const near = ink.filter((t) => t.y1 > a.y0 - 2 * h && t.y0 < a.y1 + 2 * h);
    const free = (c, text) => c.x0 >= 0 && c.y0 >= 0 && c.x1 <= pageWidth &&
      !taken.some((t) => hit(c, t)) && !labels.some((l) => hit(c, l)) &&
      !(text && near.some((t) => hit(c, t)));
    const mid = a.y0 + Math.max(0, (a.y1 - a.y0 - h) / 2);
    const starts = [
      [a.x1 + 4, mid, 160], [a.x0, a.y0 - h - 3, 600], [a.x0, a.y1 + 3, 600],
      [a.x0 - w - 4, mid, 0],
    ];
    let spot = null;
    for (const text of [true, false]) {
      for (const [x, y, slide] of starts) {
        for (let dx = 0; dx <= slide && !spot; dx += 8) {
          const c = {x0: x + dx, y0: y, x1: x + dx + w, y1: y + h};
          if (free(c, text)) spot = c;
        }
        if (spot) break;
      }
      if (spot) break;
    }
    if (!spot) {  // crowded: above (or, at the page's top, below) the outline all the same
      const y = a.y0 - h - 2 >= 0 ? a.y0 - h - 2 : a.y1 + 2;
      spot = {x0: a.x0, y0: y, x1: a.x0 + w, y1: y + h};
    }
    labels.push(spot);
    f.label = spot;
    lastLabel[f.mark.field] = spot.y1;
    grow(spot);
    tag.style.left = `${spot.x0}px`;
    tag.style.top = `${spot.y0}px`;
  }
  const placed = found.map((f) => ({
    field: f.mark.field, exact: f.exact, boxes: f.boxes, label: f.label || null,
  }));
  return {n: found.length, area, placed};
}
"""


def _marked_html(
    page: SeedPage,
    nodes: Mapping[str, Sequence[Mark]],
    roots: Sequence[str],
) -> tuple[str, list[dict[str, Any]]]:
    """The seed's HTML with the elements holding values marked (``data-ap-m``: mark ids) and
    its scripts removed, and the marks (id, field, raw text, value text) for the overlay."""
    doc = parse_html(page.html, plain=True)
    tree = doc.getroottree()
    marks: list[dict[str, Any]] = []
    for name, found in nodes.items():
        for mark in found:
            el = element_at(tree, mark.path)
            if el is None:
                continue
            ident = str(len(marks))
            have = el.get("data-ap-m")
            el.set("data-ap-m", f"{have} {ident}" if have else ident)
            marks.append({"id": ident, "field": name, "raw": mark.raw, "text": mark.text})
    for path in roots:
        el = element_at(tree, path)
        if el is not None:
            el.set("data-ap-root", "1")
    found_bad = doc.xpath("//script | //noscript | //meta[@http-equiv]")
    for bad in found_bad if isinstance(found_bad, list) else []:
        if isinstance(bad, etree._Element):
            parent = bad.getparent()
            if parent is not None:
                parent.remove(bad)
    html = lxml.html.tostring(doc, encoding="unicode", doctype="<!DOCTYPE html>")
    return html, marks


@dataclass(frozen=True)
class _Job:
    html: str
    marks: list[dict[str, Any]]
    out: Path  # the view of the values
    full: Path | None  # the whole page (None: no second image)


def _shoot(jobs: Sequence[_Job], colors: Mapping[str, str], executable: str, overlay: bool) -> None:
    with chromium(
        executable, failing="Chromium could not render a seed for its screenshot"
    ) as browser:
        context = browser.new_context(
            viewport={"width": WIDTH, "height": 900}, service_workers="block"
        )
        context.route("**/*", lambda route: route.abort())  # nothing is fetched
        for job in jobs:
            page = context.new_page()
            page.set_content(job.html, wait_until="domcontentloaded", timeout=30_000)
            drawn = (
                page.evaluate(_OVERLAY, {"colors": dict(colors), "marks": job.marks})
                if overlay
                else None
            )
            height = int(page.evaluate("document.documentElement.scrollHeight"))
            whole = {
                "x": 0,
                "y": 0,
                "width": WIDTH,
                "height": max(min(height, MAX_HEIGHT), 200),
            }
            if job.full is not None:
                page.screenshot(path=str(job.full), clip=cast(Any, whole), full_page=True)
            page.screenshot(path=str(job.out), clip=cast(Any, _view(drawn, height)), full_page=True)
            page.close()
        context.close()


def _view(drawn: Mapping[str, Any] | None, height: int) -> dict[str, float]:
    """The part of the page that shows the outlined values and their labels, with a margin
    (at most :data:`MAX_HEIGHT` tall); the top of the page when nothing was outlined."""
    if not drawn or not drawn.get("n"):
        return {"x": 0, "y": 0, "width": WIDTH, "height": max(min(height, MAX_HEIGHT), 200)}
    a = drawn["area"]
    y0 = max(0.0, float(a["y0"]) - _MARGIN)
    y1 = min(float(height), float(a["y1"]) + _MARGIN)
    return {"x": 0, "y": y0, "width": WIDTH, "height": min(MAX_HEIGHT, max(y1 - y0, 120.0))}


def render_highlights(
    pages: Sequence[SeedPage],
    nodes: Sequence[Mapping[str, Sequence[Mark]]],
    out_dir: Path,
    *,
    roots: Sequence[Sequence[str]] | None = None,
    overlay: bool = True,
    executable: str | None = None,
    stem: str = "seed",
    full: bool = True,
) -> list[Path]:
    """PNGs of the seeds in ``out_dir``; ``nodes[i]`` maps each field to its :class:`Mark` s on
    seed ``i``, ``roots[i]`` are record roots (dashed). Per seed, ``STEM-i.png`` is cut to the
    outlined values (the exact text of each value, its field's name beside it, never over a
    value) and, with ``full``, ``STEM-i-full.png`` is the whole page (cut at
    :data:`MAX_HEIGHT`). ``overlay=False`` gives the plain rendering (for comparison).
    Returns the paths, each seed's view before its full page."""
    out_dir.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(n for per in nodes for n in per))
    colors = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
    jobs = []
    for i, page in enumerate(pages):
        html, marks = _marked_html(page, nodes[i], roots[i] if roots else ())
        whole = out_dir / f"{stem}-{i + 1}-full.png" if full else None
        jobs.append(_Job(html, marks, out_dir / f"{stem}-{i + 1}.png", whole))
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _shoot(jobs, colors, executable or chromium_executable(), overlay)
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
    return [p for job in jobs for p in (job.out, job.full) if p is not None]


def field_colors(names: Sequence[str]) -> dict[str, str]:
    """The colour each field is drawn in (the terminal table uses the same)."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
