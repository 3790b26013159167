"""Checkpoint / resume of a run.

After every page the pipeline appends the page's records and signals to ``records.jsonl`` and
``pages.jsonl`` (fdatasync), then replaces ``<run_dir>/checkpoint.json`` atomically (temp
file, fdatasync, rename) with the crawl state (frontier, done pages, skips), the WARC segments
of the run and how many log lines are valid. After ``kill -9`` at any instant the checkpoint
holds either the previous or the new progress, never half of one, and log lines it does not
count are cut.

Pages are archived to the run's WARC *before* they are parsed, so a kill between archiving a
page and checkpointing it leaves the page in the WARC but not in ``done``. On resume such pages
are replayed from the archive (:func:`anchorpath.runner.archive.last_archived`, a 304 with the
body it stands for), never fetched again. Each attempt of a run writes its own WARC segment
(``pages-00.warc.gz``, ``pages-01.warc.gz``, ...): a segment cut mid-record by the kill is read
up to its last complete record and never appended to.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError
from anchorpath.runner.model import Checkpoint

__all__ = [
    "CHECKPOINT_NAME",
    "load_checkpoint",
    "remove_checkpoint",
    "save_checkpoint",
]

CHECKPOINT_NAME = "checkpoint.json"


_LOGS = ("records", "pages")

#: Durable data and size, without the mtime's extra journal commit (fsync where there is none).
_sync = getattr(os, "fdatasync", os.fsync)


def _append_lines(path: Path, items: list[Any], start: int) -> None:
    """Append ``items[start:]`` (records or pages) as JSON lines and sync them (before the head
    refers to them)."""
    if start >= len(items):
        return
    with path.open("a", encoding="utf-8") as fh:
        for item in items[start:]:
            fh.write(json.dumps(item.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n")
        fh.flush()
        _sync(fh.fileno())


def save_checkpoint(run_dir: Path, checkpoint: Checkpoint) -> Path:
    """Persist progress: new records/pages appended to ``records.jsonl``/``pages.jsonl``,
    then ``checkpoint.json`` (crawl state and how many lines of each log are valid) replaced
    atomically.

    The logs are append-only so a long run does not rewrite (or even serialise again)
    everything it gathered after every page; lines past the counts in ``checkpoint.json``
    (written just before a kill) are ignored and cut off on load.
    """
    path = run_dir / CHECKPOINT_NAME
    tmp = run_dir / f".{CHECKPOINT_NAME}.tmp"
    head = checkpoint.head()
    try:
        for name in _LOGS:
            items: list[Any] = getattr(checkpoint, name)
            saved = checkpoint.saved.get(name, 0)
            if saved > len(items):  # the caller rewound: start the log afresh
                (run_dir / f"{name}.jsonl").unlink(missing_ok=True)
                saved = 0
            _append_lines(run_dir / f"{name}.jsonl", items, saved)
            checkpoint.saved[name] = len(items)
            head[f"{name}_count"] = len(items)
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(json.dumps(head, ensure_ascii=False, separators=(",", ":")))
            fh.flush()
            _sync(fh.fileno())
        # No fsync of the directory: if a power cut loses the rename, the previous checkpoint
        # is still complete, and the pages archived since are replayed from the WARC.
        os.replace(tmp, path)
    except OSError as exc:
        raise RunError(f"{path}: cannot write the checkpoint: {exc}") from exc
    return path


def _read_lines(path: Path, count: int) -> list[dict[str, Any]]:
    """The first ``count`` JSON lines of ``path``; the file is cut to exactly those lines."""
    if count == 0:
        path.unlink(missing_ok=True)
        return []
    out: list[dict[str, Any]] = []
    end = 0
    with path.open("rb") as fh:
        for raw in fh:
            if len(out) == count:
                break
            out.append(json.loads(raw.decode("utf-8")))
            end += len(raw)
    if len(out) < count:
        raise ValueError(f"{path.name} has {len(out)} lines, the checkpoint expects {count}")
    with path.open("r+b") as fh:
        fh.truncate(end)
    return out


def load_checkpoint(run_dir: Path) -> Checkpoint | None:
    """The checkpoint of an unfinished run in ``run_dir``, or None when there is none."""
    path = run_dir / CHECKPOINT_NAME
    if not path.is_file():
        return None
    try:
        head = json.loads(path.read_text(encoding="utf-8"))
        counts = {name: int(head.pop(f"{name}_count", 0)) for name in _LOGS}
        for name in _LOGS:
            if name not in head:
                head[name] = _read_lines(run_dir / f"{name}.jsonl", counts[name])
        cp = Checkpoint.from_dict(head)
        cp.saved = {name: len(head[name]) for name in _LOGS}
        return cp
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RunError(f"{path}: unreadable checkpoint ({exc}); delete it to start over") from exc


def remove_checkpoint(run_dir: Path) -> None:
    """Delete the checkpoint and its logs (the run is finished)."""
    for name in (CHECKPOINT_NAME, *(f"{n}.jsonl" for n in _LOGS)):
        (run_dir / name).unlink(missing_ok=True)
