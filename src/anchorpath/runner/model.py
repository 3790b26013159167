"""What a run is made of, as typed data: the records a page gave (:class:`RecordEntry`), the
records that broke their schema (:class:`InvalidRecord`), what each page contributed
(:class:`PageEntry`) and everything needed to finish a run (:class:`Checkpoint`). Shared by
the crawl, the drift gate, the store's commit, the reports, ``accept`` and ``replay``; saved
and loaded by :mod:`anchorpath.runner.checkpoint` (dicts only there and in the quarantine
files)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Checkpoint", "InvalidRecord", "PageEntry", "RecordEntry", "extraction_notes"]


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
