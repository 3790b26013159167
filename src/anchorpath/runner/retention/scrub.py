"""Removing deleted values from the files a site left in the state and selectors
directories: WARC archives (responses replaced by stubs,
:func:`anchorpath.fetch.warc.rewrite_warc`),
run reports (re-rendered from their scrubbed JSON), quarantines, alert bundles, checkpoints,
replay folders, golden fixtures and the selector file's examples. Each function returns the
paths it changed or removed."""

from __future__ import annotations

import functools
import json
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError
from anchorpath.fetch.warc import rewrite_warc
from anchorpath.runner.report.model import RunReport
from anchorpath.runner.report.render import write_reports
from anchorpath.runner.retention.needles import Needles, leaves

__all__ = ["scrub_json", "scrub_tree", "scrub_value"]

_TEXT = {".md", ".txt", ".csv", ".jsonl"}


def scrub_value(value: Any, keys: set[str], needles: Needles) -> Any:
    """``value`` without the list items that belong to a deleted key or hold a deleted value,
    and with any other deleted text replaced by ``[forgotten]``."""
    if isinstance(value, dict):
        return {
            k: scrub_value(v, keys, needles) for k, v in value.items() if not needles.in_text(k)
        }
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, dict | list) and (
                (isinstance(item, dict) and (item.get("key") in keys or item.get("_key") in keys))
                or any(needles.in_text(t) for t in leaves(item))
            ):
                continue
            out.append(scrub_value(item, keys, needles))
        return out
    if isinstance(value, str) and needles.in_text(value):
        return needles.redact(value)
    return value


def scrub_json(path: Path, keys: set[str], needles: Needles) -> bool:
    """Rewrite one JSON file without deleted values; True when it changed."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if not needles.in_text(text) and not needles.in_bytes(path.read_bytes()):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        path.unlink()
        return True
    clean = scrub_value(data, keys, needles)
    path.write_text(json.dumps(clean, ensure_ascii=False, indent=1), encoding="utf-8")
    return True


def _scrub_lines(path: Path, needles: Needles) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    if not needles.in_text(text):
        return False
    kept = [line for line in text.splitlines(keepends=True) if not needles.in_text(line)]
    path.write_text("".join(kept), encoding="utf-8")
    return True


def _response_leaks(
    needles: Needles, url: str, status: int, headers: dict[str, str], body: bytes
) -> bool:
    """Whether an archived response names or holds what is forgotten (its URL or its page)."""
    charset = None
    ctype = headers.get("content-type", "")
    if "charset=" in ctype:
        charset = ctype.split("charset=", 1)[1].split(";")[0].strip()
    return needles.in_text(url) or needles.in_bytes(url.encode()) or needles.in_page(body, charset)


def _scrub_file(
    path: Path,
    keys: set[str],
    needles: Needles,
    drop: Callable[[str, int, dict[str, str], bytes], bool],
    *,
    stub_uri: Callable[[str], str],
    note: str,
) -> bool:
    """Scrub one file (see :func:`scrub_tree`); whether it changed."""
    name = path.name
    if name.endswith(".warc.gz"):
        return bool(rewrite_warc(path, drop, note=note, stub_uri=stub_uri, leaks=needles.in_bytes))
    if name == "report.json":
        if not scrub_json(path, keys, needles):
            return False
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "verdict" in data:  # a run's, not a replay's
            write_reports(path.parent, RunReport.from_dict(data))
        return True
    if name in ("report.md", "report.html"):
        return False  # re-rendered from report.json
    if path.suffix == ".json":
        return scrub_json(path, keys, needles)
    if path.suffix in _TEXT:
        return _scrub_lines(path, needles)
    if needles.in_bytes(path.read_bytes()) or (
        path.suffix in (".html", ".htm") and needles.in_page(path.read_bytes(), None)
    ):
        path.unlink()
        return True
    return False


def scrub_tree(
    root: Path,
    keys: set[str],
    needles: Needles,
    *,
    stub_uri: Callable[[str], str],
    note: str,
) -> list[Path]:
    """Scrub every file under ``root`` (a site's runs or replays folder): WARCs rewritten,
    JSON scrubbed (a run's ``report.json`` re-rendered into ``report.md``/``.html``), text
    files without the lines that hold a deleted value, any other file (a page snapshot, a
    scratch database) removed when it holds one."""
    changed: list[Path] = []
    if not root.is_dir():
        return changed

    drop = functools.partial(_response_leaks, needles)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        try:
            if _scrub_file(path, keys, needles, drop, stub_uri=stub_uri, note=note):
                changed.append(path)
        except OSError as exc:
            raise RunError(f"{path}: cannot scrub: {exc}") from exc
    # re-rendered reports may still quote values from fields other than the events: check
    for report in (p for p in root.rglob("report.*") if p.suffix in (".md", ".html")):
        if needles.in_bytes(report.read_bytes()):
            _scrub_lines(report, needles)
    return changed


def remove_dirs(dirs: Iterable[Path]) -> list[Path]:
    """Remove whole directories (a replay's scratch folder); returns those removed."""
    out = []
    for d in dirs:
        if d.is_dir():
            shutil.rmtree(d)
            out.append(d)
    return out
