"""The diff model: what changed between two versions of a selector file, and what that does.

Frozen dataclasses only; ``to_dict`` is the JSON boundary (``anchorpath diff --format json``).
A :class:`FileDiff` holds the semantic changes (settings of the crawl, of each page type and
of each field) and, per field, a :class:`FieldReplay`: what the two versions extract from the
same pages. Renderers (``render_text``, ``render_md``) read this model and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CATEGORIES",
    "Category",
    "DiffReport",
    "FieldDiff",
    "FieldReplay",
    "FileDiff",
    "PageTypeDiff",
    "RecordCount",
    "ReplaySource",
    "SettingChange",
    "Status",
    "ValueDelta",
    "ValueExample",
    "VersionRef",
]

#: How a file, page type or field changed between the old and the new version.
Status = Literal["added", "removed", "changed", "unchanged"]

#: What happened to a field's value on one record, old version vs new version.
Category = Literal["changed", "appeared", "disappeared"]
CATEGORIES: tuple[Category, ...] = ("changed", "appeared", "disappeared")

#: What a single setting did: appeared, went away or took another value.
ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class SettingChange:
    """One setting that differs. ``setting`` is its dotted name inside its scope (``xpath``,
    ``normalize.date_formats``, ``fetch.pagination.max_pages``); ``old``/``new`` are JSON
    values, None when the setting is absent (its default applies)."""

    setting: str
    old: Any
    new: Any

    @property
    def kind(self) -> ChangeKind:
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        return "changed"

    def to_dict(self) -> dict[str, Any]:
        return {"setting": self.setting, "kind": self.kind, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class ValueExample:
    """One replayed value: which page and record, and the value each version extracted."""

    url: str
    record: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "record": self.record, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class ValueDelta:
    """How many records fall in one category (changed, appeared, disappeared) and a few of
    them as examples."""

    count: int = 0
    examples: tuple[ValueExample, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "examples": [e.to_dict() for e in self.examples]}


@dataclass(frozen=True)
class FieldReplay:
    """A field's values on the replayed pages, old version vs new version, record by record.

    ``compared`` counts the records both versions extracted (paired on each page);
    a value *appeared* when only the new version has one, *disappeared* when only the old
    one has, *changed* when both have different ones.
    """

    compared: int
    unchanged: int
    changed: ValueDelta = ValueDelta()
    appeared: ValueDelta = ValueDelta()
    disappeared: ValueDelta = ValueDelta()

    @property
    def differs(self) -> bool:
        return bool(self.changed.count or self.appeared.count or self.disappeared.count)

    def delta(self, category: Category) -> ValueDelta:
        """The :class:`ValueDelta` of one category."""
        if category == "changed":
            return self.changed
        return self.appeared if category == "appeared" else self.disappeared

    def to_dict(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "unchanged": self.unchanged,
            "changed": self.changed.to_dict(),
            "appeared": self.appeared.to_dict(),
            "disappeared": self.disappeared.to_dict(),
        }


@dataclass(frozen=True)
class FieldDiff:
    """One field of one page type: its setting changes and its replayed values."""

    page_type: str
    name: str
    status: Status
    changes: tuple[SettingChange, ...] = ()
    replay: FieldReplay | None = None

    @property
    def qualified(self) -> str:
        return f"{self.page_type}.{self.name}"

    @property
    def differs(self) -> bool:
        return self.status != "unchanged" or bool(self.replay and self.replay.differs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "page_type": self.page_type,
            "field": self.name,
            "status": self.status,
            "changes": [c.to_dict() for c in self.changes],
            "replay": self.replay.to_dict() if self.replay else None,
        }


@dataclass(frozen=True)
class RecordCount:
    """Records of one page type extracted from the replayed pages by each version."""

    old: int
    new: int

    @property
    def delta(self) -> int:
        return self.new - self.old

    def to_dict(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "delta": self.delta}


@dataclass(frozen=True)
class PageTypeDiff:
    """One page type: its own settings (``match``, ``record_root``, ``emit``, ``follow``),
    its fields, and its record counts on the replayed pages."""

    name: str
    status: Status
    changes: tuple[SettingChange, ...] = ()
    fields: tuple[FieldDiff, ...] = ()
    records: RecordCount | None = None

    @property
    def differs(self) -> bool:
        return (
            self.status != "unchanged"
            or any(f.differs for f in self.fields)
            or bool(self.records and self.records.delta)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "page_type": self.name,
            "status": self.status,
            "changes": [c.to_dict() for c in self.changes],
            "records": self.records.to_dict() if self.records else None,
            "fields": [f.to_dict() for f in self.fields],
        }


@dataclass(frozen=True)
class VersionRef:
    """Which version a side of the diff is: a label a person recognises (``mfds-dmf@3``,
    ``origin/main:selectors/mfds-dmf.json``, a path) and the file's ``version`` number."""

    label: str
    version: int

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "version": self.version}


ReplayKind = Literal["fixtures", "run"]


@dataclass(frozen=True)
class ReplaySource:
    """Pages both versions were replayed on: the golden fixtures, or a run's WARC archive."""

    kind: ReplayKind
    label: str
    pages: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label, "pages": self.pages}


@dataclass(frozen=True)
class FileDiff:
    """Two versions of one site's selector file. ``old``/``new`` is None for a file that only
    exists on one side. ``settings`` are crawl-wide (``fetch.*``, ``key``); ``metadata``
    (version, provenance, fixtures, baseline) is shown but changes no data by itself."""

    site: str
    path: str
    old: VersionRef | None
    new: VersionRef | None
    settings: tuple[SettingChange, ...] = ()
    page_types: tuple[PageTypeDiff, ...] = ()
    metadata: tuple[SettingChange, ...] = ()
    sources: tuple[ReplaySource, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def status(self) -> Status:
        if self.old is None:
            return "added"
        if self.new is None:
            return "removed"
        return "changed" if self.differs else "unchanged"

    @property
    def differs(self) -> bool:
        """A difference in what is collected: settings, page types, fields or replayed data."""
        return (
            self.old is None
            or self.new is None
            or bool(self.settings)
            or any(p.differs for p in self.page_types)
        )

    @property
    def changed_fields(self) -> tuple[FieldDiff, ...]:
        return tuple(f for p in self.page_types for f in p.fields if f.differs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "path": self.path,
            "status": self.status,
            "old": self.old.to_dict() if self.old else None,
            "new": self.new.to_dict() if self.new else None,
            "settings": [c.to_dict() for c in self.settings],
            "page_types": [p.to_dict() for p in self.page_types],
            "metadata": [c.to_dict() for c in self.metadata],
            "replayed_on": [s.to_dict() for s in self.sources],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class DiffReport:
    """Everything one ``anchorpath diff`` compared (one file pair, or every changed file of a
    ``--git`` diff)."""

    files: tuple[FileDiff, ...]
    title: str

    @property
    def differs(self) -> bool:
        return any(f.differs for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "differs": self.differs,
            "files": [f.to_dict() for f in self.files],
        }
