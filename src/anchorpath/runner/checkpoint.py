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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError

__all__ = [
    "CHECKPOINT_NAME",
    "Checkpoint",
    "InvalidRecord",
    "PageEntry",
    "RecordEntry",
    "extraction_notes",
    "load_checkpoint",
    "remove_checkpoint",
    "save_checkpoint",
]

CHECKPOINT_NAME = "checkpoint.json"


@dataclass(frozen=True)
class RecordEntry:
    """One record a page gave: its page type, the page's URL, its values and extraction
    problems. A dict only in the checkpoint log and the quarantine files."""

    page_type: str
    url: str
    values: dict[str, Any]
    problems: tuple[str, ...] = ()
    #: How the crawl reached the page: ``start``, ``next``, ``follow`` or ``url``.
    via: str | None = None
    #: Fields whose value is the page's nav/header/footer text rather than content (for the
    #: drift gate, :mod:`anchorpath.runner.drift.template`); None: not looked at.
    template: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "page_type": self.page_type,
            "url": self.url,
            "via": self.via,
            "values": self.values,
            "problems": list(self.problems),
        }
        if self.template is not None:
            out["template"] = list(self.template)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RecordEntry:
        via = d.get("via")
        template = d.get("template")
        return cls(
            str(d["page_type"]),
            str(d["url"]),
            dict(d.get("values") or {}),
            tuple(str(p) for p in d.get("problems") or ()),
            via=str(via) if via is not None else None,
            template=tuple(str(t) for t in template) if isinstance(template, list) else None,
        )


@dataclass(frozen=True)
class InvalidRecord:
    """A record that breaks its page type's JSON Schema, with the schema's complaints."""

    record: RecordEntry
    schema_problems: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {**self.record.to_dict(), "schema_problems": list(self.schema_problems)}


@dataclass(frozen=True)
class PageEntry:
    """What one page contributed to a run: where it came from, what it matched, and the
    drift signals the records alone do not carry."""

    url: str
    final_url: str
    status: int
    etag: str | None
    last_modified: str | None
    sha256: str
    page_type: str | None
    records: int
    record_root_count: int | None
    anchors_present: dict[str, bool]
    source: str  # fetch | archive
    charset_note: str | None = None  # the declared charset does not fit the bytes
    #: what extraction coerced or guessed on this page (``PageResult.notes``)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PageEntry:
        return cls(
            url=str(d["url"]),
            final_url=str(d.get("final_url") or d["url"]),
            status=int(d.get("status", 200)),
            etag=d.get("etag"),
            last_modified=d.get("last_modified"),
            sha256=str(d.get("sha256", "")),
            page_type=d.get("page_type"),
            records=int(d.get("records", 0)),
            record_root_count=d.get("record_root_count"),
            anchors_present={str(k): bool(v) for k, v in (d.get("anchors_present") or {}).items()},
            source=str(d.get("source", "fetch")),
            charset_note=d.get("charset_note"),
            notes=tuple(str(n) for n in d.get("notes") or ()),
        )


def extraction_notes(pages: Sequence[PageEntry]) -> list[str]:
    """What extraction coerced or guessed in a run, one line per note with the number of
    pages it came from and the first of them (for the summary and the report)."""
    where: dict[str, list[str]] = {}
    for p in pages:
        for note in p.notes:
            where.setdefault(note, []).append(p.url)
    return [f"{note} (on {len(urls)} page(s), first {urls[0]})" for note, urls in where.items()]


@dataclass
class Checkpoint:
    """Everything needed to finish a run as if it had never stopped."""

    run_id: str
    site: str
    started_at: str
    selector_version: int
    selector_sha256: str
    options: dict[str, Any]
    warc_segments: list[str] = field(default_factory=list)
    crawl: dict[str, Any] = field(default_factory=dict)
    records: list[RecordEntry] = field(default_factory=list)
    pages: list[PageEntry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    attempts: int = 1
    #: Pages that answered 404/410 (their records' evidence of withdrawal).
    gone: list[str] = field(default_factory=list)
    #: How many records/pages are already in the on-disk logs (not part of the content).
    saved: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.head(),
            "records": [r.to_dict() for r in self.records],
            "pages": [p.to_dict() for p in self.pages],
        }

    def head(self) -> dict[str, Any]:
        """:meth:`to_dict` without the records and pages (what ``checkpoint.json`` holds)."""
        return {
            "run_id": self.run_id,
            "site": self.site,
            "started_at": self.started_at,
            "selector_version": self.selector_version,
            "selector_sha256": self.selector_sha256,
            "options": self.options,
            "warc_segments": self.warc_segments,
            "crawl": self.crawl,
            "errors": self.errors,
            "attempts": self.attempts,
            "gone": self.gone,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Checkpoint:
        return cls(
            run_id=d["run_id"],
            site=d["site"],
            started_at=d["started_at"],
            selector_version=d["selector_version"],
            selector_sha256=d.get("selector_sha256", ""),
            options=dict(d.get("options", {})),
            warc_segments=list(d.get("warc_segments", [])),
            crawl=dict(d.get("crawl", {})),
            records=[RecordEntry.from_dict(r) for r in d.get("records", [])],
            pages=[PageEntry.from_dict(p) for p in d.get("pages", [])],
            errors=list(d.get("errors", [])),
            attempts=int(d.get("attempts", 1)),
            gone=list(d.get("gone", [])),
        )


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
